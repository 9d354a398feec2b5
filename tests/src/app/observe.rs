//! What a test reads back from the app besides its answers: the outbox, the dialler queue,
//! the DynamoDB request counts and the stored items.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use shared::notify::{Channel, DiallerMessage};
use shared::store::dynamo::RequestCounter;

use super::TestApp;
use crate::moto::dynamo_client;
use crate::requests::otp_in;

impl TestApp {
    /// The SMS sent so far that are not login codes (alerts' messages), as (to, message),
    /// oldest first.
    pub fn alert_messages(&self) -> Vec<(String, String)> {
        self.api
            .outbox
            .messages()
            .into_iter()
            .filter(|m| m.channel == Channel::Sms && !m.message.contains("login code"))
            .map(|m| (m.to, m.message))
            .collect()
    }

    /// Who the alerts' SMS went to so far, oldest first.
    pub fn alert_recipients(&self) -> Vec<String> {
        self.alert_messages()
            .into_iter()
            .map(|(to, _)| to)
            .collect()
    }

    /// The code of the newest SMS sent to `phone`.
    pub fn last_code(&self, phone: &str) -> String {
        let message = self
            .api
            .outbox
            .messages()
            .into_iter()
            .rev()
            .find(|m| m.to == phone)
            .expect("an SMS was sent");
        otp_in(&message.message)
            .expect("the SMS carries a 6-digit code")
            .to_string()
    }

    /// Every dialler message delivered so far, with its deduplication id: from the SQS queue
    /// (drained, and kept), or from the outbox.
    pub async fn delivered_calls(&self) -> Vec<(String, DiallerMessage)> {
        let Some((client, url)) = &self.queue else {
            let delivered = self
                .api
                .outbox
                .messages()
                .into_iter()
                .filter(|m| m.channel == Channel::Dialler)
                .map(|m| {
                    let message: DiallerMessage = serde_json::from_str(&m.message).unwrap();
                    (message.deduplication_id(), message)
                })
                .collect::<Vec<_>>();
            return delivered;
        };
        let mut delivered = self.drained.lock().unwrap().clone();
        loop {
            let out = client
                .receive_message()
                .queue_url(url)
                .max_number_of_messages(10)
                .message_system_attribute_names(
                    aws_sdk_sqs::types::MessageSystemAttributeName::MessageDeduplicationId,
                )
                .send()
                .await
                .expect("messages are received");
            let messages = out.messages.unwrap_or_default();
            if messages.is_empty() {
                *self.drained.lock().unwrap() = delivered.clone();
                return delivered;
            }
            for message in messages {
                let id = message
                    .attributes
                    .as_ref()
                    .and_then(|a| {
                        a.get(
                            &aws_sdk_sqs::types::MessageSystemAttributeName::MessageDeduplicationId,
                        )
                    })
                    .cloned()
                    .unwrap_or_default();
                let body: DiallerMessage =
                    serde_json::from_str(message.body.as_deref().unwrap_or_default()).unwrap();
                delivered.push((id, body));
                // FIFO groups stay blocked until their received messages are deleted.
                client
                    .delete_message()
                    .queue_url(url)
                    .receipt_handle(message.receipt_handle.unwrap_or_default())
                    .send()
                    .await
                    .expect("a received message is deleted");
            }
        }
    }

    /// Asserts the DynamoDB requests since the last count, exactly, by operation; nothing on
    /// the in-memory store.
    #[track_caller]
    pub fn expect_requests(&self, expected: &[(&str, usize)]) {
        if let Some(counts) = self.take_dynamo_requests() {
            let expected: HashMap<String, usize> = expected
                .iter()
                .map(|(operation, n)| (operation.to_string(), *n))
                .collect();
            assert_eq!(counts, expected, "DynamoDB requests by operation");
        }
    }

    /// Every stored item of both tables (or of the in-memory store), one line each in a stable
    /// order: what a refused or failed request must leave exactly as it was.
    pub async fn snapshot(&self) -> Vec<String> {
        if let Some(memory) = &self.memory {
            return memory.snapshot();
        }
        let tables = self.tables.as_ref().expect("DynamoDB runs have tables");
        let client = dynamo_client();
        let mut lines = Vec::new();
        for table in [&tables.data, &tables.auth] {
            let mut pages = client
                .scan()
                .table_name(table)
                .into_paginator()
                .items()
                .send();
            while let Some(item) = pages.next().await {
                let item = item.expect("the table is scanned");
                lines.push(format!("{table} {}", canonical_item(&item)));
            }
        }
        lines.sort();
        lines
    }

    /// Every access record of these portals, oldest first, read from the store itself (a
    /// read through the API would add records of its own).
    pub async fn access_records(
        &self,
        portals: &[i32],
    ) -> Vec<shared::store::access_log::AccessRecord> {
        let mut records = Vec::new();
        for portal in portals {
            let page = self
                .api
                .services
                .store
                .portal_log(
                    shared::ids::PortalId(*portal),
                    &shared::store::access_log::LogQuery::default(),
                )
                .await
                .expect("the access log is read");
            records.extend(page.items);
        }
        records.sort_by(|a, b| a.id.cmp(&b.id));
        records
    }

    /// DynamoDB requests since the last call, by operation; `None` on the in-memory store.
    pub fn take_dynamo_requests(&self) -> Option<HashMap<String, usize>> {
        self.counter.as_ref().map(RequestCounter::take)
    }
}

fn canonical_item(item: &HashMap<String, AttributeValue>) -> String {
    let mut members: Vec<String> = item
        .iter()
        .map(|(name, value)| format!("{name}={}", canonical(value)))
        .collect();
    members.sort();
    format!("{{{}}}", members.join(","))
}

/// An attribute value written the same way whatever order its maps and sets came in.
fn canonical(value: &AttributeValue) -> String {
    let sorted = |mut parts: Vec<String>| {
        parts.sort();
        parts.join(",")
    };
    match value {
        AttributeValue::M(map) => canonical_item(map),
        AttributeValue::L(list) => format!(
            "[{}]",
            list.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        AttributeValue::Ss(set) | AttributeValue::Ns(set) => format!("<{}>", sorted(set.clone())),
        AttributeValue::Bs(set) => format!(
            "<{}>",
            sorted(set.iter().map(|b| format!("{b:?}")).collect())
        ),
        other => format!("{other:?}"),
    }
}
