//! Sessions and one-time passwords: the auth table's records and the traits that read and write them.

use async_trait::async_trait;

use crate::domain::SourcedEvent;
use crate::records::{Account, Role, Timestamp};
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
/// requests from different source addresses for one number stand side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct OtpRequest {
    pub phone_number: String,
    pub request_id: String,
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

/// The codes sent to one number within the last hour, each with the source address that asked,
/// and each source's pending request (a new request from the same address replaces it; one from
/// another address leaves it alone); with the version that guards the log's update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendLog {
    pub sends: Vec<SourcedEvent>,
    /// Source address to its pending request id.
    pub pending: std::collections::BTreeMap<String, String>,
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
    /// Stores a new OTP request, deletes the request it `replaces` (the same source's previous
    /// one), and replaces the send log, together; `ConditionFailed` when the log changed since
    /// it was read (a concurrent request).
    async fn save_otp(
        &self,
        request: &OtpRequest,
        replaces: Option<&str>,
        log: &SendLog,
        read_version: u64,
    ) -> StoreResult<()>;
    /// The OTP request `request_id` of a number and the number's account, in one read.
    async fn otp_and_account(
        &self,
        phone_number: &str,
        request_id: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<StaffAccount>)>;
    /// Counts a wrong code against the request and returns the new count; `ConditionFailed`
    /// when the request was replaced (deleted), used or already killed.
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
