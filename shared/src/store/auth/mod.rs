//! Sessions and one-time passwords: the auth table's records and the traits that read and write them.

use async_trait::async_trait;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::domain::{SourcedBudget, SourcedEvent};
use crate::error::ApiError;
use crate::records::{Account, Role, Timestamp};
use crate::source::SourceNetwork;
use crate::store::StoreResult;

use crate::ids::{AccountId, OrganisationId, PortalId};

pub(crate) mod dynamo;
mod memory;

/// A login session. Only the SHA-256 of the bearer token is ever stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token_hash: String,
    pub account_id: AccountId,
    /// The account's name at login, for the access log.
    pub account_name: String,
    pub portal_id: PortalId,
    /// The organisation of the account's portal, and the account's role, as they were at
    /// login: what the session may read and change without a read per request.
    pub organisation_id: OrganisationId,
    pub role: Role,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub expires_at: Timestamp,
}

/// An issued one-time password, kept by the phone number it was sent to and its request id:
/// requests from different source networks for one number stand side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct OtpRequest {
    pub phone_number: String,
    pub request_id: String,
    /// The network that asked for it: the one its login makes known for the number.
    pub source: SourceNetwork,
    pub code_hash: String,
    pub expires_at: Timestamp,
    pub attempts: u32,
    pub used: bool,
}

/// An account with the organisation of its portal, as a login reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct StaffAccount {
    pub account: Account,
    pub organisation_id: OrganisationId,
}

/// A code sent to a number: when, for which network, under which request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeSend {
    pub at: Timestamp,
    pub source: SourceNetwork,
    /// Empty in logs written before validated codes stopped counting.
    #[serde(default)]
    pub request_id: String,
}

/// One number's login-code budget: the codes sent within the window, each with the network
/// that asked; each network's pending request (a new request from the same network replaces
/// it; one from another network leaves it alone); the requests validated since the log was
/// written (validate-otp adds them, request-otp drops their sends: a code that led to a login
/// spends no budget); the networks the number logged in from, each until it is forgotten; and
/// the version that guards the log's update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendLog {
    pub sends: Vec<CodeSend>,
    /// Source network to its pending request id.
    pub pending: BTreeMap<SourceNetwork, String>,
    pub validated: BTreeSet<String>,
    /// Known networks: exempt from the cap for all networks, each until this time.
    pub known: BTreeMap<SourceNetwork, Timestamp>,
    pub version: u64,
}

impl SendLog {
    /// The log as it counts at `now`: sends inside the window whose code was not validated,
    /// networks still known, pending requests of networks with such a send.
    pub fn settled(mut self, budget: &SourcedBudget, now: Timestamp) -> Self {
        let validated = std::mem::take(&mut self.validated);
        self.sends.retain(|send| {
            send.at > now - budget.window && send.at <= now && !validated.contains(&send.request_id)
        });
        self.sends.sort_by_key(|send| send.at);
        self.known.retain(|_, until| *until > now);
        let sends = &self.sends;
        self.pending
            .retain(|network, _| sends.iter().any(|send| &send.source == network));
        self
    }

    /// `Ok` when `source` may be sent one more code beside this settled log: every network
    /// has its own budget; a network the number has not logged in from also meets the cap
    /// for all such networks together, so strangers cannot spend a known network's logins.
    pub fn admit(
        &self,
        budget: &SourcedBudget,
        source: &SourceNetwork,
        now: Timestamp,
    ) -> Result<(), ApiError> {
        let events = |known: bool| -> Vec<SourcedEvent> {
            self.sends
                .iter()
                .filter(|send| known || !self.known.contains_key(&send.source))
                .map(|send| SourcedEvent {
                    at: send.at,
                    source: send.source,
                })
                .collect()
        };
        budget.check_source(
            &events(true),
            source,
            now,
            "Too many codes were requested for this number from this network; try again later.",
        )?;
        if self.known.contains_key(source) {
            return Ok(());
        }
        budget.check_total(
            &events(false),
            now,
            "Too many codes were requested for this number; try again later.",
        )
    }
}

/// What every authenticated function needs: read a session, and keep its idle clock fresh.
#[async_trait]
pub trait SessionReader: Send + Sync + 'static {
    async fn session(&self, token_hash: &str) -> StoreResult<Option<Session>>;
    /// Moves `lastSeenAt`; a session deleted meanwhile stays deleted.
    async fn touch_session(&self, token_hash: &str, at: Timestamp) -> StoreResult<()>;
}

/// A new OTP request to store: the request, the same source's previous request it replaces,
/// and the number's send log as it becomes, written only while the log is at `read_version`.
#[derive(Debug, Clone, Copy)]
pub struct OtpSave<'a> {
    pub request: &'a OtpRequest,
    pub replaces: Option<&'a str>,
    pub log: &'a SendLog,
    pub read_version: u64,
}

/// A login with a right code: the request it uses (while it has had fewer than
/// `max_attempts` wrong codes), the session it opens, and until when its source network
/// stays known.
#[derive(Debug, Clone, Copy)]
pub struct OtpLogin<'a> {
    pub otp: &'a OtpRequest,
    pub max_attempts: u32,
    pub session: &'a Session,
    pub known_until: Timestamp,
}

/// The authentication function's writes to the auth table.
#[async_trait]
pub trait AuthStore: SessionReader {
    /// The account owning `phone_number` (if any) and its OTP send log, in one read.
    async fn otp_context(&self, phone_number: &str) -> StoreResult<(Option<Account>, SendLog)>;
    /// Stores a new OTP request, deletes the request it `replaces` (the same source's previous
    /// one), and replaces the send log, together; `ConditionFailed` when the log changed since
    /// it was read (a concurrent request).
    async fn save_otp(&self, save: OtpSave<'_>) -> StoreResult<()>;
    /// The OTP request `request_id` of a number and the number's account, in one read.
    async fn otp_and_account(
        &self,
        phone_number: &str,
        request_id: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<StaffAccount>)>;
    /// Counts a wrong code against the request (as read) and returns the new count; `ConditionFailed`
    /// when the request was replaced (deleted), used or already killed.
    async fn record_failed_attempt(&self, otp: &OtpRequest, max_attempts: u32) -> StoreResult<u32>;
    /// Marks the request used, creates the session, and in the number's send log marks the
    /// request validated and its source network known until `known_until` (bumping the log's
    /// version), atomically; `ConditionFailed` when the request was used, replaced or killed
    /// meanwhile, so one code yields at most one session. An `Unknown` network is never made
    /// known: it is everybody without an address.
    async fn consume_otp(&self, login: OtpLogin<'_>) -> StoreResult<()>;
    async fn delete_session(&self, token_hash: &str) -> StoreResult<()>;
    /// Deletes every session of the account and returns how many there were.
    async fn delete_all_sessions(&self, account_id: AccountId) -> StoreResult<usize>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    const BUDGET: SourcedBudget = SourcedBudget {
        per_source: 2,
        total: 3,
        window: TimeDelta::hours(1),
    };

    fn network(last: u8) -> SourceNetwork {
        SourceNetwork::of(std::net::Ipv4Addr::new(192, 0, 2, last).into())
    }

    fn send(now: Timestamp, minutes_ago: i64, source: u8, request_id: &str) -> CodeSend {
        CodeSend {
            at: now - TimeDelta::minutes(minutes_ago),
            source: network(source),
            request_id: request_id.into(),
        }
    }

    #[test]
    fn a_validated_code_and_an_old_one_spend_no_budget() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let log = SendLog {
            sends: vec![
                send(now, 61, 1, "old"),
                send(now, 5, 1, "used"),
                send(now, 1, 1, "open"),
            ],
            pending: [
                (network(1), "open".to_string()),
                (network(2), "gone".to_string()),
            ]
            .into(),
            validated: ["used".to_string()].into(),
            known: [(network(1), now), (network(3), now + TimeDelta::days(1))].into(),
            version: 4,
        }
        .settled(&BUDGET, now);
        assert_eq!(log.sends, [send(now, 1, 1, "open")]);
        assert!(log.validated.is_empty());
        assert_eq!(log.pending, [(network(1), "open".to_string())].into());
        assert_eq!(log.known.keys().copied().collect::<Vec<_>>(), [network(3)]);
    }

    #[test]
    fn a_known_network_keeps_its_own_budget_beyond_the_cap_for_strangers() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let log = SendLog {
            sends: vec![
                send(now, 3, 1, "a"),
                send(now, 2, 2, "b"),
                send(now, 1, 4, "c"),
            ],
            known: [(network(9), now + TimeDelta::days(1))].into(),
            ..Default::default()
        };
        assert!(log.admit(&BUDGET, &network(5), now).is_err(), "the cap");
        assert!(log.admit(&BUDGET, &network(9), now).is_ok(), "known");
        let log = SendLog {
            sends: vec![send(now, 2, 9, "a"), send(now, 1, 9, "b")],
            ..log
        };
        assert!(
            log.admit(&BUDGET, &network(9), now).is_err(),
            "its own budget"
        );
        assert!(
            log.admit(&BUDGET, &network(5), now).is_ok(),
            "known sends are not a stranger's"
        );
    }
}
