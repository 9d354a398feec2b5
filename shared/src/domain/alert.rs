//! Alerts: a questionnaire entry that ended without reaching its client, or a call whose triage
//! found an emergency or a concern, and the escalation to the portal's contacts that follows
//! until staff acknowledge it.

use std::collections::HashSet;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::contact_window;
use crate::domain::urgent::{self, AckOutcome, AlertCategory};
use crate::domain::{AttemptOutcome, EntryEnd};
use crate::records::{ContactDetail, QuestionnaireClientEntry, Timestamp};
use crate::zone::Zone;

/// How long the scheduler waits for the dialler's report of a last attempt before it counts the
/// attempt as reaching nobody: a call lasts minutes, and its `call.ended` or `call.failed` comes
/// right after it.
pub const REPORT_WAIT: TimeDelta = TimeDelta::hours(2);
/// While no final-outpost contact exists, the alert is looked at again this often, so that a
/// contact added later is still notified.
pub const NO_CONTACT_RECHECK: TimeDelta = TimeDelta::hours(1);
/// A notification SNS refused is tried again this soon.
pub const FAILED_SEND_RETRY: TimeDelta = TimeDelta::minutes(5);
/// The step used to find when the next contact window opens: the scheduler runs every five
/// minutes, so a finer answer would not be acted on sooner.
const WINDOW_SCAN_STEP: TimeDelta = TimeDelta::minutes(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertStatus {
    Open,
    Acknowledged,
}

/// Why the alert was raised: a questionnaire entry's end (a refusal is the client's answer
/// and raises none), or what the triage of a call found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertReason {
    /// Every attempt was made and none reached the client.
    Exhausted,
    /// The dialler reported that the number does not exist.
    InvalidNumber,
    /// A call in which the client (or someone with them) described an emergency: every
    /// reachable contact is messaged at once, at any hour, and again until acknowledged.
    Urgent,
    /// A call that staff should see (pain, not eating, medication...): escalated as an
    /// entry's alert is, in turn and inside contact windows.
    Concern,
    /// The daily test of the portal's alarm chain: one SMS marked as a test to the contact
    /// the test names, acknowledged by the scheduler at once. Listed only when asked for
    /// (`reason=test`), never among real alerts.
    Test,
    /// An account opened more distinct clients in a period than the portal's staff do
    /// (`UnusualReadingClients` in `UnusualReadingMinutes`): shown to the portal's admins
    /// only, never messaged to a contact.
    UnusualAccess,
}

impl AlertReason {
    /// The alert an entry's end raises, if any.
    pub fn of(end: EntryEnd) -> Option<Self> {
        match end {
            EntryEnd::Exhausted => Some(Self::Exhausted),
            EntryEnd::InvalidNumber => Some(Self::InvalidNumber),
            EntryEnd::Refused => None,
        }
    }
}

/// Where the escalation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EscalationState {
    /// Contacts are notified one at a time; the next step is at `nextStepAt`.
    Notifying,
    /// Every contact still to notify is outside their contact window; `nextStepAt` is when the
    /// first window opens.
    WaitingForWindow,
    /// The portal has no active final-outpost contact; looked at again at `nextStepAt`.
    NoContacts,
    /// Every final-outpost contact was notified, one at a time and then all at once; the alert
    /// stays open until staff acknowledge it.
    AllNotified,
    /// Acknowledged: nobody more is notified.
    Stopped,
    /// Shown in the portal to its admins and messaged to nobody (an `unusual_access` alert):
    /// it concerns an account, not a client's safety.
    PortalOnly,
}

/// Whether a message went to one contact in turn, or to every contact at once at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Round {
    InTurn,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Handed to SNS (or the dev outbox).
    Sent,
    /// SNS refused it; the contact is tried again.
    Failed,
}

/// One SMS to one contact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    pub contact_detail_id: i32,
    pub name: String,
    pub round: Round,
    pub at: DateTime<Utc>,
    pub delivery: Delivery,
}

/// An alert as stored and as staff read it. Alert ids and questionnaire entry ids are drawn
/// from one sequence: an entry's alert takes its entry's id, a call's alert a number of its
/// own, so no two alerts share an id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    pub id: i32,
    pub portal_id: i32,
    /// 0 for a call from a number that is no client's.
    pub client_id: i32,
    /// The questionnaire of the entry that ended; `null` for a call's alert.
    pub questionnaire_id: Option<i32>,
    /// The entry that ended (`questionnaireClientId`): one alert per entry; `null` for a
    /// call's alert.
    #[serde(default)]
    pub questionnaire_client_id: Option<i32>,
    /// The call whose triage raised it: one alert per call; `null` for an entry's alert.
    #[serde(default)]
    pub phone_call_id: Option<i32>,
    /// The number the call was with, for the SMS of an urgent alert.
    #[serde(default)]
    pub client_number: Option<String>,
    /// The account whose reading raised it (`unusual_access` alerts only).
    #[serde(default)]
    pub account_id: Option<i32>,
    pub reason: AlertReason,
    /// What the triage found (`urgent` and `concern` alerts only).
    #[serde(default)]
    pub category: Option<AlertCategory>,
    /// The caller's words that raised it (`urgent` and `concern` alerts only): shown in
    /// `GET /alerts/{id}`, never in a list or an SMS.
    #[serde(default)]
    pub words: Option<String>,
    pub status: AlertStatus,
    /// When the entry ended (the start of the attempt whose report ended it, or the pass that
    /// stopped waiting for a report of the last attempt), or when the call's delivery was
    /// triaged.
    pub created_at: DateTime<Utc>,
    /// Every attempt's outcome as the dialler reported it, oldest first (empty for a call's
    /// alert).
    pub attempts: Vec<AttemptOutcome>,
    pub escalation: EscalationState,
    /// When the scheduler takes the next step; `None` once there is none.
    pub next_step_at: Option<DateTime<Utc>>,
    pub notifications: Vec<Notification>,
    pub acknowledged_at: Option<DateTime<Utc>>,
    /// The account that acknowledged it.
    pub acknowledged_by: Option<i32>,
    pub note: Option<String>,
    /// What the acknowledging staff member found (required for an `urgent` alert).
    #[serde(default)]
    pub outcome: Option<AckOutcome>,
}

impl Alert {
    /// The alert of an entry that ended with `reason` at `at`, to be escalated at once.
    pub fn raised(
        entry: &QuestionnaireClientEntry,
        portal_id: i32,
        reason: AlertReason,
        attempts: Vec<AttemptOutcome>,
        at: Timestamp,
    ) -> Self {
        Self {
            id: entry.id,
            questionnaire_id: Some(entry.questionnaire_id),
            questionnaire_client_id: Some(entry.id),
            attempts,
            ..Self::opened(portal_id, entry.client_id, reason, at)
        }
    }

    /// A new alert of a portal's client, open and due for its first step at `at`, with nothing
    /// sent yet: what every alert starts as, whatever raised it.
    pub(crate) fn opened(
        portal_id: i32,
        client_id: i32,
        reason: AlertReason,
        at: Timestamp,
    ) -> Self {
        Self {
            id: 0,
            portal_id,
            client_id,
            questionnaire_id: None,
            questionnaire_client_id: None,
            phone_call_id: None,
            client_number: None,
            account_id: None,
            reason,
            category: None,
            words: None,
            status: AlertStatus::Open,
            created_at: at,
            attempts: Vec::new(),
            escalation: EscalationState::Notifying,
            next_step_at: Some(at),
            notifications: Vec::new(),
            acknowledged_at: None,
            acknowledged_by: None,
            note: None,
            outcome: None,
        }
    }

    /// The daily alarm-chain test's alert of `portal_id`, opened at `at`: no client, and not
    /// due, since the test takes its one step itself rather than leave it to a pass.
    pub fn test(portal_id: i32, at: Timestamp) -> Self {
        Self {
            next_step_at: None,
            ..Self::opened(portal_id, 0, AlertReason::Test, at)
        }
    }

    /// The alert of an account that opened `clients` distinct clients in the period that
    /// started at `period_start`: no client, nobody to message, open until an admin
    /// acknowledges it.
    pub fn unusual_access(portal_id: i32, account_id: i32, at: Timestamp) -> Self {
        Self {
            account_id: Some(account_id),
            escalation: EscalationState::PortalOnly,
            next_step_at: None,
            ..Self::opened(portal_id, 0, AlertReason::UnusualAccess, at)
        }
    }

    /// Whether only the portal's admins may see and acknowledge it.
    pub fn is_for_admins(&self) -> bool {
        self.reason == AlertReason::UnusualAccess
    }

    /// Whether the scheduler still has something to do with it at `now`.
    pub fn is_due(&self, now: Timestamp) -> bool {
        self.status == AlertStatus::Open && self.next_step_at.is_some_and(|at| at <= now)
    }

    /// Whether it is open at `now` with nobody told of it although it was opened longer ago
    /// than contacts are given to answer (an urgent alert: its repeat interval): its escalation
    /// is stuck (no contacts, none in its window, every SMS refused) or late.
    pub fn is_unnotified_at(&self, now: Timestamp, delays: Delays) -> bool {
        let allowed = match self.reason {
            AlertReason::Urgent => delays.urgent_repeat,
            _ => delays.step,
        };
        // One waiting for a contact's window waits by the portal's choice (its contacts'
        // hours), not for want of anyone to tell.
        self.status == AlertStatus::Open
            && self.escalation != EscalationState::WaitingForWindow
            && self.escalation != EscalationState::PortalOnly
            && self.created_at + allowed <= now
            && !self
                .notifications
                .iter()
                .any(|notification| notification.delivery == Delivery::Sent)
    }

    /// The alert acknowledged by `account` with `note` and `outcome`: escalation stops.
    pub fn acknowledged(
        &self,
        account: i32,
        note: Option<String>,
        outcome: Option<AckOutcome>,
        at: Timestamp,
    ) -> Self {
        Self {
            status: AlertStatus::Acknowledged,
            escalation: EscalationState::Stopped,
            next_step_at: None,
            acknowledged_at: Some(at),
            acknowledged_by: Some(account),
            note,
            outcome,
            ..self.clone()
        }
    }

    fn sent_to(&self, round: Round) -> HashSet<i32> {
        self.notifications
            .iter()
            .filter(|n| n.round == round && n.delivery == Delivery::Sent)
            .map(|n| n.contact_detail_id)
            .collect()
    }

    /// The SMS a contact gets: the client's name and what happened, never an answer, a
    /// transcript or the caller's words.
    pub fn message(&self, client_name: &str) -> String {
        let what = match self.reason {
            AlertReason::Urgent | AlertReason::Concern => {
                return urgent::message(self, client_name);
            }
            AlertReason::Test => {
                return format!(
                    "TEST / TEST: larmkedjan fungerar, ingen åtgärd behövs. The alarm chain \
                     works; no action needed. Test alert {} is acknowledged automatically.",
                    self.id
                );
            }
            AlertReason::Exhausted => format!(
                "did not answer any of {} questionnaire calls",
                self.attempts
                    .iter()
                    .map(|a| a.attempt)
                    .max()
                    .unwrap_or_default()
                    .max(1)
            ),
            AlertReason::InvalidNumber => {
                "could not be called: the phone number does not exist".to_string()
            }
            // Never escalated; the SMS says no more than the alert's id.
            AlertReason::UnusualAccess => {
                return format!(
                    "Alert {} needs an admin's attention in the portal.",
                    self.id
                );
            }
        };
        format!(
            "{client_name} {what}. Please check on them and acknowledge alert {} in the portal.",
            self.id
        )
    }
}

/// How long escalation waits between steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delays {
    /// Between two contacts' turns (`EscalationDelayMinutes`).
    pub step: TimeDelta,
    /// Between two rounds of an unacknowledged urgent alert (`UrgentRepeatMinutes`).
    pub urgent_repeat: TimeDelta,
}

impl Default for Delays {
    fn default() -> Self {
        Self {
            step: TimeDelta::minutes(30),
            urgent_repeat: TimeDelta::minutes(5),
        }
    }
}

/// What the scheduler does with a due alert.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The contacts to message now, and in which round.
    pub notify: Vec<ContactDetail>,
    pub round: Round,
    /// The alert's escalation after the messages are sent.
    pub escalation: EscalationState,
    pub next_step_at: Option<Timestamp>,
}

/// The next step of an open alert at `now`, given every contact detail of its portal.
///
/// Contacts taken are `isActive` and `contactWhenFinalOutpost`, by priority then id. In turn:
/// the first one not yet messaged whose window is open now; the next turn is `delay` later.
/// When every one has had a turn, all of them at once (each inside their window; one outside
/// it gets the message when it opens). A contact outside their window is passed over until it
/// opens, and when nobody left is inside theirs the alert waits for the first window to open.
pub fn next_step(
    alert: &Alert,
    contacts: &[ContactDetail],
    now: Timestamp,
    zone: &Zone,
    delays: Delays,
) -> Step {
    if alert.reason == AlertReason::Urgent {
        return urgent::next_step(alert, contacts, now, zone, delays.urgent_repeat);
    }
    if alert.reason == AlertReason::Test {
        // One round to the contacts the test was given, as an urgent alert's round is
        // chosen, and never another: a test that failed, or was left open by a pass that
        // died, must not reach anyone else, nor anyone twice.
        let mut step = urgent::next_step(alert, contacts, now, zone, delays.urgent_repeat);
        if !alert.notifications.is_empty() {
            step.notify.clear();
            step.escalation = EscalationState::AllNotified;
        }
        step.next_step_at = None;
        return step;
    }
    let delay = delays.step;
    let mut candidates: Vec<ContactDetail> = contacts
        .iter()
        .filter(|c| c.is_active && c.contact_when_final_outpost && c.portal_id == alert.portal_id)
        .cloned()
        .collect();
    contact_window::sort(&mut candidates);
    let wait = |escalation, next| Step {
        notify: Vec::new(),
        round: Round::InTurn,
        escalation,
        next_step_at: next,
    };
    if candidates.is_empty() {
        return wait(EscalationState::NoContacts, Some(now + NO_CONTACT_RECHECK));
    }
    let in_window = |c: &ContactDetail| contact_window::is_active(c, now, zone);

    let had_turn = alert.sent_to(Round::InTurn);
    let waiting: Vec<&ContactDetail> = candidates
        .iter()
        .filter(|c| !had_turn.contains(&c.id))
        .collect();
    if !waiting.is_empty() {
        return match waiting.iter().find(|c| in_window(c)) {
            Some(next) => Step {
                notify: vec![(*next).clone()],
                round: Round::InTurn,
                escalation: EscalationState::Notifying,
                next_step_at: Some(now + delay),
            },
            None => wait(
                EscalationState::WaitingForWindow,
                first_window_opening(&waiting, now, zone),
            ),
        };
    }

    let had_all = alert.sent_to(Round::All);
    let (now_open, later): (Vec<&ContactDetail>, Vec<&ContactDetail>) = candidates
        .iter()
        .filter(|c| !had_all.contains(&c.id))
        .partition(|c| in_window(c));
    if now_open.is_empty() && later.is_empty() {
        return wait(EscalationState::AllNotified, None);
    }
    let next = (!later.is_empty())
        .then(|| first_window_opening(&later, now, zone))
        .flatten();
    if now_open.is_empty() {
        return wait(EscalationState::WaitingForWindow, next);
    }
    Step {
        notify: now_open.into_iter().cloned().collect(),
        round: Round::All,
        escalation: if later.is_empty() {
            EscalationState::AllNotified
        } else {
            EscalationState::Notifying
        },
        next_step_at: next,
    }
}

/// The first scan step after `now` at which one of `contacts` is inside their window; within
/// a day and a step, since windows repeat daily. `None` when no window ever opens (a stored
/// window that no longer parses counts as closed).
pub(crate) fn first_window_opening(
    contacts: &[&ContactDetail],
    now: Timestamp,
    zone: &Zone,
) -> Option<Timestamp> {
    let steps = TimeDelta::days(1).num_minutes() / WINDOW_SCAN_STEP.num_minutes() + 1;
    (1..=steps)
        .map(|k| now + WINDOW_SCAN_STEP * k as i32)
        .find(|at| {
            contacts
                .iter()
                .any(|c| contact_window::is_active(c, *at, zone))
        })
}

#[cfg(test)]
pub(crate) mod tests;
