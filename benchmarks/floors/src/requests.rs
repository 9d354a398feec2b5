//! The AWS requests a matched SDK floor makes before it answers: the same number and kind of
//! requests a function's first real answer made, in the same waves, read from `FLOOR_REQUESTS`.
//!
//! The format is waves separated by `;`, the requests of one wave (sent together) by `+`, each
//! request `service:Operation`, e.g. `dynamodb:GetItem;dynamodb:Query+dynamodb:Query`. The
//! benchmark writes it from what the function sent on the wire. The requests read and write
//! items of their own (`pk` starting `floor#`) in `DATA_TABLE`, so they never touch the data a
//! function reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, TransactWriteItem};
use lambda_http::Error;

/// One request a floor can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    GetItem,
    BatchGetItem,
    Query,
    PutItem,
    UpdateItem,
    DeleteItem,
    TransactWriteItems,
    SendMessage,
    Publish,
    GetSecretValue,
}

/// The requests of `FLOOR_REQUESTS`, wave by wave.
pub fn parse(text: &str) -> Result<Vec<Vec<Request>>, Error> {
    text.split(';')
        .filter(|wave| !wave.is_empty())
        .map(|wave| wave.split('+').map(request).collect())
        .collect()
}

fn request(name: &str) -> Result<Request, Error> {
    Ok(match name {
        "dynamodb:GetItem" => Request::GetItem,
        "dynamodb:BatchGetItem" => Request::BatchGetItem,
        "dynamodb:Query" => Request::Query,
        "dynamodb:PutItem" => Request::PutItem,
        "dynamodb:UpdateItem" => Request::UpdateItem,
        "dynamodb:DeleteItem" => Request::DeleteItem,
        "dynamodb:TransactWriteItems" => Request::TransactWriteItems,
        "sqs:SendMessage" => Request::SendMessage,
        "sns:Publish" => Request::Publish,
        "secretsmanager:GetSecretValue" => Request::GetSecretValue,
        other => return Err(format!("FLOOR_REQUESTS: no floor request for {other:?}").into()),
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
            futures::future::try_join_all(wave.iter().map(|request| self.one(*request))).await?;
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

    async fn one(&self, request: Request) -> Result<(), Error> {
        let table = &self.table;
        let dynamodb = || created(&self.dynamodb, "dynamodb");
        match request {
            Request::GetItem => {
                let read = dynamodb()?.get_item().table_name(table);
                read.set_key(Some(key("floor#read"))).send().await?;
            }
            Request::BatchGetItem => {
                let keys = KeysAndAttributes::builder()
                    .keys(key("floor#read"))
                    .keys(key("floor#read-2"))
                    .build()?;
                let read = dynamodb()?.batch_get_item().request_items(table, keys);
                read.send().await?;
            }
            Request::Query => {
                let read = dynamodb()?.query().table_name(table);
                read.key_condition_expression("pk = :pk")
                    .expression_attribute_values(":pk", s("floor#read"))
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
            Request::TransactWriteItems => {
                let mut item = fresh_key();
                item.insert("n".into(), AttributeValue::N("1".into()));
                let put = Put::builder()
                    .table_name(table)
                    .set_item(Some(item))
                    .condition_expression("attribute_not_exists(pk)")
                    .build()?;
                let write = dynamodb()?.transact_write_items();
                write
                    .transact_items(TransactWriteItem::builder().put(put).build())
                    .send()
                    .await?;
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

    #[test]
    fn waves_and_their_requests_are_read_in_order() {
        let waves = parse("dynamodb:GetItem;dynamodb:Query+dynamodb:Query;sns:Publish").unwrap();
        assert_eq!(
            waves,
            vec![
                vec![Request::GetItem],
                vec![Request::Query, Request::Query],
                vec![Request::Publish]
            ]
        );
        assert!(parse("").unwrap().is_empty());
        assert!(parse("dynamodb:Scan").is_err());
    }
}
