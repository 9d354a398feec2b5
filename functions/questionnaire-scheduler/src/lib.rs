//! The questionnaire scheduler: one pass finds the client entries that are due, claims an
//! attempt of each with a conditional write, hands the attempts to the dialler, and confirms
//! them; run every five minutes by EventBridge and on demand by `local-api`.
//!
//! Order per entry: claim (attempt + 1, next try, a lease) -> send (deduplication id
//! `{entry}-{attempt}`) -> confirm. A pass that dies after the claim leaves the attempt
//! pending; once the lease runs out the next pass sends the same attempt again with the same
//! deduplication id, so no attempt is lost and the FIFO queue drops a second copy.

mod chain_test;
mod config;
mod unusual;

pub use chain_test::{ChainTest, ChainTestResult, parse_chain_tests};
pub use config::{SchedulerConfig, parse_calling_hours};

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::TimeDelta;
use futures::{StreamExt, TryStreamExt};
use serde::Serialize;

use shared::clock::Clock;
use shared::config::ConfigError;
use shared::domain::{Alert, AlertReason, AttemptOutcome, CallOutcome, REPORT_WAIT, Schedule};
use shared::error::error_chain;
use shared::escalation::Escalator;
use shared::ids::PortalId;
use shared::notify::{
    Dialler, DiallerMessage, OperatorNotice, SmsSender, SnsSms, SnsTopic, SqsDialler,
};
use shared::records::{ContactDetail, Timestamp};
use shared::runtime::{Platform, Services};
use shared::store::access_log::Accessor;
use shared::store::{
    CallTargets, Claim, DueEntry, EscalationStore, Narrow, SchedulerStore, StoreError, StoreResult,
    UnusualReadingStore,
};

/// Entries read, claimed and sent together: their clients and (up to four) questionnaires fit
/// one 100-key BatchGetItem; ten SendMessageBatch requests.
const CHUNK: usize = 96;
/// Chunks in flight at once, and claims or confirms in flight per chunk: at most 64 DynamoDB
/// requests at a time.
const CHUNKS_IN_FLIGHT: usize = 4;
const WRITES_IN_FLIGHT: usize = 16;
/// The most alerts one pass steps; the rest wait for the next pass.
const MAX_ALERTS: usize = 5_000;
/// The longest wait between two attempts, whatever the back-off says.
const MAX_RETRY_DELAY: TimeDelta = TimeDelta::days(3650);

/// When the attempt after `attempt` is due: `interval * multiplier^(attempt-1)` days after
/// `now`, or `None` when `attempt` was the last one.
pub fn next_try(now: Timestamp, schedule: &Schedule, attempt: i32) -> Option<Timestamp> {
    if attempt >= schedule.retries {
        return None;
    }
    let days = f64::from(schedule.interval) * schedule.multiplier.powi(attempt - 1);
    let seconds = (days * 86_400.0).round();
    let delay = if seconds.is_finite() && seconds < MAX_RETRY_DELAY.num_seconds() as f64 {
        TimeDelta::seconds(seconds.max(0.0) as i64)
    } else {
        MAX_RETRY_DELAY
    };
    Some(now + delay)
}

/// What one pass did. `dispatched` holds the messages sent, for `local-api`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PassReport {
    pub at: Timestamp,
    pub within_calling_hours: bool,
    /// Due entries found.
    pub due: usize,
    /// Attempts this pass claimed (new ones, and ones whose earlier pass died).
    pub claimed: usize,
    /// Attempts the dialler accepted.
    pub sent: usize,
    /// Due entries not called now: inactive client, no phone number, or claimed by another pass.
    pub skipped: usize,
    /// Entries closed: after their last attempt, or because their client or questionnaire is gone.
    pub closed: usize,
    /// Attempts that failed (store or dialler errors); they stay due and are sent again later.
    pub failed: usize,
    /// Due entries left for the next pass because the invocation's time ran short.
    pub deferred: usize,
    /// Entries whose last attempt went unreported for `REPORT_WAIT`, ended as exhausted with
    /// an alert.
    pub alerts_raised: usize,
    /// Escalation steps taken on due alerts, and the messages they sent or failed to send.
    pub alert_steps: usize,
    pub notifications_sent: usize,
    pub notifications_failed: usize,
    /// `unusual_access` alerts opened for accounts that read more clients than the threshold.
    pub unusual_access_alerts: usize,
    /// The alarm-chain tests this pass ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain_tests: Vec<ChainTestResult>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dispatched: Vec<DiallerMessage>,
}

impl PassReport {
    fn add(&mut self, chunk: PassReport) {
        self.claimed += chunk.claimed;
        self.sent += chunk.sent;
        self.skipped += chunk.skipped;
        self.closed += chunk.closed;
        self.failed += chunk.failed;
        self.deferred += chunk.deferred;
        self.alerts_raised += chunk.alerts_raised;
        self.dispatched.extend(chunk.dispatched);
    }
}

/// What is to be done with one due entry of a chunk, decided from what was read.
enum Plan {
    Call(Claim, DiallerMessage),
    Close,
    /// Closed after its last attempt and waited long enough for that attempt's report.
    Conclude(Option<Alert>),
    Skip(&'static str),
}

/// What was done, after the conditional writes.
enum Outcome {
    Claimed(Claim, DiallerMessage),
    Closed,
    Concluded { alert: bool },
    Skipped(&'static str),
}

#[derive(Clone)]
pub struct Scheduler {
    pub store: Arc<dyn SchedulerStore>,
    pub alerts: Arc<dyn EscalationStore>,
    pub readings: Arc<dyn UnusualReadingStore>,
    pub dialler: Arc<dyn Dialler>,
    pub escalator: Escalator,
    /// Where the alarm-chain tests' results go.
    pub operator: Arc<dyn OperatorNotice>,
    pub clock: Arc<dyn Clock>,
    pub config: SchedulerConfig,
}

impl Scheduler {
    pub fn new<S>(
        services: &Services<S>,
        dialler: Arc<dyn Dialler>,
        sms: Arc<dyn SmsSender>,
        operator: Arc<dyn OperatorNotice>,
        config: SchedulerConfig,
    ) -> Self
    where
        S: ?Sized
            + Narrow<dyn SchedulerStore>
            + Narrow<dyn EscalationStore>
            + Narrow<dyn UnusualReadingStore>,
    {
        Self {
            store: services.store(),
            alerts: services.store(),
            readings: services.store(),
            dialler,
            escalator: Escalator {
                zone: config.time_zone.clone(),
                ..Escalator::new(services, sms, config.delays, Accessor::Scheduler)
            },
            operator,
            clock: services.clock.clone(),
            config,
        }
    }

    /// The scheduler on Lambda: attempts go to the SQS queue `DIALLER_QUEUE_URL`, alerts' SMS
    /// through SNS, alarm-chain test results to the topic `OPERATOR_TOPIC_ARN`.
    pub fn for_lambda(platform: &Platform) -> Result<Self, ConfigError> {
        let lookup = |name: &str| std::env::var(name).ok();
        let queue_url = lookup("DIALLER_QUEUE_URL")
            .filter(|url| !url.is_empty())
            .ok_or(ConfigError {
                name: "DIALLER_QUEUE_URL",
                problem: "is not set".into(),
            })?;
        let dialler = SqsDialler::new(aws_sdk_sqs::Client::new(&platform.sdk), queue_url);
        let sns = aws_sdk_sns::Client::new(&platform.sdk);
        let config = SchedulerConfig::from_lookup(platform.services.time_zone.clone(), lookup)?;
        let topic = lookup("OPERATOR_TOPIC_ARN").unwrap_or_default();
        if topic.is_empty() && !config.chain_tests.is_empty() {
            return Err(ConfigError {
                name: "OPERATOR_TOPIC_ARN",
                problem: "is not set, and ALARM_CHAIN_TESTS publishes there".into(),
            });
        }
        Ok(Self::new(
            &platform.services,
            Arc::new(dialler),
            Arc::new(SnsSms::new(sns.clone())),
            Arc::new(SnsTopic::new(sns, topic)),
            config,
        ))
    }

    /// One scheduled invocation. Failed attempts make the invocation fail, so that Lambda's
    /// retry of the asynchronous invocation sends them again within minutes.
    pub async fn handle(
        &self,
        event: lambda_runtime::LambdaEvent<serde_json::Value>,
    ) -> Result<PassReport, lambda_runtime::Error> {
        // Lambda always sets the deadline; a hand-built context may leave it at zero.
        let deadline = (event.context.deadline > 0).then(|| {
            let remaining = event
                .context
                .deadline()
                .duration_since(std::time::SystemTime::now())
                .unwrap_or_default();
            Instant::now() + remaining.saturating_sub(self.config.deadline_margin)
        });
        let mut report = self.run_pass(self.clock.now(), deadline).await?;
        report.dispatched.clear();
        if report.failed > 0 {
            return Err(format!(
                "{} attempts failed and stay due; the retried invocation sends them",
                report.failed
            )
            .into());
        }
        Ok(report)
    }

    /// One pass at `now`: outside calling hours no entry is touched; inside them every due
    /// entry is called, skipped or closed, in chunks, until `deadline`. Then, at any hour, every
    /// due alert takes its next escalation step.
    pub async fn run_pass(
        &self,
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> Result<PassReport, StoreError> {
        let started = Instant::now();
        let mut report = PassReport {
            at: now,
            within_calling_hours: self.config.within_calling_hours(now),
            ..PassReport::default()
        };
        if report.within_calling_hours {
            let due = self.store.due_entries(now, self.config.max_entries).await?;
            report.due = due.len();
            // Futures are built before they are streamed: a stream holding a closure over
            // borrowed chunks is not `Send` for every lifetime, which axum handlers need.
            let chunks: Vec<_> = due
                .chunks(CHUNK)
                .map(|chunk| self.run_chunk(chunk, now, deadline))
                .collect();
            let chunks: Vec<PassReport> = futures::stream::iter(chunks)
                .buffer_unordered(CHUNKS_IN_FLIGHT)
                .collect()
                .await;
            for chunk in chunks {
                report.add(chunk);
            }
        }
        self.escalate(now, &mut report).await?;
        self.test_alarm_chains(now, &mut report).await;
        self.raise_unusual_access(now, &mut report).await;
        shared::metrics::alerts_opened(report.unusual_access_alerts);
        let unnotified = self.unnotified_alerts(now).await;
        shared::metrics::entries_due(report.due);
        shared::metrics::alerts_opened(report.alerts_raised);
        shared::metrics::scheduler_pass_seconds(started.elapsed());
        tracing::info!(
            at = %now,
            within_calling_hours = report.within_calling_hours,
            due = report.due,
            claimed = report.claimed,
            sent = report.sent,
            skipped = report.skipped,
            closed = report.closed,
            failed = report.failed,
            deferred = report.deferred,
            alerts_raised = report.alerts_raised,
            unusual_access_alerts = report.unusual_access_alerts,
            alert_steps = report.alert_steps,
            notifications_sent = report.notifications_sent,
            notifications_failed = report.notifications_failed,
            alerts_unnotified = unnotified,
            "scheduler pass"
        );
        Ok(report)
    }

    /// How many open alerts nobody has been told of past their first delay, after this pass's
    /// steps, recorded as `AlertsUnnotified` (0 included, so that its alarm always has data);
    /// `None`, and nothing recorded, when they could not be read, rather than a reassuring 0
    /// (the warning is in the log; the alarm reads a missing value as no alert).
    async fn unnotified_alerts(&self, now: Timestamp) -> Option<usize> {
        match self.alerts.escalating_alerts(MAX_ALERTS).await {
            Ok(alerts) => {
                let delays = self.config.delays;
                let unnotified = alerts
                    .iter()
                    .filter(|alert| alert.is_unnotified_at(now, delays))
                    .count();
                shared::metrics::alerts_unnotified(unnotified);
                Some(unnotified)
            }
            Err(error) => {
                tracing::warn!(error = %error_chain(&error), "alerts nobody was told of not counted");
                None
            }
        }
    }

    /// Every open alert whose step is due takes it (`Escalator::step`).
    async fn escalate(&self, now: Timestamp, report: &mut PassReport) -> Result<(), StoreError> {
        let due = self.alerts.due_alerts(now, MAX_ALERTS).await?;
        if due.is_empty() {
            return Ok(());
        }
        let portals: std::collections::BTreeSet<i32> =
            due.iter().map(|stored| stored.alert.portal_id).collect();
        let contacts =
            futures::future::try_join_all(portals.into_iter().map(|portal| async move {
                let contacts = self.alerts.escalation_contacts(PortalId(portal)).await?;
                StoreResult::Ok((portal, contacts))
            }))
            .await?;
        let contacts: HashMap<i32, Vec<ContactDetail>> = contacts.into_iter().collect();
        let steps: Vec<_> = due
            .iter()
            .map(|stored| {
                let portal_contacts = contacts
                    .get(&stored.alert.portal_id)
                    .map_or(&[][..], Vec::as_slice);
                self.escalator.step(stored, portal_contacts, now)
            })
            .collect();
        let results: Vec<Result<shared::escalation::StepReport, StoreError>> =
            futures::stream::iter(steps)
                .buffer_unordered(WRITES_IN_FLIGHT)
                .collect()
                .await;
        for result in results {
            match result {
                Ok(step) => {
                    report.alert_steps += usize::from(step.taken);
                    report.notifications_sent += step.sent;
                    report.notifications_failed += step.failed;
                }
                Err(error) => {
                    tracing::warn!(error = %error_chain(&error), "alert step failed");
                    report.failed += 1;
                }
            }
        }
        Ok(())
    }

    async fn run_chunk(
        &self,
        chunk: &[DueEntry],
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> PassReport {
        let mut report = PassReport::default();
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            report.deferred = chunk.len();
            return report;
        }
        let targets = match self.store.call_targets(chunk).await {
            Ok(targets) => targets,
            Err(error) => {
                tracing::warn!(error = %error_chain(&error), "reading call targets failed");
                report.failed = chunk.len();
                return report;
            }
        };
        let plans: Vec<(&DueEntry, Plan)> = chunk
            .iter()
            .map(|due| (due, self.plan(due, &targets, now)))
            .collect();

        // Claim, or close, each entry; only claimed attempts are sent.
        let claims: Vec<_> = plans
            .into_iter()
            .map(|(due, plan)| async move {
                Ok(match plan {
                    Plan::Call(claim, message) => {
                        if self.store.claim_attempt(due, &claim).await? {
                            Outcome::Claimed(claim, message)
                        } else {
                            Outcome::Skipped("another pass claimed it")
                        }
                    }
                    Plan::Close => {
                        if self.store.close_entry(due).await? {
                            Outcome::Closed
                        } else {
                            Outcome::Skipped("it changed while being closed")
                        }
                    }
                    Plan::Conclude(alert) => {
                        if self
                            .store
                            .conclude_last_attempt(due, alert.as_ref())
                            .await?
                        {
                            Outcome::Concluded {
                                alert: alert.is_some(),
                            }
                        } else {
                            Outcome::Skipped("its last attempt was reported meanwhile")
                        }
                    }
                    Plan::Skip(why) => Outcome::Skipped(why),
                })
            })
            .collect();
        let outcomes: Vec<Result<Outcome, StoreError>> = futures::stream::iter(claims)
            .buffered(WRITES_IN_FLIGHT)
            .collect()
            .await;
        let mut claimed = Vec::new();
        for (due, outcome) in chunk.iter().zip(outcomes) {
            match outcome {
                Ok(Outcome::Claimed(claim, message)) => claimed.push((due, claim, message)),
                Ok(Outcome::Closed) => report.closed += 1,
                Ok(Outcome::Concluded { alert }) => report.alerts_raised += usize::from(alert),
                Ok(Outcome::Skipped(why)) => {
                    tracing::debug!(entry = due.entry.id, why, "skipped");
                    report.skipped += 1;
                }
                Err(error) => {
                    tracing::warn!(entry = due.entry.id, error = %error_chain(&error), "claim failed");
                    report.failed += 1;
                }
            }
        }
        report.claimed = claimed.len();

        let messages: Vec<DiallerMessage> = claimed.iter().map(|(_, _, m)| m.clone()).collect();
        let results = self.dialler.dial(&messages).await;
        let sent: Vec<_> = claimed
            .into_iter()
            .zip(results)
            .filter_map(|((due, claim, message), result)| match result {
                Ok(()) => Some((due, claim, message)),
                Err(error) => {
                    tracing::warn!(entry = due.entry.id, attempt = claim.attempt, %error, "dialler refused the attempt");
                    report.failed += 1;
                    None
                }
            })
            .collect();
        report.sent = sent.len();
        report.closed += sent
            .iter()
            .filter(|(_, claim, _)| claim.next_try_at.is_none())
            .count();

        // The attempt is sent either way; an unconfirmed one is sent again with the same
        // deduplication id once its lease runs out.
        let confirms: Vec<_> = sent
            .iter()
            .map(|(due, claim, _)| self.store.confirm_attempt(due, claim))
            .collect();
        let confirmed: Result<Vec<()>, StoreError> = futures::stream::iter(confirms)
            .buffer_unordered(WRITES_IN_FLIGHT)
            .try_collect()
            .await;
        if let Err(error) = confirmed {
            tracing::warn!(error = %error_chain(&error), "confirming sent attempts failed");
            report.failed += 1;
        }
        report.dispatched = sent.into_iter().map(|(_, _, message)| message).collect();
        report
    }

    fn plan(&self, due: &DueEntry, targets: &CallTargets, now: Timestamp) -> Plan {
        if !due.is_open() {
            return Plan::Conclude(unreported_alert(due, now));
        }
        // An entry whose client (deleted, or moved out of the portal) or questionnaire is gone
        // is never called again.
        let client = targets
            .clients
            .get(&due.entry.client_id)
            .filter(|client| client.portal_id == due.portal_id && !client.is_deleted);
        let questionnaire = targets.questionnaires.get(&due.entry.questionnaire_id);
        let (Some(client), Some(questionnaire)) = (client, questionnaire) else {
            return Plan::Close;
        };
        if client.is_inactive {
            return Plan::Skip("client is inactive");
        }
        let number = [&client.primary_number, &client.phone]
            .into_iter()
            .flatten()
            .map(|number| number.trim())
            .find(|number| !number.is_empty());
        let Some(number) = number else {
            return Plan::Skip("client has no phone number");
        };
        // A pending attempt whose pass died is sent again as the same attempt.
        let attempt = due
            .pending
            .map_or(due.schedule.attempts + 1, |pending| pending.attempt);
        let claim = Claim {
            attempt,
            lease_until: now + self.config.lease,
            next_try_at: next_try(now, &due.schedule, attempt),
        };
        let message = DiallerMessage {
            questionnaire_client_id: due.entry.id,
            attempt,
            questionnaire_id: questionnaire.id,
            first_message: questionnaire.first_message.clone(),
            client_id: client.id,
            portal_id: due.portal_id.get(),
            name: client.name.clone(),
            phone_number: number.to_string(),
            language: client.language.clone(),
        };
        Plan::Call(claim, message)
    }
}

/// The alert of an entry whose last attempt went unreported, unless a call or a report
/// reached the entry: the attempt counts as reaching nobody.
fn unreported_alert(due: &DueEntry, now: Timestamp) -> Option<Alert> {
    if due.entry.phone_call_id.is_some() || due.ended.is_some() {
        return None;
    }
    let mut attempts = due.outcomes.clone();
    attempts.push(AttemptOutcome {
        attempt: due.schedule.attempts,
        outcome: CallOutcome::Failed,
        at: now,
        detail: Some(format!(
            "no report of the attempt within {} hours; counted as reaching nobody",
            REPORT_WAIT.num_hours()
        )),
    });
    Some(Alert::raised(
        &due.entry,
        due.portal_id.get(),
        AlertReason::Exhausted,
        attempts,
        now,
    ))
}

#[cfg(test)]
mod tests;
