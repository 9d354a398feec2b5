//! Each account's period as one item in a partition of its own (`READING#{portal}#{account}`,
//! sorted by the period's start), its clients a number set grown by atomic `ADD`; a period
//! that went over waits in `gsi1`'s `UNUSUAL` partition until the scheduler opens its alert.

use std::collections::HashSet;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use chrono::{DateTime, TimeDelta, Utc};

use crate::records::Timestamp;
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{Item, key, n, s};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::reading::{
    ReadCount, Reading, ReadingWatch, UnusualReading, UnusualReadingStore,
};
use crate::store::{StoreError, StoreResult, StoredAlert};

/// How long a period's item outlives the period: long enough for the scheduler to open its
/// alert after any outage, short enough that what an account read is not kept as a profile.
const KEPT_AFTER_PERIOD: TimeDelta = TimeDelta::days(7);

fn period_key(reading_pk: String, start: Timestamp) -> Item {
    key(reading_pk, Some(&keys::instant(start)))
}

fn number_set(item: Option<&Item>, name: &str) -> HashSet<i32> {
    match item.and_then(|item| item.get(name)) {
        Some(AttributeValue::Ns(numbers)) => {
            numbers.iter().filter_map(|id| id.parse().ok()).collect()
        }
        _ => HashSet::new(),
    }
}

fn text<'a>(item: &'a Item, name: &str) -> StoreResult<&'a str> {
    item.get(name)
        .and_then(|value| value.as_s().ok())
        .map(String::as_str)
        .ok_or_else(|| StoreError::Corrupt(format!("reading item without {name}")))
}

fn number(item: &Item, name: &str) -> StoreResult<i32> {
    item.get(name)
        .and_then(|value| value.as_n().ok())
        .and_then(|value| value.parse().ok())
        .ok_or_else(|| StoreError::Corrupt(format!("reading item without {name}")))
}

fn instant(value: &str) -> StoreResult<Timestamp> {
    DateTime::parse_from_rfc3339(value)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|_| StoreError::Corrupt(format!("reading item with a bad time {value:?}")))
}

#[async_trait]
impl ReadingWatch for DynamoStore {
    async fn note_reading(&self, reading: &Reading, threshold: usize) -> StoreResult<ReadCount> {
        let pk = keys::reading(reading.portal_id.get(), reading.account_id);
        let ids: Vec<String> = reading.client_ids.iter().map(i32::to_string).collect();
        let expires = (reading.period.end + KEPT_AFTER_PERIOD).timestamp();
        // ALL_OLD: the set before this request; the set after is it with this request's
        // clients, since the ADD is atomic.
        let out = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(period_key(pk.clone(), reading.period.start)))
            .update_expression("ADD clients :ids SET #ttl = :ttl")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":ids", AttributeValue::Ns(ids))
            .expression_attribute_values(":ttl", n(expires))
            .return_values(ReturnValue::AllOld)
            .send()
            .await
            .map_err(classify)?;
        let mut clients = number_set(out.attributes.as_ref(), "clients");
        let before = clients.len();
        clients.extend(&reading.client_ids);
        let count = ReadCount {
            before,
            after: clients.len(),
        };
        if count.crossed(threshold) {
            let over_at = keys::instant(reading.at);
            self.client
                .update_item()
                .table_name(&self.tables.data)
                .set_key(Some(period_key(pk, reading.period.start)))
                .update_expression(
                    "SET gsi1pk = :unusual, gsi1sk = :at, portalId = :portal, accountId = :account",
                )
                .expression_attribute_values(":unusual", s(keys::UNUSUAL))
                .expression_attribute_values(":at", s(over_at))
                .expression_attribute_values(":portal", n(reading.portal_id.get()))
                .expression_attribute_values(":account", n(reading.account_id))
                .send()
                .await
                .map_err(classify)?;
        }
        Ok(count)
    }
}

#[async_trait]
impl UnusualReadingStore for DynamoStore {
    async fn unusual_readings(&self, limit: usize) -> StoreResult<Vec<UnusualReading>> {
        let out = self
            .index_query("gsi1", keys::UNUSUAL.into(), None)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .send()
            .await
            .map_err(classify)?;
        out.items
            .unwrap_or_default()
            .iter()
            .map(|item| {
                Ok(UnusualReading {
                    portal_id: number(item, "portalId")?,
                    account_id: number(item, "accountId")?,
                    period_start: instant(text(item, "sk")?)?,
                    at: instant(text(item, "gsi1sk")?)?,
                })
            })
            .collect()
    }

    async fn open_unusual_access_alert(
        &self,
        reading: &UnusualReading,
    ) -> StoreResult<Option<StoredAlert>> {
        // The period leaves the waiting partition as its alert is written: a retried pass
        // finds it gone, or finds the condition failed, and raises nothing.
        self.open_alert_once(&reading.alert(), |alert| {
            let mut expression = Expression::default();
            expression.value(":id", n(alert.id));
            self.data_update(
                period_key(
                    keys::reading(reading.portal_id, reading.account_id),
                    reading.period_start,
                ),
                "REMOVE gsi1pk, gsi1sk SET alertId = :id",
                "attribute_exists(gsi1pk)",
                expression,
            )
        })
        .await
    }
}
