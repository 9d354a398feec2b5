//! What a live call needs from the store before and while the agent talks: how many requests
//! a client has open, which questionnaire entries are waiting for them, and what the agent's
//! tools wrote during the call (requests, an emergency's alert) until `call.ended` takes it.

pub(crate) mod dynamo;
pub(crate) mod memory;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::domain::Alert;
use crate::ids::{ClientId, PortalId};
use crate::records::Timestamp;
use crate::store::{AlertWrite, CallAlert, Conversation, DueEntry, StoreResult};

/// One tool call answered, with the sentence it was answered with (a repeat gets it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnsweredTool {
    pub tool_call_id: String,
    pub result: String,
}

/// A request the agent wrote down during the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveRequest {
    pub tool_call_id: String,
    pub request: String,
    pub at: Timestamp,
}

/// What the agent's tools did during one conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveCall {
    pub answered: Vec<AnsweredTool>,
    /// In the order they came; `call.ended` adds those it does not bring itself.
    pub requests: Vec<LiveRequest>,
    /// The alert an emergency report opened before the call was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<CallAlert>,
}

impl LiveCall {
    /// The answer given to `tool_call_id` before, if it was answered.
    pub fn answer_of(&self, tool_call_id: &str) -> Option<&str> {
        self.answered
            .iter()
            .find(|t| t.tool_call_id == tool_call_id)
            .map(|t| t.result.as_str())
    }
}

/// A conversation's live state as read: what its tools did (version 0: nothing yet) and, once
/// `call.ended` recorded it, its call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveState {
    pub live: LiveCall,
    pub version: u64,
    pub conversation: Option<Conversation>,
}

/// One tool call to write: the conversation's live state after it, conditional on the
/// version read and on the conversation still being (un)recorded as read.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolWrite {
    pub portal_id: PortalId,
    pub call_id: String,
    pub read: LiveState,
    /// The live state to write (the store adds the alert it opens).
    pub live: LiveCall,
    /// An emergency's alert: opened (the store gives its id), or the recorded call's concern
    /// alert raised to urgent.
    pub alert: Option<AlertWrite>,
    /// A request to add to the recorded call (a tool call that came after `call.ended`).
    pub late_request: Option<(String, Timestamp)>,
}

/// The caller context's reads and the tools' writes, always within the portal that signed
/// the request.
#[async_trait]
pub trait LiveCallStore: Send + Sync + 'static {
    /// How many of the client's requests are still open (nobody has answered them).
    async fn open_request_count(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<usize>;
    /// The client's open questionnaire entries in this portal (at most one per
    /// questionnaire), as stored, with any attempt a scheduler pass holds.
    async fn open_entries(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<Vec<DueEntry>>;
    /// The conversation's live state and its recorded call, read at once.
    async fn live_state(&self, portal_id: PortalId, call_id: &str) -> StoreResult<LiveState>;
    /// Writes one tool call; the alert it opened or raised, if any. `ConditionFailed` when the
    /// live state or the conversation changed since it was read.
    async fn record_tool_call(&self, write: &ToolWrite) -> StoreResult<Option<CallAlert>>;
}

/// The alert an `AlertWrite` leaves, given the id the store drew for an opened one.
pub(crate) fn written_alert(
    write: &AlertWrite,
    drawn_id: i32,
    phone_call_id: Option<i32>,
) -> Alert {
    match write {
        AlertWrite::Open(alert) => Alert {
            id: drawn_id,
            phone_call_id,
            ..alert.clone()
        },
        AlertWrite::RaiseTo { alert, .. } => alert.clone(),
    }
}

/// A request a tool wrote down after its call was recorded, as the store adds it to the call:
/// open, without a transcript line.
pub(crate) fn late_request(
    id: i32,
    portal_id: i32,
    conversation: &Conversation,
    request: &str,
    at: Timestamp,
) -> crate::records::ClientRequest {
    crate::records::ClientRequest {
        id,
        created_at: at,
        request: Some(request.to_owned()),
        client_id: conversation.client_id,
        portal_id,
        phone_call_id: conversation.phone_call_id,
        phone_call_transcript_line_id: None,
        status: Some(crate::store::ingest::OPEN_REQUEST.into()),
        response: None,
        responded_at: None,
        responded_by_account_id: None,
        responded_by: None,
    }
}
