//! Outgoing messages (SMS now, dialler requests later): SNS in AWS, a dev outbox locally.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::Serialize;

use crate::clock::Clock;
use crate::records::Timestamp;
use crate::store::BoxError;

#[async_trait]
pub trait SmsSender: Send + Sync + 'static {
    async fn send_sms(&self, to: &str, message: &str) -> Result<(), BoxError>;
}

/// SMS through Amazon SNS direct publish, marked transactional (OTP delivery).
pub struct SnsSms {
    client: aws_sdk_sns::Client,
}

impl SnsSms {
    pub fn new(client: aws_sdk_sns::Client) -> Self {
        Self { client }
    }
}

#[async_trait]
impl SmsSender for SnsSms {
    async fn send_sms(&self, to: &str, message: &str) -> Result<(), BoxError> {
        let transactional = aws_sdk_sns::types::MessageAttributeValue::builder()
            .data_type("String")
            .string_value("Transactional")
            .build()?;
        self.client
            .publish()
            .phone_number(to)
            .message(message)
            .message_attributes("AWS.SNS.SMS.SMSType", transactional)
            .send()
            .await?;
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Sms,
    Dialler,
}

/// A message as `GET /_dev/outbox` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxMessage {
    pub channel: Channel,
    pub to: String,
    pub message: String,
    pub sent_at: Timestamp,
}

/// Local delivery: messages are logged and kept in memory, newest last.
#[derive(Clone)]
pub struct Outbox {
    messages: Arc<Mutex<Vec<OutboxMessage>>>,
    clock: Arc<dyn Clock>,
}

impl Outbox {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            messages: Arc::default(),
            clock,
        }
    }

    pub fn messages(&self) -> Vec<OutboxMessage> {
        self.messages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn push(&self, channel: Channel, to: &str, message: &str) {
        tracing::info!(?channel, to, message, "outbox");
        self.messages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(OutboxMessage {
                channel,
                to: to.to_string(),
                message: message.to_string(),
                sent_at: self.clock.now(),
            });
    }
}

#[async_trait]
impl SmsSender for Outbox {
    async fn send_sms(&self, to: &str, message: &str) -> Result<(), BoxError> {
        self.push(Channel::Sms, to, message);
        Ok(())
    }
}
