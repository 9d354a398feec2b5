//! The caller context's reads on DynamoDB: a count on the requests' client index, and the
//! client's open entry under each questionnaire in one batch.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{Put, Select, TransactWriteItem};

use crate::fixture::counters;
use crate::ids::{AlertId, ClientId, PortalId};
use crate::store::dynamo::errors::{build_error, classify};
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{
    data_keys, encode, from_item, key, n, pk_of, s, sk_of, to_item, version_guard,
};
use crate::store::dynamo::operations::txn_put;
use crate::store::dynamo::records::{due_entry_from_item, live_from_item, request_item};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::ingest::OPEN_REQUEST;
use crate::store::live::{
    LiveCall, LiveCallStore, LiveState, ToolWrite, late_request, written_alert,
};
use crate::store::{AlertWrite, CallAlert, DueEntry, StoreResult};

#[async_trait]
impl LiveCallStore for DynamoStore {
    async fn open_request_count(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<usize> {
        let mut count = 0usize;
        let partition = keys::client_requests(portal_id.get(), client_id.get());
        let mut pages = self
            .index_query("gsi2", partition, None)
            .filter_expression("#status = :open")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":open", s(OPEN_REQUEST))
            .select(Select::Count)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(classify)?;
            count += usize::try_from(page.count()).unwrap_or(0);
        }
        Ok(count)
    }

    async fn open_entries(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<Vec<DueEntry>> {
        // A client has at most one open entry per questionnaire, under a key that names both:
        // the questionnaires' list (one Query), then every such key in one batch.
        let questionnaires = self
            .index_items("gsi1", keys::QUESTIONNAIRES.into())
            .await?;
        let open = keys::open_entry(client_id.get());
        let wanted = questionnaires
            .iter()
            .filter_map(|item| keys::questionnaire_id(pk_of(item)))
            .map(|id| key(keys::questionnaire_portal(id, portal_id.get()), Some(&open)))
            .collect::<Vec<_>>();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        self.batch_get_data(wanted)
            .await?
            .into_iter()
            .map(due_entry_from_item)
            .collect()
    }

    async fn live_state(&self, portal_id: PortalId, call_id: &str) -> StoreResult<LiveState> {
        let pk = keys::portal(portal_id.get());
        let live_key = keys::live_call(call_id);
        let wanted = vec![
            key(pk.clone(), Some(&live_key)),
            key(pk, Some(&keys::conversation(call_id))),
        ];
        let mut state = LiveState::default();
        for item in self.batch_get_data(wanted).await? {
            if sk_of(&item) == live_key {
                (state.live, state.version) = live_from_item(item)?;
            } else {
                state.conversation = Some(from_item(item)?);
            }
        }
        Ok(state)
    }

    async fn record_tool_call(&self, write: &ToolWrite) -> StoreResult<Option<CallAlert>> {
        let portal_id = write.portal_id.get();
        let conversation_key = key(
            keys::portal(portal_id),
            Some(&keys::conversation(&write.call_id)),
        );
        let mut live = write.live.clone();
        let mut writes: Vec<TransactWriteItem> = Vec::new();
        let recorded = write.read.conversation.as_ref();
        let written = match &write.alert {
            None => None,
            Some(alert_write) => {
                let (alert, condition) = match alert_write {
                    AlertWrite::Open(_) => {
                        let id = self.reserve_ids(counters::ALERT, 1).await?;
                        let alert =
                            written_alert(alert_write, id, recorded.map(|c| c.phone_call_id));
                        writes.push(self.alert_raise(&alert)?);
                        (alert, "attribute_not_exists(#alert)")
                    }
                    AlertWrite::RaiseTo { version, alert } => {
                        writes.push(self.alert_put_at(*version, alert)?);
                        (alert.clone(), "attribute_exists(pk)")
                    }
                };
                let written = CallAlert {
                    alert_id: AlertId(alert.id),
                    reason: alert.reason,
                };
                match recorded {
                    Some(_) => {
                        let mut expression = Expression::default();
                        expression
                            .name("#alert", "alert")
                            .value(":alert", encode(&written)?);
                        writes.push(self.data_update(
                            conversation_key.clone(),
                            "SET #alert = :alert",
                            condition,
                            expression,
                        )?);
                    }
                    None => live.alert = Some(written),
                }
                Some(written)
            }
        };
        if recorded.is_none() {
            // Not recorded when read: it must still not be, or `call.ended` would miss this.
            writes.push(self.data_check(
                conversation_key,
                "attribute_not_exists(pk)",
                Expression::default(),
            )?);
        }
        if let (Some(conversation), Some((request, at))) = (recorded, &write.late_request) {
            let id = self.reserve_ids(counters::CLIENT_REQUEST, 1).await?;
            let record = late_request(id, portal_id, conversation, request, *at);
            writes.push(self.data_put(request_item(&record)?, Some("attribute_not_exists(pk)"))?);
        }
        writes.push(self.live_put(portal_id, &write.call_id, &live, write.read.version)?);
        self.transact(writes).await?;
        Ok(written)
    }
}

impl DynamoStore {
    /// The put of a conversation's live state at `read + 1`, if it is still at `read`.
    fn live_put(
        &self,
        portal_id: i32,
        call_id: &str,
        live: &LiveCall,
        read: u64,
    ) -> StoreResult<TransactWriteItem> {
        let mut item = to_item(
            live,
            data_keys(keys::portal(portal_id), keys::live_call(call_id), None),
        )?;
        item.insert("version".into(), n(read + 1));
        let (condition, values) = version_guard(read);
        Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_values(values)
            .build()
            .map(txn_put)
            .map_err(build_error)
    }

    /// The condition that the conversation's live state is still at `read` (for `call.ended`,
    /// which takes what the tools wrote).
    pub(crate) fn live_unchanged(
        &self,
        portal_id: i32,
        call_id: &str,
        read: u64,
    ) -> StoreResult<TransactWriteItem> {
        let mut expression = Expression::default();
        let condition = if read == 0 {
            "attribute_not_exists(pk)"
        } else {
            expression.value(":v", n(read));
            "version = :v"
        };
        self.data_check(
            key(keys::portal(portal_id), Some(&keys::live_call(call_id))),
            condition,
            expression,
        )
    }
}
