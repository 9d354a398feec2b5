//! What call ingestion reads before it writes and what it writes: a delivery's receipt, a
//! conversation already recorded, an analysis held until its call arrives, and a new call with
//! everything its final transaction makes visible at once.

use async_trait::async_trait;

use crate::domain::{Alert, AlertReason, AttemptOutcome, Effect};
use crate::records::Client;

use crate::ids::{AlertId, EntryId, PortalId, QuestionnaireId};

pub(crate) mod dynamo;
mod memory;

use serde::{Deserialize, Serialize};

use super::{DueEntry, StoreError, StoreResult};
use crate::records::{Answer, ClientRequest, PhoneCall, Question, Timestamp, TranscriptLine};

/// The voice platform's analysis of a call (`call.analyzed`), validated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub summary: Option<String>,
    pub purpose: Option<String>,
    pub confidence: i32,
    pub confidence_reason: Option<String>,
    pub satisfaction: i32,
    pub satisfaction_reason: Option<String>,
    pub name: Option<String>,
    pub answers: Vec<GivenAnswer>,
}

/// One questionnaire answer as the platform reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GivenAnswer {
    pub question_id: i32,
    pub answer_text: Option<String>,
    pub answered_at: Timestamp,
}

impl Analysis {
    /// Writes the analysis fields into the call record.
    pub fn apply(&self, call: &mut PhoneCall) {
        call.summary = self.summary.clone();
        call.purpose = self.purpose.clone();
        call.confidence = self.confidence;
        call.confidence_reason = self.confidence_reason.clone();
        call.satisfaction = self.satisfaction;
        call.satisfaction_reason = self.satisfaction_reason.clone();
        call.name = self.name.clone();
    }

    /// The answers as records of the entry `entry_id`, one per question (the last given wins),
    /// with the question's prompt, type and metadata copied as they are now. An answer to a
    /// question the questionnaire does not have keeps its text with an empty prompt.
    pub fn answer_records(&self, entry_id: i32, questions: &[Question]) -> Vec<Answer> {
        let mut records: Vec<Answer> = Vec::with_capacity(self.answers.len());
        for given in &self.answers {
            let question = questions.iter().find(|q| q.id == given.question_id);
            let record = Answer {
                question_id: given.question_id,
                questionnaire_call_id: entry_id,
                prompt: question.and_then(|q| q.prompt.clone()),
                kind: question.and_then(|q| q.kind.clone()),
                metadata: question.and_then(|q| q.metadata.clone()),
                answer_text: given.answer_text.clone(),
                answered_at: Some(given.answered_at),
            };
            match records
                .iter_mut()
                .find(|r| r.question_id == given.question_id)
            {
                Some(earlier) => *earlier = record,
                None => records.push(record),
            }
        }
        records
    }
}

/// What a delivery's state is read by: the portal that signed it, its `eventId`, its
/// conversation, and the conversation it is a leg of, when it names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryKey<'a> {
    pub portal_id: PortalId,
    pub event_id: &'a str,
    pub conversation_uuid: &'a str,
    pub connected_uuid: Option<&'a str>,
}

/// An analysis that arrived before its call, with the delivery that brought it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldAnalysis {
    pub event_id: String,
    pub analysis: Analysis,
}

/// Where an analysis is held: the portal that signed its delivery and the conversation it
/// is of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnalysisHold<'a> {
    pub portal_id: PortalId,
    pub conversation_uuid: &'a str,
    pub held: &'a HeldAnalysis,
}

/// The questionnaire entry a call completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryRef {
    pub questionnaire_id: i32,
    pub entry_id: i32,
}

/// The alert a call's triage opened: at most one per call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallAlert {
    pub alert_id: AlertId,
    pub reason: AlertReason,
}

/// A conversation of the portal already recorded as a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub phone_call_id: i32,
    /// The client the call was recorded for (0: unknown caller), for the access log of the
    /// analysis that follows. Absent on conversations recorded before the log.
    #[serde(default)]
    pub client_id: i32,
    /// The entry whose answers this call's analysis carries, if it completed one.
    pub entry: Option<EntryRef>,
    /// The client's side of the call, for the SMS of an alert its analysis opens. Absent on
    /// conversations recorded before alerts of calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_number: Option<String>,
    /// The alert the call's triage opened, if any. Absent (not null) without one, so that a
    /// write can require that none exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<CallAlert>,
}

/// What the store holds about one delivery before anything is written, read at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeliveryState {
    /// The conversation the delivery's `eventId` was recorded for, if it was processed before.
    pub receipt: Option<String>,
    /// The delivery's conversation, if it is recorded already.
    pub conversation: Option<Conversation>,
    /// An analysis of the conversation waiting for its call.
    pub held: Option<HeldAnalysis>,
    /// The conversation the call is a leg of (`connectedToConversationUuid`), if recorded.
    pub connected_to: Option<Conversation>,
    /// What the agent's tools did during the conversation, with its version (0: nothing).
    pub live: crate::store::live::LiveState,
}

/// A client request raised in a call: by the index of the transcript line it came from, or
/// written down by the agent's tool during the call (no line; timed when it was written).
#[derive(Debug, Clone, PartialEq)]
pub struct NewRequest {
    pub line_index: Option<usize>,
    pub request: String,
    /// When a request without a line was made.
    pub at: Option<Timestamp>,
}

/// The status of a request nobody has answered yet.
pub const OPEN_REQUEST: &str = "open";

impl NewRequest {
    /// The request as recorded with id `id` in `call`, open, timed by its transcript line
    /// (or its own time).
    pub fn record(
        &self,
        id: i32,
        call: &PhoneCall,
        lines: &[TranscriptLine],
    ) -> StoreResult<ClientRequest> {
        let (created_at, line_id) = match self.line_index {
            Some(index) => {
                let line = lines.get(index).ok_or_else(|| {
                    StoreError::Corrupt(format!("request on missing line {index}"))
                })?;
                (line.created_at, Some(line.id))
            }
            None => (self.at.unwrap_or(call.start_date), None),
        };
        Ok(ClientRequest {
            id,
            created_at,
            request: Some(self.request.clone()),
            client_id: call.client_id,
            portal_id: call.portal_id,
            phone_call_id: call.id,
            phone_call_transcript_line_id: line_id,
            status: Some(OPEN_REQUEST.into()),
            response: None,
            responded_at: None,
            responded_by_account_id: None,
            responded_by: None,
        })
    }
}

/// How recording a call completes its questionnaire entry: the entry as it was read (the
/// write is conditional on it) and the analysis answers to store with it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryCompletion {
    pub entry: DueEntry,
    pub answers: Vec<Answer>,
    /// `Some` when the call reached nobody after all (too short to be a contact): the entry is
    /// not completed but keeps this outcome, its back-off stands, and `answers` is empty.
    pub not_a_contact: Option<AttemptOutcome>,
}

impl EntryCompletion {
    /// The entry this call completes, if it reached its client.
    pub fn completed(&self) -> Option<&DueEntry> {
        self.not_a_contact.is_none().then_some(&self.entry)
    }
}

/// A call to record. Ids are assigned by the store: the call's, its lines' (in order) and its
/// requests'. Lines and requests are written first, invisible while the call record is
/// missing; the call record, the conversation, the receipt, the client's statistics, the
/// entry and its answers then appear together in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCall {
    pub portal_id: i32,
    pub event_id: String,
    /// The call without id and transcript; the held analysis already applied.
    pub call: PhoneCall,
    pub lines: Vec<TranscriptLine>,
    pub requests: Vec<NewRequest>,
    pub completion: Option<EntryCompletion>,
    /// The `eventId` of the analysis that was held when the state was read, which this write
    /// consumes; `None` when none was held (and the write requires that none is).
    pub held_event_id: Option<String>,
    /// The client's side of the call (the caller of an inbound call).
    pub client_number: Option<String>,
    /// The alert the call's triage raises, opened in the same transaction as the call; the
    /// store gives it its id and the call's.
    pub alert: Option<Alert>,
    /// The version of the conversation's live state read with the delivery (0: none); the
    /// write requires it unchanged, so that a tool call in between is not lost.
    pub live_version: u64,
    /// The alert an emergency report opened during the call, at the version read: it becomes
    /// the call's alert (its call id set) instead of a second one.
    pub linked_alert: Option<(u64, Alert)>,
}

/// A call with the ids the store reserved: its record, its lines and its requests.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberedCall {
    pub call: PhoneCall,
    pub lines: Vec<TranscriptLine>,
    pub requests: Vec<ClientRequest>,
}

impl NewCall {
    /// The call, its lines and its requests under the ids reserved for them (consecutive
    /// from `first_line` and `first_request`).
    pub fn numbered(
        &self,
        call_id: i32,
        first_line: i32,
        first_request: i32,
    ) -> StoreResult<NumberedCall> {
        let call = PhoneCall {
            id: call_id,
            transcript: None,
            ..self.call.clone()
        };
        let lines: Vec<TranscriptLine> = (first_line..)
            .zip(&self.lines)
            .map(|(id, line)| TranscriptLine {
                id,
                phone_call_id: call_id,
                ..line.clone()
            })
            .collect();
        let requests = (first_request..)
            .zip(&self.requests)
            .map(|(id, raised)| raised.record(id, &call, &lines))
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(NumberedCall {
            call,
            lines,
            requests,
        })
    }

    /// The conversation as recorded, with the alert opened with it.
    pub fn conversation(&self, phone_call_id: i32, alert_id: Option<AlertId>) -> Conversation {
        let linked = self.linked_alert.as_ref().map(|(_, alert)| CallAlert {
            alert_id: AlertId(alert.id),
            reason: alert.reason,
        });
        Conversation {
            phone_call_id,
            client_number: self.client_number.clone(),
            alert: linked.or(self.alert.as_ref().zip(alert_id).map(|(alert, alert_id)| {
                CallAlert {
                    alert_id,
                    reason: alert.reason,
                }
            })),
            client_id: self.call.client_id,
            entry: self
                .completion
                .as_ref()
                .and_then(EntryCompletion::completed)
                .map(|due| EntryRef {
                    questionnaire_id: due.entry.questionnaire_id,
                    entry_id: due.entry.id,
                }),
        }
    }
}

/// What an analysis does to its call's alert.
#[derive(Debug, Clone, PartialEq)]
pub enum AlertWrite {
    /// Opens the call's first alert (the store gives its id); conditional on the conversation
    /// still having none.
    Open(Alert),
    /// Raises the call's concern alert to urgent, if it is still at `version`.
    RaiseTo { version: u64, alert: Alert },
}

/// The analysis of a recorded call to apply, with the answers for its entry.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedAnalysis {
    pub portal_id: i32,
    pub event_id: String,
    pub conversation_uuid: String,
    pub conversation: Conversation,
    pub analysis: Analysis,
    pub answers: Vec<Answer>,
    pub alert: Option<AlertWrite>,
}

/// A dialler's report that an attempt reached nobody (`call.failed`), with what it does to the
/// entry it names.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeReport {
    pub portal_id: i32,
    pub event_id: String,
    /// What the receipt records as the delivery's conversation (empty without one).
    pub conversation_uuid: String,
    /// The portal's entry the attempt was for, as read; `None` when the report names none.
    pub entry: Option<DueEntry>,
    pub outcome: AttemptOutcome,
    pub effect: Effect,
}

/// Call ingestion's reads and writes, always within the portal that signed the delivery.
#[async_trait]
pub trait IngestStore: Send + Sync + 'static {
    /// The entry with this id, open or closed, as it is stored (with its portal, schedule and
    /// any attempt a scheduler pass holds); `None` when no entry has the id.
    async fn entry_by_id(&self, entry_id: EntryId) -> StoreResult<Option<DueEntry>>;
    /// Everything a delivery depends on, in one read: its receipt, its conversation, a held
    /// analysis of it, and the conversation it is a leg of.
    async fn delivery_state(&self, delivery: DeliveryKey<'_>) -> StoreResult<DeliveryState>;
    /// The portal's live clients whose `phone` or `primaryNumber` is `number` (E.164); their
    /// derived call fields are not computed.
    async fn clients_by_number(
        &self,
        portal_id: PortalId,
        number: &str,
    ) -> StoreResult<Vec<Client>>;
    async fn questions(&self, questionnaire_id: QuestionnaireId) -> StoreResult<Vec<Question>>;
    /// Records the call (and opens its alert) and returns its conversation as recorded.
    /// `ConditionFailed`, with nothing visible, when the delivery state or the entry changed
    /// since they were read.
    async fn record_call(&self, call: &NewCall) -> StoreResult<Conversation>;
    /// Keeps an analysis whose call has not arrived, with the delivery's receipt.
    /// `ConditionFailed` when the conversation was recorded or the event received meanwhile.
    async fn hold_analysis(&self, hold: AnalysisHold<'_>) -> StoreResult<()>;
    /// Writes an analysis onto its recorded call, its answers to the call's entry, its alert,
    /// and the delivery's receipt; the alert written, if any. `ConditionFailed` when the event
    /// was received, or the call's alert changed, meanwhile.
    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<Option<CallAlert>>;
    /// Keeps an attempt's outcome with its entry and applies its effect (a sooner next try, or
    /// the end of the entry), with the delivery's receipt; `ConditionFailed` when the entry
    /// changed since it was read or the event was received meanwhile.
    async fn record_outcome(&self, report: &OutcomeReport) -> StoreResult<()>;
}
