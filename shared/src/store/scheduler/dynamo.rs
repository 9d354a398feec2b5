//! The due-time index and the scheduler's claims on open entries.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::{Alert, EntryEnd, REPORT_WAIT, Schedule};
use crate::records::{Client, QuestionnaireClientEntry, Timestamp};
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{Item, encode, from_item, key, n, s, sk_of};
use crate::store::dynamo::records::CALL_STATS;
use crate::store::dynamo::records::{
    ENDED, PENDING, SCHEDULE, due_entry_from_item, entry_as_read, entry_item, open_entry_key,
    questionnaire_from_item, with_history,
};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::optimistic::LostRace;
use crate::store::{CallTargets, Claim, DueEntry, PendingAttempt, SchedulerStore, StoreResult};

impl DynamoStore {
    /// Moves an open entry to its closed key, if the open item still holds it as read.
    /// With `report_due`, the closed entry stays in the due index until then, waiting for the
    /// report of its last attempt.
    pub(crate) async fn close_open_entry(
        &self,
        due: &DueEntry,
        condition: &str,
        expression: Expression,
        schedule: &Schedule,
        report_due: Option<Timestamp>,
    ) -> StoreResult<bool> {
        let closed = QuestionnaireClientEntry {
            next_try_at: None,
            ..due.entry.clone()
        };
        let mut item = with_history(
            entry_item(&closed, due.portal_id.get(), schedule)?,
            &due.outcomes,
            due.ended,
        )?;
        if let Some(at) = report_due {
            item.insert("gsi1pk".into(), s(keys::due(due.entry.id)));
            item.insert("gsi1sk".into(), s(keys::due_at(at, due.entry.id)));
        }
        let writes = vec![
            self.data_delete(open_entry_key(due), condition, expression)?,
            self.data_put(item, None)?,
        ];
        self.transact(writes).await.applied()
    }

    pub(crate) async fn update_open_entry(
        &self,
        due: &DueEntry,
        update: &str,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<bool> {
        let result = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(open_entry_key(due)))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(expression.names))
            .set_expression_attribute_values(Some(expression.values))
            .send()
            .await
            .map_err(classify);
        result.applied()
    }
}

#[async_trait]
impl SchedulerStore for DynamoStore {
    async fn due_entries(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<DueEntry>> {
        let until = keys::due_until(now);
        let shards = (0..keys::DUE_SHARDS).map(|shard| {
            let query = self.index_query("gsi1", keys::due(shard), Some(until.clone()));
            async move {
                let mut pages = query.into_paginator().send();
                let mut items = Vec::new();
                while items.len() < limit {
                    match pages.next().await {
                        Some(page) => {
                            items.extend(page.map_err(classify)?.items.unwrap_or_default())
                        }
                        None => break,
                    }
                }
                StoreResult::Ok(items)
            }
        });
        let mut due: Vec<(String, DueEntry)> = Vec::new();
        for item in futures::future::try_join_all(shards)
            .await?
            .into_iter()
            .flatten()
        {
            let at = match item.get("gsi1sk") {
                Some(AttributeValue::S(at)) => at.clone(),
                _ => String::new(),
            };
            due.push((at, due_entry_from_item(item)?));
        }
        due.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(due.into_iter().take(limit).map(|(_, due)| due).collect())
    }

    async fn call_targets(&self, due: &[DueEntry]) -> StoreResult<CallTargets> {
        let mut wanted: HashMap<(String, String), Item> = HashMap::new();
        for due in due {
            let client = (
                keys::portal(due.portal_id.get()),
                keys::client(due.entry.client_id),
            );
            let questionnaire = (
                keys::questionnaire(due.entry.questionnaire_id),
                keys::META.to_string(),
            );
            for (pk, sk) in [client, questionnaire] {
                let item = key(pk.clone(), Some(&sk));
                wanted.entry((pk, sk)).or_insert(item);
            }
        }
        let mut targets = CallTargets::default();
        for mut item in self.batch_get_data(wanted.into_values().collect()).await? {
            if sk_of(&item) == keys::META {
                let (questionnaire, _) = questionnaire_from_item(item)?;
                targets
                    .questionnaires
                    .insert(questionnaire.id, questionnaire);
            } else {
                // Call statistics do not address a call.
                item.remove(CALL_STATS);
                let client: Client = from_item(item)?;
                targets.clients.insert(client.id, client);
            }
        }
        Ok(targets)
    }

    async fn claim_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<bool> {
        let mut expression = Expression::default();
        let condition = entry_as_read(due, &mut expression)?;
        expression
            .name("#schedule", SCHEDULE)
            .name("#attempts", "attempts")
            .value(":attempt", n(claim.attempt))
            .value(
                ":pending",
                encode(&PendingAttempt {
                    attempt: claim.attempt,
                    lease_until: claim.lease_until,
                })?,
            )
            .value(":due", s(keys::due_at(claim.lease_until, due.entry.id)));
        let mut update =
            String::from("SET #schedule.#attempts = :attempt, #pending = :pending, gsi1sk = :due");
        if let Some(next) = claim.next_try_at {
            expression
                .name("#next", "nextTryAt")
                .value(":next", encode(&next)?);
            update.push_str(", #next = :next");
        }
        self.update_open_entry(due, &update, condition, expression)
            .await
    }

    async fn confirm_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<()> {
        let mut expression = Expression::default();
        expression
            .name("#id", "id")
            .name("#pending", PENDING)
            .name("#attempt", "attempt")
            .value(":id", n(due.entry.id))
            .value(":attempt", n(claim.attempt));
        let condition = "#id = :id AND #pending.#attempt = :attempt";
        // A condition failure means a pass confirmed this attempt already.
        match claim.next_try_at {
            Some(next) => {
                expression.value(":due", s(keys::due_at(next, due.entry.id)));
                self.update_open_entry(
                    due,
                    "SET gsi1sk = :due REMOVE #pending",
                    condition,
                    expression,
                )
                .await?;
            }
            None => {
                let schedule = Schedule {
                    attempts: claim.attempt,
                    ..due.schedule
                };
                let report_due = claim.lease_until + REPORT_WAIT;
                self.close_open_entry(due, condition, expression, &schedule, Some(report_due))
                    .await?;
            }
        }
        Ok(())
    }

    async fn close_entry(&self, due: &DueEntry) -> StoreResult<bool> {
        let mut expression = Expression::default();
        let condition = entry_as_read(due, &mut expression)?;
        self.close_open_entry(due, condition, expression, &due.schedule, None)
            .await
    }

    async fn conclude_last_attempt(
        &self,
        due: &DueEntry,
        alert: Option<&Alert>,
    ) -> StoreResult<bool> {
        let closed_key = key(
            keys::questionnaire_portal(due.entry.questionnaire_id, due.portal_id.get()),
            Some(&keys::closed_entry(due.entry.id)),
        );
        let mut expression = Expression::default();
        expression.name("#id", "id").value(":id", n(due.entry.id));
        let Some(alert) = alert else {
            let write =
                self.data_update(closed_key, "REMOVE gsi1pk, gsi1sk", "#id = :id", expression)?;
            return self.transact(vec![write]).await.applied();
        };
        expression
            .name("#ended", ENDED)
            .name("#call", "phoneCallId")
            .value(":ended", encode(&EntryEnd::Exhausted)?)
            .value(":null", s("NULL"));
        let writes = vec![
            self.data_update(
                closed_key,
                "SET #ended = :ended REMOVE gsi1pk, gsi1sk",
                "#id = :id AND attribute_not_exists(#ended) \
                 AND (attribute_not_exists(#call) OR attribute_type(#call, :null))",
                expression,
            )?,
            self.alert_raise(alert)?,
        ];
        self.transact(writes).await.applied()
    }
}
