//! The writes a delivery's transaction is built from beside the call itself: an analysis's
//! alert, a failed attempt's outcome on its entry, and the alert a call's end opens or takes
//! over.

use aws_sdk_dynamodb::types::TransactWriteItem;

use crate::domain::{Alert, AlertReason, AttemptOutcome, Effect};
use crate::fixture::counters;
use crate::ids::AlertId;
use crate::records::QuestionnaireClientEntry;
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{encode, key, n, s};
use crate::store::dynamo::records::{
    ENDED, OUTCOMES, entry_as_read, entry_item, open_entry_key, with_history,
};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::ingest::{AlertWrite, CallAlert};
use crate::store::{DueEntry, RecordedAnalysis, StoreResult};

impl DynamoStore {
    /// The writes of an analysis's alert: the alert, and its reference on the conversation
    /// (conditional on there being none yet when one is opened); the reference written.
    pub(super) async fn alert_writes(
        &self,
        recorded: &RecordedAnalysis,
        writes: &mut Vec<TransactWriteItem>,
    ) -> StoreResult<Option<CallAlert>> {
        let (written, condition) = match &recorded.alert {
            None => return Ok(None),
            Some(AlertWrite::Open(alert)) => {
                let id = self.reserve_ids(counters::ALERT, 1).await?;
                writes.push(self.alert_raise(&Alert {
                    id,
                    phone_call_id: Some(recorded.conversation.phone_call_id),
                    ..alert.clone()
                })?);
                let written = CallAlert {
                    alert_id: AlertId(id),
                    reason: alert.reason,
                };
                (written, "attribute_not_exists(#alert)")
            }
            Some(AlertWrite::RaiseTo { version, alert }) => {
                writes.push(self.alert_put_at(*version, alert)?);
                let written = CallAlert {
                    alert_id: AlertId(alert.id),
                    reason: alert.reason,
                };
                (written, "attribute_exists(pk)")
            }
        };
        let mut expression = Expression::default();
        expression
            .name("#alert", "alert")
            .value(":alert", encode(&written)?);
        writes.push(self.data_update(
            key(
                keys::portal(recorded.portal_id),
                Some(&keys::conversation(&recorded.conversation_uuid)),
            ),
            "SET #alert = :alert",
            condition,
            expression,
        )?);
        Ok(Some(written))
    }

    /// An outcome appended to its entry's list, and its effect: an open entry's next try
    /// moved, or the entry moved to its closed key with how it ended. Conditional on the open
    /// entry being as read; an outcome of a closed entry is only kept.
    pub(super) fn outcome_writes(
        &self,
        due: &DueEntry,
        outcome: &AttemptOutcome,
        effect: Effect,
    ) -> StoreResult<Vec<TransactWriteItem>> {
        let pk = keys::questionnaire_portal(due.entry.questionnaire_id, due.portal_id.get());
        let mut expression = Expression::default();
        if !due.is_open() {
            expression
                .name("#id", "id")
                .value(":id", n(due.entry.id))
                .name("#outcomes", OUTCOMES)
                .value(":new", encode(&[outcome])?)
                .value(":empty", encode(&Vec::<AttemptOutcome>::new())?);
            let mut update =
                String::from("SET #outcomes = list_append(if_not_exists(#outcomes, :empty), :new)");
            let mut condition = String::from("#id = :id");
            // Ending a closed entry happens once, and never to one a call reached; it leaves
            // the due index, where it waited for this report.
            if let Effect::End(end) = effect {
                expression
                    .name("#ended", ENDED)
                    .name("#call", "phoneCallId")
                    .value(":ended", encode(&end)?)
                    .value(":null", s("NULL"));
                update.push_str(", #ended = :ended REMOVE gsi1pk, gsi1sk");
                condition.push_str(
                    " AND attribute_not_exists(#ended) \
                     AND (attribute_not_exists(#call) OR attribute_type(#call, :null))",
                );
            }
            let mut writes = vec![self.data_update(
                key(pk, Some(&keys::closed_entry(due.entry.id))),
                &update,
                &condition,
                expression,
            )?];
            writes.extend(self.alert_of_end(due, outcome, effect)?);
            return Ok(writes);
        }
        let condition = entry_as_read(due, &mut expression)?;
        let end = match effect {
            Effect::End(end) => end,
            Effect::Record | Effect::RetryAt(_) => {
                expression
                    .name("#outcomes", OUTCOMES)
                    .value(":new", encode(&[outcome])?)
                    .value(":empty", encode(&Vec::<AttemptOutcome>::new())?);
                let mut update = String::from(
                    "SET #outcomes = list_append(if_not_exists(#outcomes, :empty), :new)",
                );
                if let Effect::RetryAt(next) = effect {
                    expression
                        .name("#next", "nextTryAt")
                        .value(":next", encode(&next)?)
                        .value(":due", s(keys::due_at(next, due.entry.id)));
                    update.push_str(", #next = :next, gsi1sk = :due");
                }
                return Ok(vec![self.data_update(
                    open_entry_key(due),
                    &update,
                    condition,
                    expression,
                )?]);
            }
        };
        let closed = QuestionnaireClientEntry {
            next_try_at: None,
            ..due.entry.clone()
        };
        let mut outcomes = due.outcomes.clone();
        outcomes.push(outcome.clone());
        let item = with_history(
            entry_item(&closed, due.portal_id.get(), &due.schedule)?,
            &outcomes,
            Some(end),
        )?;
        let mut writes = vec![
            self.data_delete(open_entry_key(due), condition, expression)?,
            self.data_put(item, None)?,
        ];
        writes.extend(self.alert_of_end(due, outcome, effect)?);
        Ok(writes)
    }

    /// The alert an entry's end raises, if the end calls for one.
    pub(super) fn alert_of_end(
        &self,
        due: &DueEntry,
        outcome: &AttemptOutcome,
        effect: Effect,
    ) -> StoreResult<Option<TransactWriteItem>> {
        let Effect::End(end) = effect else {
            return Ok(None);
        };
        AlertReason::of(end)
            .map(|reason| {
                let mut attempts = due.outcomes.clone();
                attempts.push(outcome.clone());
                let alert = Alert::raised(
                    &due.entry,
                    due.portal_id.get(),
                    reason,
                    attempts,
                    outcome.at,
                );
                self.alert_raise(&alert)
            })
            .transpose()
    }
}
