//! Store traits, one per consumer, with a DynamoDB and an in-memory implementation that keep the
//! same semantics (conditional writes, all-or-nothing transactions, expiry checked on read).

pub mod dynamo;
pub mod ingest;
pub mod memory;
pub mod schema;

use async_trait::async_trait;

use crate::fixture::Seed;
pub use ingest::{
    Analysis, Conversation, DeliveryState, EntryCompletion, EntryRef, GivenAnswer, HeldAnalysis,
    NewCall, NewRequest, NumberedCall, RecordedAnalysis,
};
use std::collections::{BTreeMap, HashMap};

use crate::records::{
    Account, Client, ClientRequest, ContactDetail, PhoneCall, Portal, Question,
    QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Timestamp,
};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A conditional write found the item in another state than expected.
    #[error("conditional write failed")]
    ConditionFailed,
    #[error("request throttled")]
    Throttled(#[source] BoxError),
    #[error("store unavailable")]
    Unavailable(#[source] BoxError),
    #[error("stored item is malformed: {0}")]
    Corrupt(String),
    #[error("store request failed")]
    Backend(#[source] BoxError),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A login session. Only the SHA-256 of the bearer token is ever stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub token_hash: String,
    pub account_id: i32,
    pub portal_id: i32,
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
    async fn delete_all_sessions(&self, account_id: i32) -> StoreResult<usize>;
}

/// The phone-calls function's reads.
#[async_trait]
pub trait PhoneCallReader: Send + Sync + 'static {
    /// The call with its transcript, then the calls connected to it (each with transcript),
    /// in the order the interface gives; `None` when the call does not exist.
    async fn call_with_connected(&self, call_id: i32) -> StoreResult<Option<Vec<PhoneCall>>>;
    /// The call (without transcript) and its client requests by id.
    async fn call_requests(
        &self,
        call_id: i32,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>>;
}

/// Which page of a portal's clients to read: those with an id above `after`, at most `limit`
/// of them (all when `None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientPageRequest {
    pub after: Option<i32>,
    pub limit: Option<usize>,
}

/// A page of clients by id, with the id to continue after when more follow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientPage {
    pub clients: Vec<Client>,
    pub next_after: Option<i32>,
}

/// The client fields staff may change (`PATCH /clients/{id}`), by their wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientField {
    Name,
    Phone,
    City,
    Street,
    Country,
    ZipCode,
    Language,
}

impl ClientField {
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Phone => "phone",
            Self::City => "city",
            Self::Street => "street",
            Self::Country => "country",
            Self::ZipCode => "zipCode",
            Self::Language => "language",
        }
    }

    pub fn apply(self, client: &mut Client, value: Option<String>) {
        let slot = match self {
            Self::Name => &mut client.name,
            Self::Phone => &mut client.phone,
            Self::City => &mut client.city,
            Self::Street => &mut client.street,
            Self::Country => &mut client.country,
            Self::ZipCode => &mut client.zip_code,
            Self::Language => &mut client.language,
        };
        *slot = value;
    }
}

/// Validated changes to a client: each field set to a value, or to null (`None`).
pub type ClientChanges = Vec<(ClientField, Option<String>)>;

/// The clients function's reads and writes, always within one portal.
#[async_trait]
pub trait ClientStore: Send + Sync + 'static {
    /// The portal's clients that are not deleted, by id, derived fields computed for `now`.
    async fn clients(
        &self,
        portal_id: i32,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage>;
    /// Sets only the given fields (no read-modify-write of the record) and returns the client;
    /// `None` when the portal has no such client, or it is deleted.
    async fn update_client(
        &self,
        portal_id: i32,
        client_id: i32,
        changes: &ClientChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Client>>;
}

/// The editable part of a contact detail (`PUT /contact-details/{id}` replaces all of it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactDetailChanges {
    pub name: String,
    pub contact_number: Option<String>,
    pub contact_email: Option<String>,
    pub contact_between_start: Option<String>,
    pub contact_between_end: Option<String>,
    pub priority: i32,
    pub is_active: bool,
}

impl ContactDetailChanges {
    pub fn apply(&self, detail: &mut ContactDetail) {
        detail.name = Some(self.name.clone());
        detail.contact_number = self.contact_number.clone();
        detail.contact_email = self.contact_email.clone();
        detail.contact_between_start = self.contact_between_start.clone();
        detail.contact_between_end = self.contact_between_end.clone();
        detail.priority = self.priority;
        detail.is_active = self.is_active;
    }
}

/// The contact-details function's reads and writes, always within one portal.
#[async_trait]
pub trait ContactDetailStore: Send + Sync + 'static {
    /// Every contact detail of the portal, in no particular order.
    async fn contact_details(&self, portal_id: i32) -> StoreResult<Vec<ContactDetail>>;
    async fn contact_detail(&self, portal_id: i32, id: i32) -> StoreResult<Option<ContactDetail>>;
    /// Replaces the editable fields; `None` when the portal has no such contact detail.
    async fn update_contact_detail(
        &self,
        portal_id: i32,
        id: i32,
        changes: &ContactDetailChanges,
    ) -> StoreResult<Option<ContactDetail>>;
}

/// Recent failed import attempts of one portal, with the version that guards their update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportGuard {
    pub failures: Vec<Timestamp>,
    pub version: u64,
}

/// What an import request needs before it may write: whether the portal exists, and its guard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportContext {
    pub portal: Option<Portal>,
    pub guard: ImportGuard,
}

/// A client the import made, or found already there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    Created { client_id: i32, national_id: String },
    Existing { client_id: i32, national_id: String },
}

/// The portals function's reads and writes.
#[async_trait]
pub trait PortalStore: Send + Sync + 'static {
    async fn portal(&self, id: i32) -> StoreResult<Option<Portal>>;
    /// The portal (if it exists) and its import guard, in one read.
    async fn import_context(&self, portal_id: i32) -> StoreResult<ImportContext>;
    /// Replaces the guard; `ConditionFailed` when it changed since `read_version`.
    async fn save_import_guard(
        &self,
        portal_id: i32,
        guard: &ImportGuard,
        read_version: u64,
    ) -> StoreResult<()>;
    /// Creates one client per national id (already normalised, no repeats) that the portal does
    /// not have yet, and reports the others as existing; ids come from one counter update.
    /// Idempotent under retries and concurrent identical requests.
    async fn import_clients(
        &self,
        portal_id: i32,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>>;
}

/// How a client entry is retried: the parameters given at start and the attempts made so far.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    /// Days before the first retry; later retries wait `interval * multiplier^(attempt-1)`.
    pub interval: i32,
    /// How many attempts (calls) at most.
    pub retries: i32,
    pub multiplier: f64,
    pub attempts: i32,
}

/// A client entry to create: the client, its first try, and how it is retried.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub client_id: i32,
    pub start_date: Timestamp,
    pub schedule: Schedule,
}

/// What starting a questionnaire for clients did.
#[derive(Debug, Clone, PartialEq)]
pub enum StartOutcome {
    /// The questionnaire does not exist.
    NoQuestionnaire,
    /// These clients are not (live) clients of the portal; nothing was written.
    UnknownClients(Vec<i32>),
    Started {
        created: Vec<QuestionnaireClientEntry>,
        already_scheduled: Vec<QuestionnaireClientEntry>,
    },
}

/// A question to insert at `position`; later questions move down by one.
#[derive(Debug, Clone, PartialEq)]
pub struct NewQuestion {
    pub position: i32,
    pub kind: String,
    pub prompt: String,
    pub metadata: Option<String>,
}

/// What adding a question did.
#[derive(Debug, Clone, PartialEq)]
pub enum AddQuestionOutcome {
    NoQuestionnaire,
    /// `position` is past the end; the highest allowed position is given.
    PositionOutOfRange {
        max: i32,
    },
    /// The questionnaire already holds the most questions one transaction can shift.
    Full {
        max_questions: usize,
    },
    Added(Question),
}

impl Schedule {
    /// The schedule of an entry that came without one (a fixture): the questionnaire's own.
    pub fn defaults_of(questionnaire: &QuestionnaireDetail) -> Self {
        Self {
            interval: questionnaire.retry_interval_days.max(0),
            retries: questionnaire.max_tries.clamp(1, 10),
            multiplier: questionnaire.interval_back_off_multiplier.clamp(1.0, 10.0),
            attempts: 0,
        }
    }
}

/// Open: still to be called. No call recorded yet, a next try set, and attempts left.
pub fn entry_is_open(entry: &QuestionnaireClientEntry, schedule: &Schedule) -> bool {
    entry.phone_call_id.is_none()
        && entry.next_try_at.is_some()
        && schedule.attempts < schedule.retries
}

/// Why a question cannot go in at `position` among `questions`, if it cannot.
pub(crate) fn question_refusal(
    questions: &[Question],
    position: i32,
) -> Option<AddQuestionOutcome> {
    let max = questions
        .iter()
        .map(|q| q.position)
        .max()
        .unwrap_or(0)
        .saturating_add(1);
    if questions.len() >= MAX_QUESTIONS {
        Some(AddQuestionOutcome::Full {
            max_questions: MAX_QUESTIONS,
        })
    } else if position > max {
        Some(AddQuestionOutcome::PositionOutOfRange { max })
    } else {
        None
    }
}

/// The most questions a questionnaire holds: inserting at the top shifts all of them, and the
/// shift is one transaction (100 items, two of which are the new question and the version).
pub const MAX_QUESTIONS: usize = 98;

/// The questionnaires function's reads and writes. Questionnaires are system-wide; entries
/// and answers are kept per portal of the client.
#[async_trait]
pub trait QuestionnaireStore: Send + Sync + 'static {
    async fn questionnaires(&self) -> StoreResult<Vec<QuestionnaireSummary>>;
    /// The questionnaire with its questions, and the entries and answers of `portal_id`'s
    /// clients; unordered.
    async fn questionnaire(
        &self,
        id: i32,
        portal_id: i32,
    ) -> StoreResult<Option<QuestionnaireDetail>>;
    /// Inserts a question atomically: a concurrent add makes this one re-read and retry.
    async fn add_question(
        &self,
        questionnaire_id: i32,
        question: &NewQuestion,
    ) -> StoreResult<AddQuestionOutcome>;
    /// Creates one open entry per client that has none for this questionnaire, all or nothing.
    async fn start_entries(
        &self,
        questionnaire_id: i32,
        portal_id: i32,
        entries: &[NewEntry],
        now: Timestamp,
    ) -> StoreResult<StartOutcome>;
}

/// The organisations function's reads: which organisation a portal belongs to, and the live
/// clients of all its portals (the candidates for an unknown caller).
#[async_trait]
pub trait OrganisationStore: Send + Sync + 'static {
    async fn organisation_of(&self, portal_id: i32) -> StoreResult<Option<i32>>;
    /// Every client of the organisation's portals that is not deleted, as seen at `now`.
    async fn organisation_clients(
        &self,
        organisation_id: i32,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>>;
    /// The call and the client that fixing would link, as they are now: `NoCall` when the call
    /// does not exist or belongs to another organisation's portal, `NoClient` when the client
    /// is not a live client of one of the organisation's portals.
    async fn fix_target(
        &self,
        organisation_id: i32,
        call_id: i32,
        client_id: i32,
        now: Timestamp,
    ) -> StoreResult<FixLookup>;
    /// Links the call and its client requests to the target client and its portal, marks the
    /// call known, moves the call's entry in the call statistics from its previous client (if
    /// any) to the new one, and sets the client's `primaryNumber` when given; all in one
    /// transaction. `ConditionFailed`, with nothing written, when the call, a request or either
    /// client changed since `fix_target` read them.
    async fn fix_call(&self, target: &FixTarget, primary_number: Option<&str>) -> StoreResult<()>;
}

/// What `fix_target` found.
#[derive(Debug, Clone, PartialEq)]
pub enum FixLookup {
    NoCall,
    NoClient,
    Found(Box<FixTarget>),
}

/// A fix as read: the call (without transcript) with its client requests, the client it is to
/// be linked to, and the client (portal and id) whose statistics count the call today when
/// that is another one.
#[derive(Debug, Clone, PartialEq)]
pub struct FixTarget {
    pub call: PhoneCall,
    pub requests: Vec<ClientRequest>,
    pub client: Client,
    pub previous_client: Option<(i32, i32)>,
}

impl FixTarget {
    /// The call as fixing leaves it.
    pub fn fixed_call(&self) -> PhoneCall {
        PhoneCall {
            client_id: self.client.id,
            portal_id: self.client.portal_id,
            is_unknown: false,
            transcript: None,
            ..self.call.clone()
        }
    }

    /// Whether the call's statistics entry has to leave `client_id` (it counted there before).
    pub fn counted_elsewhere(call: &PhoneCall, client_id: i32) -> bool {
        CallStats::counts(call) && call.client_id != client_id
    }
}

/// An attempt a scheduler pass claimed and has not yet confirmed as sent. Until `lease_until`
/// other passes leave the entry alone; after it, the next pass sends the same attempt again
/// (same deduplication id), so a pass that died between claim and send loses nothing.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingAttempt {
    pub attempt: i32,
    pub lease_until: Timestamp,
}

/// An open entry the scheduler found due, as it was read; claims are conditional on it.
#[derive(Debug, Clone, PartialEq)]
pub struct DueEntry {
    pub entry: QuestionnaireClientEntry,
    pub portal_id: i32,
    pub schedule: Schedule,
    pub pending: Option<PendingAttempt>,
}

impl DueEntry {
    /// Still under its open key: to be called, or its last attempt claimed and unconfirmed.
    pub fn is_open(&self) -> bool {
        self.pending.is_some() || entry_is_open(&self.entry, &self.schedule)
    }
}

/// What a claim writes: the attempt, how long the claiming pass holds it, and the entry's next
/// try after it (`None`: this is the last attempt, and confirming it closes the entry).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    pub attempt: i32,
    pub lease_until: Timestamp,
    pub next_try_at: Option<Timestamp>,
}

/// The records a pass needs to address its calls, by id. Deleted clients are included (their
/// entries are closed); an id missing here no longer exists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTargets {
    pub clients: HashMap<i32, Client>,
    pub questionnaires: HashMap<i32, QuestionnaireSummary>,
}

/// The questionnaire scheduler's reads and writes: the due-time index and the entry claims.
#[async_trait]
pub trait SchedulerStore: Send + Sync + 'static {
    /// Open entries whose next try is at or before `now` and claimed attempts whose lease ran
    /// out by `now`; at most `limit`.
    async fn due_entries(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<DueEntry>>;
    async fn call_targets(&self, due: &[DueEntry]) -> StoreResult<CallTargets>;
    /// Claims an attempt of `due` if the entry is still as read; `false` when another pass
    /// claimed it first or the entry changed (a call was recorded, or it was closed).
    async fn claim_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<bool>;
    /// Records that the claimed attempt was handed to the dialler: the entry waits for its next
    /// try, or is closed after its last attempt. Confirming twice changes nothing.
    async fn confirm_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<()>;
    /// Closes an entry that will never be called (its client or questionnaire is gone) if it is
    /// still as read; `false` otherwise.
    async fn close_entry(&self, due: &DueEntry) -> StoreResult<bool>;
}

/// Call ingestion's reads and writes, always within the portal that signed the delivery.
#[async_trait]
pub trait IngestStore: Send + Sync + 'static {
    /// The entry with this id, open or closed, as it is stored (with its portal, schedule and
    /// any attempt a scheduler pass holds); `None` when no entry has the id.
    async fn entry_by_id(&self, entry_id: i32) -> StoreResult<Option<DueEntry>>;
    /// Everything a delivery depends on, in one read: its receipt, its conversation, a held
    /// analysis of it, and the conversation it is a leg of.
    async fn delivery_state(
        &self,
        portal_id: i32,
        event_id: &str,
        conversation_uuid: &str,
        connected_uuid: Option<&str>,
    ) -> StoreResult<DeliveryState>;
    /// The portal's live clients whose `phone` or `primaryNumber` is `number` (E.164); their
    /// derived call fields are not computed.
    async fn clients_by_number(&self, portal_id: i32, number: &str) -> StoreResult<Vec<Client>>;
    async fn questions(&self, questionnaire_id: i32) -> StoreResult<Vec<Question>>;
    /// Records the call and returns its id. `ConditionFailed`, with nothing visible, when the
    /// delivery state or the entry changed since they were read.
    async fn record_call(&self, call: &NewCall) -> StoreResult<i32>;
    /// Keeps an analysis whose call has not arrived, with the delivery's receipt.
    /// `ConditionFailed` when the conversation was recorded or the event received meanwhile.
    async fn hold_analysis(
        &self,
        portal_id: i32,
        conversation_uuid: &str,
        held: &HeldAnalysis,
    ) -> StoreResult<()>;
    /// Writes an analysis onto its recorded call, its answers to the call's entry, and the
    /// delivery's receipt; `ConditionFailed` when the event was received meanwhile.
    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<()>;
}

/// Loads a validated fixture; counters continue above the ids it holds.
#[async_trait]
pub trait SeedWriter: Send + Sync + 'static {
    async fn write_seed(&self, seed: &Seed) -> StoreResult<()>;
}

/// How long a call counts towards `callsLast7Days`.
pub const RECENT_CALL_WINDOW: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// The call history behind a client's derived fields. Counted: every call linked to the client
/// that is not a leg connected to another call (a transfer continues the same conversation)
/// and not still marked unknown. `callLengthInSeconds` is the total talk time of those calls.
///
/// Kept per call (id -> start and length) rather than as running totals, so that a call can
/// be taken away from a client again (re-fixing an unknown caller) with an exact result, and
/// so that writing one call's entry twice (a retried write) counts it once.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct CallStats {
    pub calls: BTreeMap<String, CountedCall>,
}

/// One counted call: its start (Unix milliseconds) and its length in seconds. A pair rather
/// than a record, to keep a client item small: about 20 bytes per call.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CountedCall(pub i64, pub i32);

impl CountedCall {
    /// The entry of a call that counts, `None` for one that does not.
    pub fn of(call: &PhoneCall) -> Option<Self> {
        CallStats::counts(call).then(|| {
            let seconds = call
                .end_date
                .map_or(0, |end| (end - call.start_date).num_seconds().max(0));
            Self(
                call.start_date.timestamp_millis(),
                i32::try_from(seconds).unwrap_or(i32::MAX),
            )
        })
    }

    pub fn start(self) -> Option<Timestamp> {
        chrono::DateTime::from_timestamp_millis(self.0)
    }

    /// The key of a call in a client's stats.
    pub fn key(call_id: i32) -> String {
        call_id.to_string()
    }
}

impl CallStats {
    pub fn counts(call: &PhoneCall) -> bool {
        call.client_id > 0 && call.connected_to.is_none() && !call.is_unknown
    }

    /// The stats of every client with counted calls among `calls`.
    pub fn of_calls<'a>(calls: impl IntoIterator<Item = &'a PhoneCall>) -> HashMap<i32, Self> {
        let mut stats: HashMap<i32, Self> = HashMap::new();
        for call in calls {
            if let Some(counted) = CountedCall::of(call) {
                stats
                    .entry(call.client_id)
                    .or_default()
                    .calls
                    .insert(CountedCall::key(call.id), counted);
            }
        }
        stats
    }

    /// Writes the derived fields into the client as they stand at `now`.
    pub fn apply(&self, client: &mut Client, now: Timestamp) {
        let starts = || self.calls.values().filter_map(|call| call.start());
        client.total_calls = i32::try_from(self.calls.len()).unwrap_or(i32::MAX);
        client.call_length_in_seconds = self
            .calls
            .values()
            .fold(0i32, |total, call| total.saturating_add(call.1));
        client.last_call_at = starts().max();
        let recent = starts()
            .filter(|start| *start > now - RECENT_CALL_WINDOW && *start <= now)
            .count();
        client.calls_last7_days = i32::try_from(recent).unwrap_or(i32::MAX);
    }
}

/// Sorting shared by both stores: transcript by `createdAt` then `id`; connected calls by
/// `startDate` then `id`, after the call itself.
pub(crate) fn order_thread(root: PhoneCall, mut connected: Vec<PhoneCall>) -> Vec<PhoneCall> {
    connected.sort_by_key(|call| (call.start_date, call.id));
    let mut thread = Vec::with_capacity(connected.len() + 1);
    thread.push(root);
    thread.extend(connected);
    for call in &mut thread {
        if let Some(lines) = call.transcript.as_mut() {
            lines.sort_by_key(|line| (line.created_at, line.id));
        }
    }
    thread
}
