//! Sessions and one-time passwords: the auth table's records and the traits that read and write them.

use async_trait::async_trait;

use crate::records::{Account, Timestamp};
use crate::store::StoreResult;

use crate::ids::{AccountId, PortalId};

pub(crate) mod dynamo;
mod memory;

/// A login session. Only the SHA-256 of the bearer token is ever stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token_hash: String,
    pub account_id: AccountId,
    pub portal_id: PortalId,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub expires_at: Timestamp,
}

/// An issued one-time password, keyed by the phone number it was sent to.
#[derive(Debug, Clone, PartialEq)]
pub struct OtpRequest {
    pub phone_number: String,
    pub request_id: String,
    pub code_hash: String,
    pub expires_at: Timestamp,
    pub attempts: u32,
    pub used: bool,
}

/// When OTPs were last sent to one number, with the version that guards its update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendLog {
    pub sent_at: Vec<Timestamp>,
    pub version: u64,
}

/// What every authenticated function needs: read a session, and keep its idle clock fresh.
#[async_trait]
pub trait SessionReader: Send + Sync + 'static {
    async fn session(&self, token_hash: &str) -> StoreResult<Option<Session>>;
    /// Moves `lastSeenAt`; a session deleted meanwhile stays deleted.
    async fn touch_session(&self, token_hash: &str, at: Timestamp) -> StoreResult<()>;
}

/// The authentication function's writes to the auth table.
#[async_trait]
pub trait AuthStore: SessionReader {
    /// The account owning `phone_number` (if any) and its OTP send log, in one read.
    async fn otp_context(&self, phone_number: &str) -> StoreResult<(Option<Account>, SendLog)>;
    /// Replaces the number's OTP request and send log together; `ConditionFailed` when the log
    /// changed since it was read (a concurrent request).
    async fn save_otp(
        &self,
        request: &OtpRequest,
        log: &SendLog,
        read_version: u64,
    ) -> StoreResult<()>;
    /// The pending OTP request and the account of a number, in one read.
    async fn otp_and_account(
        &self,
        phone_number: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<Account>)>;
    /// Counts a wrong code against the request and returns the new count; `ConditionFailed`
    /// when the request was replaced, used or already killed.
    async fn record_failed_attempt(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
    ) -> StoreResult<u32>;
    /// Marks the request used and creates the session, atomically; `ConditionFailed` when the
    /// request was used, replaced or killed meanwhile, so one code yields at most one session.
    async fn consume_otp(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
        session: &Session,
    ) -> StoreResult<()>;
    async fn delete_session(&self, token_hash: &str) -> StoreResult<()>;
    /// Deletes every session of the account and returns how many there were.
    async fn delete_all_sessions(&self, account_id: AccountId) -> StoreResult<usize>;
}
