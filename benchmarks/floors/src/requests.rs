//! The AWS requests a matched SDK floor makes before it answers: the requests a function's
//! first real answer made, in the same waves, read from the JSON file `FLOOR_REQUESTS_FILE`.
//!
//! The file is a list of waves, each a list of requests sent together:
//! `[[{"operation": "dynamodb:GetItem", "body": {...}}], ...]`, as the benchmark saw them on
//! the wire. Reads (GetItem, BatchGetItem, Query) are sent again as they were (table, keys,
//! key condition, filter, limit), so they read the same items. Writes (a transaction with as
//! many puts as the function's) and other services' requests are of the same kind, on items of
//! the floor's own (`pk` starting `floor#`) in `DATA_TABLE`, so they never touch the data a
//! function reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, TransactWriteItem};
use lambda_http::Error;
use serde_json::Value;

/// One request a floor can make; a read carries the function's request to send again.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    GetItem(Value),
    BatchGetItem(Value),
    Query(Value),
    PutItem,
    UpdateItem,
    DeleteItem,
    /// As many puts as the function's transaction held.
    TransactWriteItems(usize),
    SendMessage,
    Publish,
    GetSecretValue,
}

/// The waves of a `FLOOR_REQUESTS_FILE`.
pub fn parse(text: &str) -> Result<Vec<Vec<Request>>, Error> {
    let waves: Vec<Vec<Value>> = serde_json::from_str(text)?;
    waves
        .into_iter()
        .map(|wave| wave.into_iter().map(request).collect())
        .collect()
}

fn request(seen: Value) -> Result<Request, Error> {
    let body = seen.get("body").cloned().unwrap_or(Value::Null);
    Ok(match seen["operation"].as_str().unwrap_or_default() {
        "dynamodb:GetItem" => Request::GetItem(body),
        "dynamodb:BatchGetItem" => Request::BatchGetItem(body),
        "dynamodb:Query" => Request::Query(body),
        "dynamodb:PutItem" => Request::PutItem,
        "dynamodb:UpdateItem" => Request::UpdateItem,
        "dynamodb:DeleteItem" => Request::DeleteItem,
        "dynamodb:TransactWriteItems" => Request::TransactWriteItems(
            body["TransactItems"]
                .as_array()
                .map_or(1, Vec::len)
                .clamp(1, 100),
        ),
        "sqs:SendMessage" => Request::SendMessage,
        "sns:Publish" => Request::Publish,
        "secretsmanager:GetSecretValue" => Request::GetSecretValue,
        other => return Err(format!("FLOOR_REQUESTS_FILE: no floor request for {other:?}").into()),
    })
}

/// An attribute value from DynamoDB's JSON (`{"S": "x"}`, `{"N": "1"}`, lists, maps).
fn attribute(json: &Value) -> Result<AttributeValue, Error> {
    let (kind, value) = json
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or_else(|| format!("not an attribute value: {json}"))?;
    Ok(match (kind.as_str(), value) {
        ("S", Value::String(v)) => AttributeValue::S(v.clone()),
        ("N", Value::String(v)) => AttributeValue::N(v.clone()),
        ("BOOL", Value::Bool(v)) => AttributeValue::Bool(*v),
        ("NULL", _) => AttributeValue::Null(true),
        ("L", Value::Array(items)) => {
            AttributeValue::L(items.iter().map(attribute).collect::<Result<_, _>>()?)
        }
        ("M", Value::Object(_)) => AttributeValue::M(attributes(value)?),
        _ => return Err(format!("unsupported attribute value: {json}").into()),
    })
}

fn attributes(json: &Value) -> Result<HashMap<String, AttributeValue>, Error> {
    json.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| Ok((k.clone(), attribute(v)?)))
                .collect()
        })
        .unwrap_or_else(|| Ok(HashMap::new()))
}

fn text(json: &Value, field: &str) -> Option<String> {
    json.get(field).and_then(Value::as_str).map(str::to_string)
}

fn flag(json: &Value, field: &str) -> Option<bool> {
    json.get(field).and_then(Value::as_bool)
}

fn names(json: &Value) -> Option<HashMap<String, String>> {
    json.get("ExpressionAttributeNames")?.as_object().map(|o| {
        o.iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect()
    })
}

/// The clients the floor created at start (those of `FLOOR_CLIENTS`, as its function does)
/// and the names the requests need.
#[derive(Default)]
pub struct Requester {
    pub dynamodb: Option<aws_sdk_dynamodb::Client>,
    pub sqs: Option<aws_sdk_sqs::Client>,
    pub sns: Option<aws_sdk_sns::Client>,
    pub secrets: Option<aws_sdk_secretsmanager::Client>,
    pub table: String,
    pub queue_url: String,
}

fn created<T>(client: &Option<T>, name: &str) -> Result<T, Error>
where
    T: Clone,
{
    client
        .clone()
        .ok_or_else(|| format!("FLOOR_REQUESTS needs a {name} client, not in FLOOR_CLIENTS").into())
}

/// Distinct keys for the items a floor writes.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

fn key(pk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([("pk".to_string(), s(pk)), ("sk".to_string(), s("floor"))])
}

fn fresh_key() -> HashMap<String, AttributeValue> {
    let n = WRITTEN.fetch_add(1, Ordering::Relaxed);
    key(&format!("floor#{}#{n}", std::process::id()))
}

impl Requester {
    /// Sends the waves one after another, each wave's requests together.
    pub async fn send(&self, waves: &[Vec<Request>]) -> Result<(), Error> {
        for wave in waves {
            futures::future::try_join_all(wave.iter().map(|request| self.one(request))).await?;
        }
        Ok(())
    }

    /// Fails at start when a request needs a client the floor did not create.
    pub fn check(&self, waves: &[Vec<Request>]) -> Result<(), Error> {
        for request in waves.iter().flatten() {
            match request {
                Request::SendMessage => drop(created(&self.sqs, "sqs")?),
                Request::Publish => drop(created(&self.sns, "sns")?),
                Request::GetSecretValue => drop(created(&self.secrets, "secretsmanager")?),
                _ => drop(created(&self.dynamodb, "dynamodb")?),
            }
        }
        Ok(())
    }

    async fn one(&self, request: &Request) -> Result<(), Error> {
        let table = &self.table;
        let dynamodb = || created(&self.dynamodb, "dynamodb");
        match request {
            Request::GetItem(seen) => {
                let read = dynamodb()?.get_item();
                read.set_table_name(text(seen, "TableName"))
                    .set_key(Some(attributes(&seen["Key"])?))
                    .set_projection_expression(text(seen, "ProjectionExpression"))
                    .set_expression_attribute_names(names(seen))
                    .set_consistent_read(flag(seen, "ConsistentRead"))
                    .send()
                    .await?;
            }
            Request::BatchGetItem(seen) => {
                let mut read = dynamodb()?.batch_get_item();
                for (table, wanted) in seen["RequestItems"].as_object().into_iter().flatten() {
                    let keys = wanted["Keys"].as_array().into_iter().flatten();
                    let keys = keys.map(attributes).collect::<Result<Vec<_>, _>>()?;
                    let wanted = KeysAndAttributes::builder()
                        .set_keys(Some(keys))
                        .set_projection_expression(text(wanted, "ProjectionExpression"))
                        .set_expression_attribute_names(names(wanted))
                        .set_consistent_read(flag(wanted, "ConsistentRead"))
                        .build()?;
                    read = read.request_items(table, wanted);
                }
                read.send().await?;
            }
            Request::Query(seen) => {
                let read = dynamodb()?.query();
                let values = seen
                    .get("ExpressionAttributeValues")
                    .map(attributes)
                    .transpose()?;
                let limit = seen.get("Limit").and_then(Value::as_i64);
                read.set_table_name(text(seen, "TableName"))
                    .set_index_name(text(seen, "IndexName"))
                    .set_key_condition_expression(text(seen, "KeyConditionExpression"))
                    .set_filter_expression(text(seen, "FilterExpression"))
                    .set_projection_expression(text(seen, "ProjectionExpression"))
                    .set_expression_attribute_names(names(seen))
                    .set_expression_attribute_values(values)
                    .set_limit(limit.map(|n| n as i32))
                    .set_scan_index_forward(flag(seen, "ScanIndexForward"))
                    .set_consistent_read(flag(seen, "ConsistentRead"))
                    .set_exclusive_start_key(
                        seen.get("ExclusiveStartKey").map(attributes).transpose()?,
                    )
                    .send()
                    .await?;
            }
            Request::PutItem => {
                let mut item = fresh_key();
                item.insert("n".into(), AttributeValue::N("1".into()));
                let write = dynamodb()?.put_item().table_name(table);
                write.set_item(Some(item)).send().await?;
            }
            Request::UpdateItem => {
                let write = dynamodb()?.update_item().table_name(table);
                write
                    .set_key(Some(key("floor#counter")))
                    .update_expression("ADD n :one")
                    .expression_attribute_values(":one", AttributeValue::N("1".into()))
                    .send()
                    .await?;
            }
            Request::DeleteItem => {
                let write = dynamodb()?.delete_item().table_name(table);
                write.set_key(Some(fresh_key())).send().await?;
            }
            Request::TransactWriteItems(items) => {
                let mut write = dynamodb()?.transact_write_items();
                for _ in 0..*items {
                    let mut item = fresh_key();
                    item.insert("n".into(), AttributeValue::N("1".into()));
                    let put = Put::builder()
                        .table_name(table)
                        .set_item(Some(item))
                        .condition_expression("attribute_not_exists(pk)")
                        .build()?;
                    write = write.transact_items(TransactWriteItem::builder().put(put).build());
                }
                write.send().await?;
            }
            Request::SendMessage => {
                let send = created(&self.sqs, "sqs")?
                    .send_message()
                    .queue_url(&self.queue_url);
                send.message_body(r#"{"floor":true}"#).send().await?;
            }
            Request::Publish => {
                let publish = created(&self.sns, "sns")?
                    .publish()
                    .phone_number("+46700000000");
                publish.message("floor").send().await?;
            }
            Request::GetSecretValue => {
                let read = created(&self.secrets, "secretsmanager")?
                    .get_secret_value()
                    .secret_id("floor");
                // The answer (no such secret) costs the round trip all the same.
                let _ = read.send().await;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn waves_and_their_requests_are_read_in_order() {
        let file = r#"[
            [{"operation": "dynamodb:GetItem", "body": {"TableName": "t", "Key": {"pk": {"S": "a"}}}}],
            [{"operation": "dynamodb:Query", "body": {}}, {"operation": "dynamodb:Query", "body": {}}],
            [{"operation": "sns:Publish"}]
        ]"#;
        let waves = parse(file).unwrap();
        let get = json!({"TableName": "t", "Key": {"pk": {"S": "a"}}});
        assert_eq!(
            waves,
            vec![
                vec![Request::GetItem(get)],
                vec![Request::Query(json!({})), Request::Query(json!({}))],
                vec![Request::Publish]
            ]
        );
        assert!(parse("[]").unwrap().is_empty());
        assert!(parse(r#"[[{"operation": "dynamodb:Scan"}]]"#).is_err());
    }

    #[test]
    fn attribute_values_are_read_from_dynamodb_json() {
        let key = json!({"pk": {"S": "portal#1"}, "n": {"N": "7"},
            "l": {"L": [{"BOOL": true}, {"NULL": true}]}, "m": {"M": {"x": {"S": "y"}}}});
        let read = attributes(&key).unwrap();
        assert_eq!(read["pk"], AttributeValue::S("portal#1".into()));
        assert_eq!(read["n"], AttributeValue::N("7".into()));
        assert_eq!(
            read["l"],
            AttributeValue::L(vec![AttributeValue::Bool(true), AttributeValue::Null(true)])
        );
        assert!(attribute(&json!({"B": "AAAA"})).is_err());
    }
}
