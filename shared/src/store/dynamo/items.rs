//! Items: records to and from DynamoDB attribute maps, key attributes and small attribute helpers.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Serialize, de::DeserializeOwned};

use crate::records::Timestamp;
use crate::store::{StoreError, StoreResult};

pub(crate) type Item = HashMap<String, AttributeValue>;

pub(crate) const KEY_ATTRIBUTES: [&str; 6] = ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "ttl"];

pub(crate) fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub(crate) fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

pub(crate) fn key(pk: impl Into<String>, sk: Option<&str>) -> Item {
    let mut item = Item::from([("pk".to_string(), s(pk))]);
    if let Some(sk) = sk {
        item.insert("sk".into(), s(sk));
    }
    item
}

pub(crate) fn padded(id: i32) -> String {
    format!("{id:010}")
}

/// A record as an item: its serde_dynamo attributes plus the key attributes.
pub(crate) fn to_item<T: Serialize>(record: &T, keys: Item) -> StoreResult<Item> {
    let mut item: Item = serde_dynamo::to_item(record)
        .map_err(|e| StoreError::Corrupt(format!("cannot encode record: {e}")))?;
    item.extend(keys);
    Ok(item)
}

/// A record from an item, key attributes removed first (records reject unknown fields).
pub(crate) fn from_item<T: DeserializeOwned>(mut item: Item) -> StoreResult<T> {
    for name in KEY_ATTRIBUTES {
        item.remove(name);
    }
    serde_dynamo::from_item(item).map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(crate) fn sk_of(item: &Item) -> &str {
    match item.get("sk") {
        Some(AttributeValue::S(sk)) => sk,
        _ => "",
    }
}

pub(crate) fn pk_of(item: &Item) -> &str {
    match item.get("pk") {
        Some(AttributeValue::S(pk)) => pk,
        _ => "",
    }
}

/// The condition of a write guarded by a version: the first write, or the version still being
/// the one read. Values are `None` for the first write (DynamoDB refuses an empty map).
pub(crate) fn version_guard(read: u64) -> (&'static str, Option<HashMap<String, AttributeValue>>) {
    if read == 0 {
        ("attribute_not_exists(pk)", None)
    } else {
        (
            "version = :v",
            Some(HashMap::from([(":v".to_string(), n(read))])),
        )
    }
}

pub(crate) fn ttl_attribute(at: Timestamp) -> (String, AttributeValue) {
    ("ttl".to_string(), n(at.timestamp()))
}

pub(crate) fn data_keys(pk: String, sk: String, gsi1: Option<(String, String)>) -> Item {
    let mut item = key(pk, Some(&sk));
    if let Some((gsi1pk, gsi1sk)) = gsi1 {
        item.insert("gsi1pk".into(), s(gsi1pk));
        item.insert("gsi1sk".into(), s(gsi1sk));
    }
    item
}

pub(crate) fn attribute<T: DeserializeOwned>(
    item: &mut Item,
    name: &str,
) -> StoreResult<Option<T>> {
    item.remove(name)
        .map(|value| {
            serde_dynamo::from_attribute_value(value)
                .map_err(|e| StoreError::Corrupt(format!("{name}: {e}")))
        })
        .transpose()
}

pub(crate) fn encode<T: Serialize>(value: &T) -> StoreResult<AttributeValue> {
    serde_dynamo::to_attribute_value(value)
        .map_err(|e| StoreError::Corrupt(format!("cannot encode attribute: {e}")))
}

pub(crate) fn version_of(item: &Item) -> StoreResult<u64> {
    match item.get("version") {
        Some(AttributeValue::N(version)) => version
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("version {version:?}"))),
        _ => Ok(0),
    }
}

pub(crate) fn item_key(item: &Item) -> Item {
    ["pk", "sk"]
        .iter()
        .filter_map(|name| Some((name.to_string(), item.get(*name)?.clone())))
        .collect()
}
