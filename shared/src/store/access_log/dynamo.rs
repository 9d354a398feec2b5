//! The access log on its own table (`pk`, `sk`, TTL attribute `ttl`):
//! - `LOG#PORTAL#{p}` / `{record id}`: the records made in portal `p`, by time;
//! - `LOG#CLIENT#{c}` / `{record id}`: each record again under every client it touched, listing
//!   only that client, so a client's extract is one Query whatever portal made the access;
//! - `REVIEWS#PORTAL#{p}` / `{review id}`: the portal's log reviews.
//!
//! Every write is a put conditional on `attribute_not_exists(pk)`; the table grants the
//! functions no update or delete (template.yaml), and each item carries its purge time.

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{KeysAndAttributes, Put};
use futures::future::try_join_all;

use crate::ids::{ClientId, PortalId};
use crate::records::Timestamp;
use crate::store::access_log::{
    AccessLogReader, AccessLogWriter, AccessRecord, LogQuery, Page, RETENTION, Review, page_of,
    sort_time,
};
use crate::store::dynamo::DynamoStore;
use crate::store::dynamo::errors::{build_error, classify};
use crate::store::dynamo::items::{Item, from_item, key, s, sk_of, to_item, ttl_attribute};
use crate::store::dynamo::operations::{every_item, txn_put};
use crate::store::limits::{BATCH_GET_LIMIT, TRANSACTION_LIMIT};
use crate::store::{StoreError, StoreResult};

fn portal_log(portal_id: i32) -> String {
    format!("LOG#PORTAL#{portal_id}")
}

fn client_log(client_id: i32) -> String {
    format!("LOG#CLIENT#{client_id}")
}

fn reviews(portal_id: i32) -> String {
    format!("REVIEWS#PORTAL#{portal_id}")
}

/// An item to be appended: the record under `pk`, kept until its retention ends.
fn log_item<T: serde::Serialize>(
    record: &T,
    pk: String,
    id: &str,
    at: Timestamp,
) -> StoreResult<Item> {
    let mut item = to_item(record, key(pk, Some(id)))?;
    let (name, value) = ttl_attribute(at + RETENTION);
    item.insert(name, value);
    Ok(item)
}

impl DynamoStore {
    fn append_put(&self, item: Item) -> StoreResult<Put> {
        Put::builder()
            .table_name(&self.tables.access_log)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(build_error)
    }

    /// Items of a newest-first Query of `pk` with ids in `[low, high)` that `keep` admits,
    /// until `limit` (and one more, to know whether a next page exists) are found.
    async fn log_query<T: serde::de::DeserializeOwned>(
        &self,
        pk: String,
        (low, high): (String, String),
        limit: Option<usize>,
        keep: impl Fn(&T) -> bool,
        id: impl Fn(&T) -> &str,
    ) -> StoreResult<Page<T>> {
        let mut found: Vec<T> = Vec::new();
        // A cursor before `from` leaves nothing, and DynamoDB refuses a BETWEEN whose low end
        // is above its high end.
        if low >= high {
            return Ok(page_of(found, limit, id));
        }
        let mut start: Option<Item> = None;
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.tables.access_log)
                .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
                .expression_attribute_values(":pk", s(pk.clone()))
                .expression_attribute_values(":low", s(low.clone()))
                .expression_attribute_values(":high", s(high.clone()))
                .scan_index_forward(false)
                .set_exclusive_start_key(start.take())
                .set_limit(limit.map(|limit| (limit + 1).min(1000) as i32))
                .send()
                .await
                .map_err(classify)?;
            for item in out.items.unwrap_or_default() {
                // BETWEEN includes `high`, which is the cursor or the `to` bound: both excluded.
                if sk_of(&item) == high {
                    continue;
                }
                let record: T = from_item(item)?;
                if keep(&record) {
                    found.push(record);
                }
            }
            let full = limit.is_some_and(|limit| found.len() > limit);
            match out.last_evaluated_key {
                Some(last) if !full && !last.is_empty() => start = Some(last),
                _ => break,
            }
        }
        Ok(page_of(found, limit, id))
    }
}

#[async_trait]
impl AccessLogWriter for DynamoStore {
    async fn append(&self, records: &[AccessRecord]) -> StoreResult<()> {
        let mut items = Vec::new();
        for record in records {
            items.push(log_item(
                record,
                portal_log(record.portal_id),
                &record.id,
                record.at,
            )?);
            for &client in &record.client_ids {
                items.push(log_item(
                    &record.for_client(client),
                    client_log(client),
                    &record.id,
                    record.at,
                )?);
            }
        }
        let written = if let [item] = items.as_slice() {
            self.client
                .put_item()
                .table_name(&self.tables.access_log)
                .set_item(Some(item.clone()))
                .condition_expression("attribute_not_exists(pk)")
                .send()
                .await
                .map(|_| ())
                .map_err(classify)
        } else {
            // Concurrent transactions of 100 puts: a list of 1,000 clients costs 11 requests
            // side by side, not 1,001 one after another.
            let transactions = items
                .chunks(TRANSACTION_LIMIT)
                .map(|chunk| {
                    chunk
                        .iter()
                        .map(|item| self.append_put(item.clone()).map(txn_put))
                        .collect::<StoreResult<Vec<_>>>()
                })
                .collect::<StoreResult<Vec<_>>>()?;
            try_join_all(
                transactions
                    .into_iter()
                    .map(|transaction| self.transact(transaction)),
            )
            .await
            .map(|_| ())
        };
        match written {
            // A key holds the request's own trace id: an item already there is this request's,
            // written by an attempt whose answer was lost and which the SDK retried.
            Err(StoreError::ConditionFailed) => Ok(()),
            other => other,
        }
    }
}

#[async_trait]
impl AccessLogReader for DynamoStore {
    async fn portal_log(
        &self,
        portal_id: PortalId,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>> {
        self.log_query(
            portal_log(portal_id.get()),
            query.id_range(),
            query.limit,
            |record: &AccessRecord| query.admits(record, portal_id),
            |record| &record.id,
        )
        .await
    }

    async fn client_log(
        &self,
        client_id: ClientId,
        portal_id: Option<PortalId>,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>> {
        self.log_query(
            client_log(client_id.get()),
            query.id_range(),
            query.limit,
            |record: &AccessRecord| {
                query.admits(record, portal_id.unwrap_or(PortalId(record.portal_id)))
            },
            |record| &record.id,
        )
        .await
    }

    async fn record_ids(
        &self,
        portal_id: PortalId,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<String>> {
        if from >= to {
            return Ok(Vec::new());
        }
        let query = self
            .client
            .query()
            .table_name(&self.tables.access_log)
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(portal_log(portal_id.get())))
            .expression_attribute_values(":low", s(sort_time(from)))
            .expression_attribute_values(":high", s(sort_time(to)))
            .projection_expression("sk");
        let items = every_item(query).await?;
        let high = sort_time(to);
        Ok(items
            .iter()
            .map(|item| sk_of(item).to_string())
            .filter(|id| *id != high)
            .collect())
    }

    async fn records(&self, portal_id: PortalId, ids: &[String]) -> StoreResult<Vec<AccessRecord>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        if ids.len() > BATCH_GET_LIMIT {
            return Err(StoreError::Backend(
                format!("at most {BATCH_GET_LIMIT} records at once").into(),
            ));
        }
        let keys = KeysAndAttributes::builder()
            .set_keys(Some(
                ids.iter()
                    .map(|id| key(portal_log(portal_id.get()), Some(id)))
                    .collect(),
            ))
            .build()
            .map_err(build_error)?;
        let mut found = self
            .batch_get_request(HashMap::from([(self.tables.access_log.clone(), keys)]))
            .await?;
        let mut records = found
            .remove(&self.tables.access_log)
            .unwrap_or_default()
            .into_iter()
            .map(from_item)
            .collect::<StoreResult<Vec<AccessRecord>>>()?;
        records.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(records)
    }

    async fn add_review(&self, review: &Review) -> StoreResult<()> {
        let item = log_item(review, reviews(review.portal_id), &review.id, review.at)?;
        self.client
            .put_item()
            .table_name(&self.tables.access_log)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn reviews(&self, portal_id: PortalId, query: &LogQuery) -> StoreResult<Page<Review>> {
        self.log_query(
            reviews(portal_id.get()),
            query.cursor_range(),
            query.limit,
            |_: &Review| true,
            |review| &review.id,
        )
        .await
    }
}
