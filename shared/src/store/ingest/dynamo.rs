//! Call ingestion: receipts, conversations, held analyses and recorded calls.

mod writes;

use crate::ids::{AlertId, EntryId, PortalId, QuestionnaireId};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::{Delete, Put, TransactWriteItem};
use serde::{Deserialize, Serialize};

use crate::domain::{Alert, CountedCall};
use crate::fixture::counters;
use crate::records::{Client, Question, QuestionnaireClientEntry};
use crate::store::dynamo::errors::build_error;
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{
    Item, data_keys, encode, from_item, item_key, key, n, pk_of, s, sk_of, to_item,
};
use crate::store::dynamo::operations::{every_item, txn_delete, txn_put};
use crate::store::dynamo::records::CALL_STATS;
use crate::store::dynamo::records::live_from_item;
use crate::store::dynamo::records::{answer_item, call_items, request_item};
use crate::store::dynamo::records::{
    due_entry_from_item, entry_as_read, entry_item, open_entry_key, with_history,
};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::ingest::CallAlert;
use crate::store::limits::TRANSACTION_LIMIT;
use crate::store::{
    AnalysisHold, Conversation, DeliveryKey, DeliveryState, DueEntry, IngestStore, NewCall,
    OutcomeReport, RecordedAnalysis, StoreError, StoreResult,
};

/// The receipt of a processed delivery: which conversation it was for.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReceiptItem {
    conversation_uuid: String,
}

impl DynamoStore {
    pub(crate) fn receipt_put(
        &self,
        portal_id: i32,
        event_id: &str,
        uuid: &str,
    ) -> StoreResult<TransactWriteItem> {
        let receipt = ReceiptItem {
            conversation_uuid: uuid.to_string(),
        };
        let item = to_item(
            &receipt,
            data_keys(keys::portal(portal_id), keys::event(event_id), None),
        )?;
        self.data_put(item, Some("attribute_not_exists(pk)"))
    }

    /// The held analysis of a conversation is still as read: the same one (consumed by this
    /// write), or none.
    pub(crate) fn held_as_read(
        &self,
        portal_id: i32,
        uuid: &str,
        held_event_id: Option<&str>,
    ) -> StoreResult<TransactWriteItem> {
        let held_key = key(keys::portal(portal_id), Some(&keys::held_analysis(uuid)));
        let mut expression = Expression::default();
        match held_event_id {
            Some(event_id) => {
                expression
                    .name("#held", "eventId")
                    .value(":held", s(event_id));
                self.data_delete(held_key, "#held = :held", expression)
            }
            None => self.data_check(held_key, "attribute_not_exists(pk)", expression),
        }
    }

    /// Completes an entry with a call: an open entry moves to its closed key if it is still as
    /// read; a closed one (out of attempts) gets the call if it has none yet.
    pub(crate) fn completion_writes(
        &self,
        due: &DueEntry,
        call_id: i32,
    ) -> StoreResult<Vec<TransactWriteItem>> {
        let completed = QuestionnaireClientEntry {
            phone_call_id: Some(call_id),
            next_try_at: None,
            ..due.entry.clone()
        };
        let item = with_history(
            entry_item(&completed, due.portal_id.get(), &due.schedule)?,
            &due.outcomes,
            due.ended,
        )?;
        if due.is_open() {
            let mut expression = Expression::default();
            let condition = entry_as_read(due, &mut expression)?;
            return Ok(vec![
                self.data_delete(open_entry_key(due), condition, expression)?,
                self.data_put(item, None)?,
            ]);
        }
        let mut expression = Expression::default();
        expression
            .name("#id", "id")
            .name("#call", "phoneCallId")
            .value(":id", n(due.entry.id))
            .value(":null", s("NULL"));
        let (names, values) = expression.into_parts();
        Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .condition_expression(
                "#id = :id AND (attribute_not_exists(#call) OR attribute_type(#call, :null))",
            )
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(|put| vec![txn_put(put)])
            .map_err(build_error)
    }

    /// Deletes items a failed ingestion wrote ahead of its call record, which no reader can
    /// reach; best effort, since they are invisible either way.
    pub(crate) async fn remove_unreachable(&self, keys: Vec<Item>) {
        for chunk in keys.chunks(TRANSACTION_LIMIT) {
            let deletes = chunk
                .iter()
                .map(|item_key| {
                    Delete::builder()
                        .table_name(&self.tables.data)
                        .set_key(Some(item_key.clone()))
                        .build()
                        .map(txn_delete)
                        .map_err(build_error)
                })
                .collect::<StoreResult<Vec<_>>>();
            let result = match deletes {
                Ok(deletes) => self.transact(deletes).await,
                Err(error) => Err(error),
            };
            if let Err(error) = result {
                tracing::warn!(error = %error, items = chunk.len(), "unreachable call items left behind");
            }
        }
    }
}

#[async_trait]
impl IngestStore for DynamoStore {
    async fn entry_by_id(&self, entry_id: EntryId) -> StoreResult<Option<DueEntry>> {
        let entry_id = entry_id.get();
        self.index_items("gsi2", keys::entry_id(entry_id))
            .await?
            .into_iter()
            .next()
            .map(due_entry_from_item)
            .transpose()
    }

    async fn delivery_state(&self, delivery: DeliveryKey<'_>) -> StoreResult<DeliveryState> {
        let pk = keys::portal(delivery.portal_id.get());
        let own = keys::conversation(delivery.conversation_uuid);
        let connected = delivery
            .connected_uuid
            .map(keys::conversation)
            .filter(|connected| *connected != own);
        let live = keys::live_call(delivery.conversation_uuid);
        let mut wanted = vec![
            key(pk.clone(), Some(&keys::event(delivery.event_id))),
            key(pk.clone(), Some(&own)),
            key(
                pk.clone(),
                Some(&keys::held_analysis(delivery.conversation_uuid)),
            ),
            key(pk.clone(), Some(&live)),
        ];
        if let Some(connected) = &connected {
            wanted.push(key(pk.clone(), Some(connected)));
        }
        let mut state = DeliveryState::default();
        for item in self.batch_get_data(wanted).await? {
            let sk = sk_of(&item).to_string();
            if sk.starts_with("EVENT#") {
                state.receipt = Some(from_item::<ReceiptItem>(item)?.conversation_uuid);
            } else if sk.starts_with("ANALYSIS#") {
                state.held = Some(from_item(item)?);
            } else if sk == live {
                (state.live.live, state.live.version) = live_from_item(item)?;
            } else if sk == own {
                state.conversation = Some(from_item(item)?);
            } else if connected.as_deref() == Some(sk.as_str()) {
                state.connected_to = Some(from_item(item)?);
            }
        }
        state.live.conversation = state.conversation.clone();
        Ok(state)
    }

    async fn clients_by_number(
        &self,
        portal_id: PortalId,
        number: &str,
    ) -> StoreResult<Vec<Client>> {
        let query = self
            .live_clients_query(
                portal_id.get(),
                &keys::client(0),
                Some("#phone = :number OR #primary = :number"),
            )
            .expression_attribute_names("#phone", "phone")
            .expression_attribute_names("#primary", "primaryNumber")
            .expression_attribute_values(":number", s(number));
        let items = every_item(query).await?;
        items
            .into_iter()
            .map(|mut item| {
                item.remove(CALL_STATS);
                from_item(item)
            })
            .collect()
    }

    async fn questions(&self, questionnaire_id: QuestionnaireId) -> StoreResult<Vec<Question>> {
        let questionnaire_id = questionnaire_id.get();
        self.records_with_prefix(keys::questionnaire(questionnaire_id), "QUESTION#")
            .await
    }

    async fn record_call(&self, new: &NewCall) -> StoreResult<Conversation> {
        let uuid =
            new.call.conversation_uuid.as_deref().ok_or_else(|| {
                StoreError::Corrupt("a call to record has no conversation".into())
            })?;
        let reserve = |kind: &'static str, count: usize| async move {
            if count == 0 {
                Ok(0)
            } else {
                self.reserve_ids(kind, count).await
            }
        };
        let (call_id, first_line, first_request, alert_id) = futures::future::try_join4(
            reserve(counters::PHONE_CALL, 1),
            reserve(counters::TRANSCRIPT_LINE, new.lines.len()),
            reserve(counters::CLIENT_REQUEST, new.requests.len()),
            reserve(counters::ALERT, usize::from(new.alert.is_some())),
        )
        .await?;
        let numbered = new.numbered(call_id, first_line, first_request)?;
        let alert_id = new.alert.as_ref().map(|_| alert_id);
        let call = &numbered.call;
        let (mut ahead, record) = call_items(call, &numbered.lines)?;
        for request in &numbered.requests {
            ahead.push(request_item(request)?);
        }

        let portal_pk = keys::portal(new.portal_id);
        let recorded = new.conversation(call_id, alert_id.map(AlertId));
        let conversation = to_item(
            &recorded,
            data_keys(portal_pk, keys::conversation(uuid), None),
        )?;
        let mut last = vec![
            self.data_put(record, Some("attribute_not_exists(pk)"))?,
            self.data_put(conversation, Some("attribute_not_exists(pk)"))?,
            self.receipt_put(new.portal_id, &new.event_id, uuid)?,
            self.held_as_read(new.portal_id, uuid, new.held_event_id.as_deref())?,
        ];
        last.push(self.live_unchanged(new.portal_id, uuid, new.live_version)?);
        if let Some((version, alert)) = &new.linked_alert {
            last.push(self.alert_put_at(
                *version,
                &Alert {
                    phone_call_id: Some(call_id),
                    ..alert.clone()
                },
            )?);
        }
        if let (Some(alert), Some(id)) = (&new.alert, alert_id) {
            last.push(self.alert_raise(&Alert {
                id,
                phone_call_id: Some(call_id),
                ..alert.clone()
            })?);
        }
        if let Some(counted) = CountedCall::of(call) {
            let mut expression = Expression::default();
            expression
                .name("#stats", CALL_STATS)
                .name("#call", &CountedCall::key(call_id))
                .value(":counted", encode(&counted)?);
            last.push(self.data_update(
                key(
                    keys::portal(call.portal_id),
                    Some(&keys::client(call.client_id)),
                ),
                "SET #stats.#call = :counted",
                "attribute_exists(pk)",
                expression,
            )?);
        }
        if let Some(completion) = &new.completion {
            let due = &completion.entry;
            match &completion.not_a_contact {
                Some(outcome) => {
                    last.extend(self.outcome_writes(due, outcome, due.effect_of(outcome))?)
                }
                None => last.extend(self.completion_writes(due, call_id)?),
            }
            for answer in &completion.answers {
                // Answers go last, so that they share the call's transaction when they fit.
                ahead.push(answer_item(
                    due.entry.questionnaire_id,
                    due.portal_id.get(),
                    answer,
                )?);
            }
        }

        // Lines and requests are unreachable until the call record exists, so they go ahead
        // in full transactions; the final one holds what must appear together, filled up
        // with the rest.
        let room = TRANSACTION_LIMIT.saturating_sub(last.len());
        let split = ahead.len().saturating_sub(room);
        let late = ahead.split_off(split);
        let call_pk = keys::call(call_id);
        let mut written = Vec::new();
        for chunk in ahead.chunks(TRANSACTION_LIMIT) {
            let puts = chunk
                .iter()
                .map(|item| self.data_put(item.clone(), None))
                .collect::<StoreResult<Vec<_>>>()?;
            if let Err(error) = self.transact(puts).await {
                self.remove_unreachable(written).await;
                return Err(error);
            }
            written.extend(
                chunk
                    .iter()
                    .filter(|item| pk_of(item) == call_pk)
                    .map(item_key),
            );
        }
        for item in late {
            last.push(self.data_put(item, None)?);
        }
        match self.transact(last).await {
            Ok(()) => Ok(recorded),
            Err(error) => {
                self.remove_unreachable(written).await;
                Err(error)
            }
        }
    }

    async fn hold_analysis(&self, hold: AnalysisHold<'_>) -> StoreResult<()> {
        let pk = keys::portal(hold.portal_id.get());
        let held_item = to_item(
            hold.held,
            data_keys(
                pk.clone(),
                keys::held_analysis(hold.conversation_uuid),
                None,
            ),
        )?;
        let writes = vec![
            self.data_put(held_item, None)?,
            self.receipt_put(
                hold.portal_id.get(),
                &hold.held.event_id,
                hold.conversation_uuid,
            )?,
            self.data_check(
                key(pk, Some(&keys::conversation(hold.conversation_uuid))),
                "attribute_not_exists(pk)",
                Expression::default(),
            )?,
        ];
        self.transact(writes).await
    }

    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<Option<CallAlert>> {
        let analysis = &recorded.analysis;
        let mut expression = Expression::default();
        let mut assignments = Vec::new();
        let fields = [
            ("summary", encode(&analysis.summary)?),
            ("purpose", encode(&analysis.purpose)?),
            ("confidence", n(analysis.confidence)),
            ("confidenceReason", encode(&analysis.confidence_reason)?),
            ("satisfaction", n(analysis.satisfaction)),
            ("satisfactionReason", encode(&analysis.satisfaction_reason)?),
            ("name", encode(&analysis.name)?),
        ];
        for (i, (name, value)) in fields.into_iter().enumerate() {
            expression
                .name(&format!("#f{i}"), name)
                .value(&format!(":f{i}"), value);
            assignments.push(format!("#f{i} = :f{i}"));
        }
        let call_id = recorded.conversation.phone_call_id;
        let mut writes = vec![
            self.data_update(
                key(keys::call(call_id), Some(keys::META)),
                &format!("SET {}", assignments.join(", ")),
                "attribute_exists(pk)",
                expression,
            )?,
            self.receipt_put(
                recorded.portal_id,
                &recorded.event_id,
                &recorded.conversation_uuid,
            )?,
        ];
        let written = self.alert_writes(recorded, &mut writes).await?;
        if let Some(entry) = recorded.conversation.entry {
            for answer in &recorded.answers {
                let item = answer_item(entry.questionnaire_id, recorded.portal_id, answer)?;
                writes.push(self.data_put(item, None)?);
            }
        }
        if writes.len() > TRANSACTION_LIMIT {
            return Err(StoreError::Backend(
                format!(
                    "an analysis with {} answers does not fit one transaction",
                    recorded.answers.len()
                )
                .into(),
            ));
        }
        self.transact(writes).await?;
        Ok(written)
    }

    async fn record_outcome(&self, report: &OutcomeReport) -> StoreResult<()> {
        let mut writes = vec![self.receipt_put(
            report.portal_id,
            &report.event_id,
            &report.conversation_uuid,
        )?];
        if let Some(due) = &report.entry {
            writes.extend(self.outcome_writes(due, &report.outcome, report.effect)?);
        }
        self.transact(writes).await
    }
}
