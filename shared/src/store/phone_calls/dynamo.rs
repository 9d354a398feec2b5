//! A call with its transcript and connected legs, and a call's client requests.

use crate::ids::CallId;
use std::collections::HashMap;

use async_trait::async_trait;

use crate::domain::order_thread;
use crate::records::{ClientRequest, PhoneCall, TranscriptLine};
use crate::store::dynamo::items::{from_item, pk_of, s, sk_of};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::{PhoneCallReader, StoreResult};

#[async_trait]
impl PhoneCallReader for DynamoStore {
    async fn call_with_connected(&self, call_id: CallId) -> StoreResult<Option<Vec<PhoneCall>>> {
        let call_id = call_id.get();
        let (own, connected) = futures::future::try_join(
            self.query_all(
                "pk = :pk AND sk <= :meta",
                vec![(":pk", s(keys::call(call_id))), (":meta", s(keys::META))],
            ),
            self.index_items("gsi1", keys::connected_to(call_id)),
        )
        .await?;
        let mut calls: HashMap<String, PhoneCall> = HashMap::new();
        let mut lines: HashMap<String, Vec<TranscriptLine>> = HashMap::new();
        for item in own.into_iter().chain(connected) {
            let pk = pk_of(&item).to_string();
            if sk_of(&item) == keys::META {
                calls.insert(pk, from_item(item)?);
            } else if sk_of(&item).starts_with("LINE#") {
                lines.entry(pk).or_default().push(from_item(item)?);
            }
        }
        let root_pk = keys::call(call_id);
        let Some(root) = calls.remove(&root_pk) else {
            return Ok(None);
        };
        let mut with_lines = |pk: &str, call: PhoneCall| PhoneCall {
            transcript: Some(lines.remove(pk).unwrap_or_default()),
            ..call
        };
        let root = with_lines(&root_pk, root);
        let connected = calls
            .into_iter()
            .map(|(pk, call)| with_lines(&pk, call))
            .collect();
        Ok(Some(order_thread(root, connected)))
    }

    async fn call_requests(
        &self,
        call_id: CallId,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>> {
        let call_id = call_id.get();
        let items = self
            .query_all(
                "pk = :pk AND sk >= :meta",
                vec![(":pk", s(keys::call(call_id))), (":meta", s(keys::META))],
            )
            .await?;
        let mut call = None;
        let mut requests = Vec::new();
        for item in items {
            if sk_of(&item) == keys::META {
                call = Some(from_item::<PhoneCall>(item)?);
            } else if sk_of(&item).starts_with("REQ#") {
                requests.push(from_item::<ClientRequest>(item)?);
            }
        }
        Ok(call.map(|call| (call, requests)))
    }
}
