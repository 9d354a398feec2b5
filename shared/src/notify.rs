//! Outgoing messages: SMS through SNS and call requests to the dialler through an SQS FIFO
//! queue in AWS, a dev outbox locally.

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

/// A message for the service's operator (the daily alarm-chain test's result): what it says
/// names portals and figures, never a client.
#[async_trait]
pub trait OperatorNotice: Send + Sync + 'static {
    async fn notify_operator(&self, subject: &str, message: &str) -> Result<(), BoxError>;
}

/// The operator's SNS topic (`OPERATOR_TOPIC_ARN`), which the alarms notify too.
pub struct SnsTopic {
    client: aws_sdk_sns::Client,
    topic_arn: String,
}

impl SnsTopic {
    pub fn new(client: aws_sdk_sns::Client, topic_arn: impl Into<String>) -> Self {
        Self {
            client,
            topic_arn: topic_arn.into(),
        }
    }
}

#[async_trait]
impl OperatorNotice for SnsTopic {
    async fn notify_operator(&self, subject: &str, message: &str) -> Result<(), BoxError> {
        self.client
            .publish()
            .topic_arn(&self.topic_arn)
            .subject(subject)
            .message(message)
            .send()
            .await?;
        Ok(())
    }
}

/// One call attempt for the dialler: who to call, in which language, and the questionnaire to
/// open with. `questionnaireClientId` comes back with the call's events so the result can be
/// matched to the entry.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiallerMessage {
    pub questionnaire_client_id: i32,
    pub attempt: i32,
    pub questionnaire_id: i32,
    pub first_message: Option<String>,
    pub client_id: i32,
    pub portal_id: i32,
    pub name: Option<String>,
    pub phone_number: String,
    pub language: Option<String>,
}

impl DiallerMessage {
    /// One id per attempt: a resend of the same attempt is dropped by the FIFO queue (within
    /// its five-minute window), and a dialler can use it as its idempotency key beyond that.
    pub fn deduplication_id(&self) -> String {
        format!("{}-{}", self.questionnaire_client_id, self.attempt)
    }

    /// Calls to one person are ordered and never run side by side.
    pub fn group_id(&self) -> String {
        format!("client-{}", self.client_id)
    }

    pub fn body(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Hands call attempts to the dialler. Each message succeeds or fails on its own.
#[async_trait]
pub trait Dialler: Send + Sync + 'static {
    async fn dial(&self, messages: &[DiallerMessage]) -> Vec<Result<(), BoxError>>;
}

/// The most entries SQS takes in one SendMessageBatch request.
const SQS_BATCH_LIMIT: usize = 10;

/// The dialler's SQS FIFO queue, written in batches of ten.
pub struct SqsDialler {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl SqsDialler {
    pub fn new(client: aws_sdk_sqs::Client, queue_url: impl Into<String>) -> Self {
        Self {
            client,
            queue_url: queue_url.into(),
        }
    }

    async fn send_batch(&self, batch: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        let entries: Result<Vec<_>, _> = batch
            .iter()
            .enumerate()
            .map(|(index, message)| {
                aws_sdk_sqs::types::SendMessageBatchRequestEntry::builder()
                    .id(index.to_string())
                    .message_body(message.body())
                    .message_group_id(message.group_id())
                    .message_deduplication_id(message.deduplication_id())
                    .build()
            })
            .collect();
        let sent = match entries {
            Ok(entries) => {
                self.client
                    .send_message_batch()
                    .queue_url(&self.queue_url)
                    .set_entries(Some(entries))
                    .send()
                    .await
            }
            Err(error) => {
                return batch
                    .iter()
                    .map(|_| Err(error.to_string().into()))
                    .collect();
            }
        };
        match sent {
            Ok(out) => {
                let mut results: Vec<Result<(), BoxError>> = batch
                    .iter()
                    .map(|_| Err("not acknowledged".into()))
                    .collect();
                for ok in out.successful {
                    if let Some(slot) = ok.id.parse::<usize>().ok().and_then(|i| results.get_mut(i))
                    {
                        *slot = Ok(());
                    }
                }
                for failed in out.failed {
                    if let Some(slot) = failed
                        .id
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| results.get_mut(i))
                    {
                        *slot =
                            Err(
                                format!("{}: {}", failed.code, failed.message.unwrap_or_default())
                                    .into(),
                            );
                    }
                }
                results
            }
            Err(error) => {
                let error = aws_sdk_sqs::error::DisplayErrorContext(error).to_string();
                batch.iter().map(|_| Err(error.clone().into())).collect()
            }
        }
    }
}

#[async_trait]
impl Dialler for SqsDialler {
    async fn dial(&self, messages: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        let batches = messages
            .chunks(SQS_BATCH_LIMIT)
            .map(|batch| self.send_batch(batch));
        futures::future::join_all(batches)
            .await
            .into_iter()
            .flatten()
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Sms,
    Dialler,
    /// The operator's topic; `to` is the subject.
    Operator,
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
        // The message (a login code, a client's name) stays in the outbox, which is what it is
        // for; the log gets only the channel and the last digits of the number.
        tracing::info!(?channel, to = %masked(to), "outbox");
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

/// A phone number with all but its last two characters hidden, for logs.
pub fn masked(number: &str) -> String {
    let count = number.chars().count();
    number
        .chars()
        .enumerate()
        .map(|(i, c)| if i + 2 < count { '*' } else { c })
        .collect()
}

#[async_trait]
impl SmsSender for Outbox {
    async fn send_sms(&self, to: &str, message: &str) -> Result<(), BoxError> {
        self.push(Channel::Sms, to, message);
        Ok(())
    }
}

#[async_trait]
impl OperatorNotice for Outbox {
    async fn notify_operator(&self, subject: &str, message: &str) -> Result<(), BoxError> {
        self.push(Channel::Operator, subject, message);
        Ok(())
    }
}

#[async_trait]
impl Dialler for Outbox {
    async fn dial(&self, messages: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        messages
            .iter()
            .map(|message| {
                self.push(Channel::Dialler, &message.phone_number, &message.body());
                Ok(())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Log output kept in memory.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_outbox_logs_the_channel_and_a_masked_number_never_the_message() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let outbox = Outbox::new(Arc::new(crate::clock::SystemClock));
        tracing::subscriber::with_default(subscriber, || {
            outbox.push(Channel::Sms, "+46701000001", "Your login code is 123456.");
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(log.contains("*********01"), "{log}");
        assert!(log.contains("Sms"), "{log}");
        assert!(!log.contains("123456"), "{log}");
        assert!(!log.contains("+46701000001"), "{log}");
        assert_eq!(outbox.messages()[0].message, "Your login code is 123456.");
    }

    #[test]
    fn a_masked_number_shows_only_its_last_two_digits() {
        assert_eq!(masked("+46701000001"), "**********01");
        assert_eq!(masked("7"), "7");
    }
}
