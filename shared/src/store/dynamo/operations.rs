//! The requests every capability builds on: batched reads and writes, paged queries,
//! transactions and their items, and id counters.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, KeysAndAttributes, Put, PutRequest, ReturnValue,
    TransactWriteItem, Update, WriteRequest,
};
use serde::de::DeserializeOwned;

use crate::store::dynamo::errors::{build_error, classify};
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{Item, from_item, key, n, s};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::limits::{BATCH_GET_LIMIT, BATCH_WRITE_LIMIT, TRANSACTION_LIMIT};
use crate::store::optimistic::LostRace;
use crate::store::{StoreError, StoreResult};

/// Every item a query matches, read page after page.
pub(crate) async fn every_item(query: QueryFluentBuilder) -> StoreResult<Vec<Item>> {
    query
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .map_err(classify)
}

/// The item a conditional `UpdateItem` returned, or `None` when the condition failed (for a
/// condition that the item exists, a missing item). The update must ask for the item with
/// `ReturnValues`: one that returns none reads as `None` too.
pub(crate) async fn updated_item(write: UpdateItemFluentBuilder) -> StoreResult<Option<Item>> {
    let written = write.send().await.map_err(classify).if_applied()?;
    Ok(written.and_then(|out| out.attributes))
}

pub(crate) fn txn_put(put: Put) -> TransactWriteItem {
    TransactWriteItem::builder().put(put).build()
}

pub(crate) fn txn_update(update: Update) -> TransactWriteItem {
    TransactWriteItem::builder().update(update).build()
}

pub(crate) fn txn_delete(delete: Delete) -> TransactWriteItem {
    TransactWriteItem::builder().delete(delete).build()
}

impl DynamoStore {
    /// One BatchGetItem request over any tables; unprocessed keys (which come back under load)
    /// are asked for again. Found items by table.
    pub(crate) async fn batch_get_request(
        &self,
        mut request: HashMap<String, KeysAndAttributes>,
    ) -> StoreResult<HashMap<String, Vec<Item>>> {
        let mut found: HashMap<String, Vec<Item>> = HashMap::new();
        for _ in 0..5 {
            let out = self
                .client
                .batch_get_item()
                .set_request_items(Some(request))
                .send()
                .await
                .map_err(classify)?;
            for (table, items) in out.responses.unwrap_or_default() {
                found.entry(table).or_default().extend(items);
            }
            match out.unprocessed_keys {
                Some(rest) if !rest.is_empty() => request = rest,
                _ => return Ok(found),
            }
        }
        Err(StoreError::Throttled(
            "batch get left keys unprocessed".into(),
        ))
    }

    /// One item of the data table and one of the auth table, in one request.
    pub(crate) async fn batch_get(
        &self,
        data_key: Item,
        auth_key: Item,
    ) -> StoreResult<(Option<Item>, Option<Item>)> {
        let consistent = |key: Item| {
            KeysAndAttributes::builder()
                .keys(key)
                .consistent_read(true)
                .build()
                .map_err(build_error)
        };
        let mut found = self
            .batch_get_request(HashMap::from([
                (self.tables.data.clone(), consistent(data_key)?),
                (self.tables.auth.clone(), consistent(auth_key)?),
            ]))
            .await?;
        let mut first = |table: &str| {
            found
                .remove(table)
                .and_then(|items| items.into_iter().next())
        };
        Ok((first(&self.tables.data), first(&self.tables.auth)))
    }

    /// Every data-table item the key condition matches, read consistently.
    pub(crate) async fn query_all(
        &self,
        condition: &str,
        values: Vec<(&str, AttributeValue)>,
    ) -> StoreResult<Vec<Item>> {
        let mut query = self
            .client
            .query()
            .table_name(&self.tables.data)
            .key_condition_expression(condition)
            .consistent_read(true);
        for (name, value) in values {
            query = query.expression_attribute_values(name, value);
        }
        every_item(query).await
    }

    /// A query of one partition of a global secondary index (`gsi1`, `gsi2`), up to the sort
    /// key `until` when given. Eventually consistent: GSIs offer nothing else.
    pub(crate) fn index_query(
        &self,
        index: &str,
        partition: String,
        until: Option<String>,
    ) -> QueryFluentBuilder {
        let query = self
            .client
            .query()
            .table_name(&self.tables.data)
            .index_name(index)
            .expression_attribute_values(":partition", s(partition));
        match until {
            Some(until) => query
                .key_condition_expression(format!("{index}pk = :partition AND {index}sk <= :until"))
                .expression_attribute_values(":until", s(until)),
            None => query.key_condition_expression(format!("{index}pk = :partition")),
        }
    }

    /// Every item of one partition of a global secondary index.
    pub(crate) async fn index_items(
        &self,
        index: &str,
        partition: String,
    ) -> StoreResult<Vec<Item>> {
        every_item(self.index_query(index, partition, None)).await
    }

    /// The records of partition `pk` whose sort key starts with `prefix`.
    pub(crate) async fn records_with_prefix<T: DeserializeOwned>(
        &self,
        pk: String,
        prefix: &str,
    ) -> StoreResult<Vec<T>> {
        self.query_all(
            "pk = :pk AND begins_with(sk, :prefix)",
            vec![(":pk", s(pk)), (":prefix", s(prefix))],
        )
        .await?
        .into_iter()
        .map(from_item)
        .collect()
    }

    pub(crate) async fn transact(&self, items: Vec<TransactWriteItem>) -> StoreResult<()> {
        debug_assert!(items.len() <= TRANSACTION_LIMIT);
        self.client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
            .map_err(classify)?;
        Ok(())
    }

    pub(crate) async fn batch_write(&self, table: &str, items: Vec<Item>) -> StoreResult<()> {
        for chunk in items.chunks(BATCH_WRITE_LIMIT) {
            let mut pending = chunk
                .iter()
                .map(|item| {
                    Ok(WriteRequest::builder()
                        .put_request(
                            PutRequest::builder()
                                .set_item(Some(item.clone()))
                                .build()
                                .map_err(build_error)?,
                        )
                        .build())
                })
                .collect::<StoreResult<Vec<_>>>()?;
            let mut tries = 0;
            while !pending.is_empty() {
                tries += 1;
                if tries > 8 {
                    return Err(StoreError::Throttled(
                        "batch write left items unprocessed".into(),
                    ));
                }
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(table, pending)
                    .send()
                    .await
                    .map_err(classify)?;
                pending = out
                    .unprocessed_items
                    .and_then(|mut rest| rest.remove(table))
                    .unwrap_or_default();
            }
        }
        Ok(())
    }

    /// Items of the data table by key, in requests of 100 keys.
    pub(crate) async fn batch_get_data(&self, keys: Vec<Item>) -> StoreResult<Vec<Item>> {
        let mut found = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(BATCH_GET_LIMIT) {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(chunk.to_vec()))
                .consistent_read(true)
                .build()
                .map_err(build_error)?;
            let mut items = self
                .batch_get_request(HashMap::from([(self.tables.data.clone(), request)]))
                .await?;
            found.extend(items.remove(&self.tables.data).unwrap_or_default());
        }
        Ok(found)
    }

    pub(crate) async fn get_data(&self, pk: String, sk: &str) -> StoreResult<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(pk, Some(sk))))
            .consistent_read(true)
            .send()
            .await
            .map_err(classify)?;
        Ok(out.item)
    }

    pub(crate) fn auth_put(&self, item: Item) -> Put {
        Put::builder()
            .table_name(&self.tables.auth)
            .set_item(Some(item))
            .build()
            .expect("table name and item are set")
    }
}

impl DynamoStore {
    /// A transaction's update of one data-table item.
    pub(crate) fn data_update(
        &self,
        item_key: Item,
        update: &str,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        Update::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(txn_update)
            .map_err(build_error)
    }

    /// A transaction's check that one data-table item is in a given state.
    pub(crate) fn data_check(
        &self,
        item_key: Item,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        ConditionCheck::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(|check| TransactWriteItem::builder().condition_check(check).build())
            .map_err(build_error)
    }

    pub(crate) fn data_delete(
        &self,
        item_key: Item,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        Delete::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(txn_delete)
            .map_err(build_error)
    }

    pub(crate) fn data_put(
        &self,
        item: Item,
        condition: Option<&str>,
    ) -> StoreResult<TransactWriteItem> {
        Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map(txn_put)
            .map_err(build_error)
    }
}

impl DynamoStore {
    /// An update of the id counter of `kind` (one item a kind), its value named `#v`.
    pub(crate) fn counter_update(&self, kind: &str) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(keys::COUNTER, Some(kind))))
            .expression_attribute_names("#v", "value")
    }

    /// Reserves `count` consecutive ids of a kind in one counter update; returns the first.
    pub(crate) async fn reserve_ids(&self, kind: &str, count: usize) -> StoreResult<i32> {
        let count = i32::try_from(count).map_err(|_| StoreError::Corrupt("id batch".into()))?;
        let out = self
            .counter_update(kind)
            .update_expression("ADD #v :n")
            // The counter may not pass the int32 range of the ids it hands out.
            .condition_expression("attribute_not_exists(#v) OR #v <= :max")
            .expression_attribute_values(":n", n(count))
            .expression_attribute_values(":max", n(i32::MAX - count))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(|e| match classify(e) {
                StoreError::ConditionFailed => {
                    StoreError::Corrupt(format!("{kind} ids are exhausted"))
                }
                other => other,
            })?;
        match out.attributes.and_then(|mut a| a.remove("value")) {
            Some(AttributeValue::N(last)) => last
                .parse::<i32>()
                .map(|last| last - count + 1)
                .map_err(|_| StoreError::Corrupt(format!("counter {last:?}"))),
            other => Err(StoreError::Corrupt(format!("counter {other:?}"))),
        }
    }
}
