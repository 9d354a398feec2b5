//! The in-memory store: the same contract as the DynamoDB store, behind one mutex so that every
//! conditional write and transaction is atomic, for router tests and `local-api`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::{
    AddQuestionOutcome, CallTargets, Claim, DueEntry, FixLookup, FixTarget, IngestStore, NewEntry,
    NewQuestion, OrganisationStore, PendingAttempt, QuestionnaireStore, Schedule, SchedulerStore,
    StartOutcome,
};
use super::{
    AuthStore, CallStats, ClientChanges, ClientPage, ClientPageRequest, ClientStore,
    ContactDetailChanges, ContactDetailStore, ImportContext, ImportGuard, Imported, OtpRequest,
    PhoneCallReader, PortalStore, SeedWriter, SendLog, Session, SessionReader, StoreError,
    StoreResult, order_thread,
};
use super::{Conversation, DeliveryState, HeldAnalysis, NewCall, RecordedAnalysis};
use crate::fixture::{Seed, counters};
use crate::records::{
    Account, Answer, Client, ClientRequest, ContactDetail, PhoneCall, Portal, Question,
    QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Timestamp, TranscriptLine,
};

/// A client entry with what the API does not show: its portal, its schedule and the attempt a
/// scheduler pass holds.
#[derive(Debug, Clone)]
struct StoredEntry {
    entry: QuestionnaireClientEntry,
    portal_id: i32,
    schedule: Schedule,
    pending: Option<PendingAttempt>,
}

#[derive(Default)]
struct State {
    portals: BTreeMap<i32, Portal>,
    accounts_by_phone: HashMap<String, Account>,
    clients: BTreeMap<i32, Client>,
    calls: BTreeMap<i32, PhoneCall>,
    lines: BTreeMap<i32, Vec<TranscriptLine>>,
    requests: BTreeMap<i32, Vec<ClientRequest>>,
    contact_details: BTreeMap<i32, ContactDetail>,
    /// Questionnaires with their questions and answers; entries live in `entries`.
    questionnaires: BTreeMap<i32, QuestionnaireDetail>,
    entries: BTreeMap<i32, StoredEntry>,
    counters: HashMap<&'static str, i32>,
    sessions: HashMap<String, Session>,
    account_sessions: HashMap<i32, HashSet<String>>,
    otps: HashMap<String, OtpRequest>,
    send_logs: HashMap<String, SendLog>,
    import_guards: HashMap<i32, ImportGuard>,
    /// Call ingestion, by portal: receipts (event id -> conversation), recorded conversations
    /// and analyses waiting for their call (by conversation uuid).
    receipts: HashMap<(i32, String), String>,
    conversations: HashMap<(i32, String), Conversation>,
    held_analyses: HashMap<(i32, String), HeldAnalysis>,
}

impl State {
    /// A client as the API shows it: derived fields computed from the calls at `now`.
    fn client_view(&self, client: &Client, now: Timestamp) -> Client {
        let mut client = client.clone();
        let stats = CallStats::of_calls(
            self.calls
                .values()
                .filter(|call| call.client_id == client.id),
        );
        stats
            .get(&client.id)
            .cloned()
            .unwrap_or_default()
            .apply(&mut client, now);
        client
    }

    /// Inserts or replaces answers of questionnaire `questionnaire_id` by entry and question.
    fn put_answers(&mut self, questionnaire_id: i32, answers: &[Answer]) {
        let Some(questionnaire) = self.questionnaires.get_mut(&questionnaire_id) else {
            return;
        };
        for answer in answers {
            let same = |a: &Answer| {
                (a.questionnaire_call_id, a.question_id)
                    == (answer.questionnaire_call_id, answer.question_id)
            };
            match questionnaire.answers.iter_mut().find(|a| same(a)) {
                Some(stored) => *stored = answer.clone(),
                None => questionnaire.answers.push(answer.clone()),
            }
        }
    }

    fn next_id(&mut self, kind: &'static str, count: i32) -> StoreResult<i32> {
        let counter = self.counters.entry(kind).or_insert(0);
        let first = counter
            .checked_add(1)
            .filter(|first| first.checked_add(count - 1).is_some())
            .ok_or_else(|| StoreError::Corrupt(format!("{kind} ids are exhausted")))?;
        *counter += count;
        Ok(first)
    }
}

#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<State>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a half-applied write: every mutation
        // below checks its conditions before changing anything.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Everything stored, one line per item in a stable order, so tests can assert that a
    /// refused request changed nothing at all (counters, rate limits and sessions included).
    pub fn snapshot(&self) -> Vec<String> {
        fn add<K: Debug, V: Debug>(
            lines: &mut Vec<String>,
            kind: &str,
            items: impl IntoIterator<Item = (K, V)>,
        ) {
            lines.extend(
                items
                    .into_iter()
                    .map(|(k, v)| format!("{kind} {k:?} {v:?}")),
            );
        }
        let state = self.lock();
        let mut lines = Vec::new();
        add(&mut lines, "portal", &state.portals);
        add(&mut lines, "account", &state.accounts_by_phone);
        add(&mut lines, "client", &state.clients);
        add(&mut lines, "call", &state.calls);
        add(&mut lines, "lines", &state.lines);
        add(&mut lines, "requests", &state.requests);
        add(&mut lines, "contact", &state.contact_details);
        add(&mut lines, "questionnaire", &state.questionnaires);
        add(&mut lines, "entry", &state.entries);
        add(&mut lines, "counter", &state.counters);
        add(&mut lines, "session", &state.sessions);
        add(
            &mut lines,
            "account-sessions",
            state.account_sessions.iter().map(|(account, tokens)| {
                let mut tokens: Vec<_> = tokens.iter().collect();
                tokens.sort();
                (account, tokens)
            }),
        );
        add(&mut lines, "otp", &state.otps);
        add(&mut lines, "send-log", &state.send_logs);
        add(&mut lines, "import-guard", &state.import_guards);
        add(&mut lines, "receipt", &state.receipts);
        add(&mut lines, "conversation", &state.conversations);
        add(&mut lines, "held", &state.held_analyses);
        lines.sort();
        lines
    }
}

#[async_trait]
impl SessionReader for MemoryStore {
    async fn session(&self, token_hash: &str) -> StoreResult<Option<Session>> {
        Ok(self.lock().sessions.get(token_hash).cloned())
    }

    async fn touch_session(&self, token_hash: &str, at: Timestamp) -> StoreResult<()> {
        if let Some(session) = self.lock().sessions.get_mut(token_hash) {
            session.last_seen_at = at;
        }
        Ok(())
    }
}

#[async_trait]
impl AuthStore for MemoryStore {
    async fn otp_context(&self, phone_number: &str) -> StoreResult<(Option<Account>, SendLog)> {
        let state = self.lock();
        Ok((
            state.accounts_by_phone.get(phone_number).cloned(),
            state
                .send_logs
                .get(phone_number)
                .cloned()
                .unwrap_or_default(),
        ))
    }

    async fn save_otp(
        &self,
        request: &OtpRequest,
        log: &SendLog,
        read_version: u64,
    ) -> StoreResult<()> {
        let mut state = self.lock();
        let current = state
            .send_logs
            .get(&request.phone_number)
            .map_or(0, |log| log.version);
        if current != read_version {
            return Err(StoreError::ConditionFailed);
        }
        state
            .send_logs
            .insert(request.phone_number.clone(), log.clone());
        state
            .otps
            .insert(request.phone_number.clone(), request.clone());
        Ok(())
    }

    async fn otp_and_account(
        &self,
        phone_number: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<Account>)> {
        let state = self.lock();
        Ok((
            state.otps.get(phone_number).cloned(),
            state.accounts_by_phone.get(phone_number).cloned(),
        ))
    }

    async fn record_failed_attempt(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
    ) -> StoreResult<u32> {
        let mut state = self.lock();
        match state.otps.get_mut(phone_number) {
            Some(otp)
                if otp.request_id == request_id && !otp.used && otp.attempts < max_attempts =>
            {
                otp.attempts += 1;
                Ok(otp.attempts)
            }
            _ => Err(StoreError::ConditionFailed),
        }
    }

    async fn consume_otp(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
        session: &Session,
    ) -> StoreResult<()> {
        let mut state = self.lock();
        match state.otps.get_mut(phone_number) {
            Some(otp)
                if otp.request_id == request_id && !otp.used && otp.attempts < max_attempts =>
            {
                otp.used = true;
            }
            _ => return Err(StoreError::ConditionFailed),
        }
        state
            .sessions
            .insert(session.token_hash.clone(), session.clone());
        state
            .account_sessions
            .entry(session.account_id)
            .or_default()
            .insert(session.token_hash.clone());
        Ok(())
    }

    async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        let mut state = self.lock();
        if let Some(session) = state.sessions.remove(token_hash)
            && let Some(hashes) = state.account_sessions.get_mut(&session.account_id)
        {
            hashes.remove(token_hash);
        }
        Ok(())
    }

    async fn delete_all_sessions(&self, account_id: i32) -> StoreResult<usize> {
        let mut state = self.lock();
        let hashes = state
            .account_sessions
            .remove(&account_id)
            .unwrap_or_default();
        for hash in &hashes {
            state.sessions.remove(hash);
        }
        Ok(hashes.len())
    }
}

#[async_trait]
impl PhoneCallReader for MemoryStore {
    async fn call_with_connected(&self, call_id: i32) -> StoreResult<Option<Vec<PhoneCall>>> {
        let state = self.lock();
        let with_transcript = |call: &PhoneCall| PhoneCall {
            transcript: Some(state.lines.get(&call.id).cloned().unwrap_or_default()),
            ..call.clone()
        };
        let Some(root) = state.calls.get(&call_id) else {
            return Ok(None);
        };
        let connected = state
            .calls
            .values()
            .filter(|call| call.connected_to == Some(call_id))
            .map(with_transcript)
            .collect();
        Ok(Some(order_thread(with_transcript(root), connected)))
    }

    async fn call_requests(
        &self,
        call_id: i32,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>> {
        let state = self.lock();
        Ok(state.calls.get(&call_id).map(|call| {
            let mut requests = state.requests.get(&call_id).cloned().unwrap_or_default();
            requests.sort_by_key(|request| request.id);
            (call.clone(), requests)
        }))
    }
}

#[async_trait]
impl ClientStore for MemoryStore {
    async fn clients(
        &self,
        portal_id: i32,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage> {
        let state = self.lock();
        let start = page.after.map_or(i32::MIN, |after| after.saturating_add(1));
        let mut visible = state
            .clients
            .range(start..)
            .map(|(_, client)| client)
            .filter(|client| client.portal_id == portal_id && !client.is_deleted);
        let limit = page.limit.unwrap_or(usize::MAX);
        let mut stats = CallStats::of_calls(state.calls.values());
        let mut clients = Vec::new();
        for client in visible.by_ref().take(limit) {
            let mut client = client.clone();
            stats
                .remove(&client.id)
                .unwrap_or_default()
                .apply(&mut client, now);
            clients.push(client);
        }
        let next_after = match visible.next() {
            Some(_) => clients.last().map(|client| client.id),
            None => None,
        };
        Ok(ClientPage {
            clients,
            next_after,
        })
    }

    async fn update_client(
        &self,
        portal_id: i32,
        client_id: i32,
        changes: &ClientChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Client>> {
        let mut state = self.lock();
        let Some(client) = state
            .clients
            .get_mut(&client_id)
            .filter(|client| client.portal_id == portal_id && !client.is_deleted)
        else {
            return Ok(None);
        };
        for (field, value) in changes {
            field.apply(client, value.clone());
        }
        let client = client.clone();
        Ok(Some(state.client_view(&client, now)))
    }
}

#[async_trait]
impl ContactDetailStore for MemoryStore {
    async fn contact_details(&self, portal_id: i32) -> StoreResult<Vec<ContactDetail>> {
        Ok(self
            .lock()
            .contact_details
            .values()
            .filter(|detail| detail.portal_id == portal_id)
            .cloned()
            .collect())
    }

    async fn contact_detail(&self, portal_id: i32, id: i32) -> StoreResult<Option<ContactDetail>> {
        Ok(self
            .lock()
            .contact_details
            .get(&id)
            .filter(|detail| detail.portal_id == portal_id)
            .cloned())
    }

    async fn update_contact_detail(
        &self,
        portal_id: i32,
        id: i32,
        changes: &ContactDetailChanges,
    ) -> StoreResult<Option<ContactDetail>> {
        let mut state = self.lock();
        Ok(state
            .contact_details
            .get_mut(&id)
            .filter(|detail| detail.portal_id == portal_id)
            .map(|detail| {
                changes.apply(detail);
                detail.clone()
            }))
    }
}

#[async_trait]
impl PortalStore for MemoryStore {
    async fn portal(&self, id: i32) -> StoreResult<Option<Portal>> {
        Ok(self.lock().portals.get(&id).cloned())
    }

    async fn import_context(&self, portal_id: i32) -> StoreResult<ImportContext> {
        let state = self.lock();
        Ok(ImportContext {
            portal: state.portals.get(&portal_id).cloned(),
            guard: state
                .import_guards
                .get(&portal_id)
                .cloned()
                .unwrap_or_default(),
        })
    }

    async fn save_import_guard(
        &self,
        portal_id: i32,
        guard: &ImportGuard,
        read_version: u64,
    ) -> StoreResult<()> {
        let mut state = self.lock();
        let current = state.import_guards.get(&portal_id).map_or(0, |g| g.version);
        if current != read_version {
            return Err(StoreError::ConditionFailed);
        }
        state.import_guards.insert(portal_id, guard.clone());
        Ok(())
    }

    async fn import_clients(
        &self,
        portal_id: i32,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>> {
        let mut state = self.lock();
        let existing: HashMap<String, i32> = state
            .clients
            .values()
            .filter(|client| client.portal_id == portal_id)
            .filter_map(|client| Some((client.national_id.clone()?, client.id)))
            .collect();
        let new = national_ids
            .iter()
            .filter(|id| !existing.contains_key(*id))
            .count();
        let mut next = if new > 0 {
            let count = i32::try_from(new).map_err(|_| StoreError::Corrupt("batch".into()))?;
            state.next_id(counters::CLIENT, count)?
        } else {
            0
        };
        let mut outcome = Vec::with_capacity(national_ids.len());
        for national_id in national_ids {
            if let Some(client_id) = existing.get(national_id) {
                outcome.push(Imported::Existing {
                    client_id: *client_id,
                    national_id: national_id.clone(),
                });
                continue;
            }
            state.clients.insert(
                next,
                Client {
                    id: next,
                    portal_id,
                    national_id: Some(national_id.clone()),
                    ..Client::default()
                },
            );
            outcome.push(Imported::Created {
                client_id: next,
                national_id: national_id.clone(),
            });
            next += 1;
        }
        Ok(outcome)
    }
}

#[async_trait]
impl QuestionnaireStore for MemoryStore {
    async fn questionnaires(&self) -> StoreResult<Vec<QuestionnaireSummary>> {
        Ok(self
            .lock()
            .questionnaires
            .values()
            .map(QuestionnaireDetail::summary)
            .collect())
    }

    async fn questionnaire(
        &self,
        id: i32,
        portal_id: i32,
    ) -> StoreResult<Option<QuestionnaireDetail>> {
        let state = self.lock();
        let Some(questionnaire) = state.questionnaires.get(&id) else {
            return Ok(None);
        };
        let clients: Vec<QuestionnaireClientEntry> = state
            .entries
            .values()
            .filter(|stored| stored.entry.questionnaire_id == id && stored.portal_id == portal_id)
            .map(|stored| stored.entry.clone())
            .collect();
        let answers = questionnaire
            .answers
            .iter()
            .filter(|answer| {
                clients
                    .iter()
                    .any(|entry| entry.id == answer.questionnaire_call_id)
            })
            .cloned()
            .collect();
        Ok(Some(QuestionnaireDetail {
            answers,
            clients,
            ..questionnaire.clone()
        }))
    }

    async fn add_question(
        &self,
        questionnaire_id: i32,
        question: &NewQuestion,
    ) -> StoreResult<AddQuestionOutcome> {
        let mut state = self.lock();
        let Some(questions) = state
            .questionnaires
            .get(&questionnaire_id)
            .map(|q| q.questions.clone())
        else {
            return Ok(AddQuestionOutcome::NoQuestionnaire);
        };
        if let Some(refusal) = super::question_refusal(&questions, question.position) {
            return Ok(refusal);
        }
        let id = state.next_id(counters::QUESTION, 1)?;
        let added = Question {
            id,
            questionnaire_id,
            position: question.position,
            kind: Some(question.kind.clone()),
            prompt: Some(question.prompt.clone()),
            metadata: question.metadata.clone(),
        };
        let questionnaire = state
            .questionnaires
            .get_mut(&questionnaire_id)
            .ok_or_else(|| StoreError::Corrupt("questionnaire vanished".into()))?;
        for existing in &mut questionnaire.questions {
            if existing.position >= question.position {
                existing.position += 1;
            }
        }
        questionnaire.questions.push(added.clone());
        Ok(AddQuestionOutcome::Added(added))
    }

    async fn start_entries(
        &self,
        questionnaire_id: i32,
        portal_id: i32,
        entries: &[NewEntry],
        now: Timestamp,
    ) -> StoreResult<StartOutcome> {
        let mut state = self.lock();
        if !state.questionnaires.contains_key(&questionnaire_id) {
            return Ok(StartOutcome::NoQuestionnaire);
        }
        let unknown: Vec<i32> = entries
            .iter()
            .map(|new| new.client_id)
            .filter(|id| {
                !state
                    .clients
                    .get(id)
                    .is_some_and(|c| c.portal_id == portal_id && !c.is_deleted)
            })
            .collect();
        if !unknown.is_empty() {
            return Ok(StartOutcome::UnknownClients(unknown));
        }
        let open: HashMap<i32, QuestionnaireClientEntry> = state
            .entries
            .values()
            .filter(|stored| stored.entry.questionnaire_id == questionnaire_id && stored.is_open())
            .map(|stored| (stored.entry.client_id, stored.entry.clone()))
            .collect();
        let (mut created, mut already_scheduled) = (Vec::new(), Vec::new());
        for new in entries {
            if let Some(entry) = open.get(&new.client_id) {
                already_scheduled.push(entry.clone());
                continue;
            }
            let id = state.next_id(counters::QUESTIONNAIRE_ENTRY, 1)?;
            let entry = QuestionnaireClientEntry {
                id,
                client_id: new.client_id,
                questionnaire_id,
                phone_call_id: None,
                created_at: now,
                next_try_at: Some(new.start_date),
            };
            state.entries.insert(
                id,
                StoredEntry {
                    entry: entry.clone(),
                    portal_id,
                    schedule: new.schedule,
                    pending: None,
                },
            );
            created.push(entry);
        }
        Ok(StartOutcome::Started {
            created,
            already_scheduled,
        })
    }
}

impl StoredEntry {
    /// Open: still to be called, or its last attempt claimed and not yet confirmed.
    fn is_open(&self) -> bool {
        self.pending.is_some() || super::entry_is_open(&self.entry, &self.schedule)
    }

    fn due_at(&self) -> Option<Timestamp> {
        match self.pending {
            Some(pending) => Some(pending.lease_until),
            None if self.is_open() => self.entry.next_try_at,
            None => None,
        }
    }

    fn due_entry(&self) -> DueEntry {
        DueEntry {
            entry: self.entry.clone(),
            portal_id: self.portal_id,
            schedule: self.schedule,
            pending: self.pending,
        }
    }

    /// Still as the scheduler read it: the same entry, attempts and claim.
    fn is_as_read(&self, due: &DueEntry) -> bool {
        self.is_open()
            && self.schedule.attempts == due.schedule.attempts
            && self.pending == due.pending
    }

    fn close(&mut self) {
        self.entry.next_try_at = None;
        self.pending = None;
    }
}

#[async_trait]
impl OrganisationStore for MemoryStore {
    async fn organisation_of(&self, portal_id: i32) -> StoreResult<Option<i32>> {
        Ok(self
            .lock()
            .portals
            .get(&portal_id)
            .map(|portal| portal.organisation_id))
    }

    async fn organisation_clients(
        &self,
        organisation_id: i32,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>> {
        let state = self.lock();
        let portals: HashSet<i32> = state
            .portals
            .values()
            .filter(|portal| portal.organisation_id == organisation_id)
            .map(|portal| portal.id)
            .collect();
        Ok(state
            .clients
            .values()
            .filter(|client| portals.contains(&client.portal_id) && !client.is_deleted)
            .map(|client| state.client_view(client, now))
            .collect())
    }

    async fn fix_target(
        &self,
        organisation_id: i32,
        call_id: i32,
        client_id: i32,
        now: Timestamp,
    ) -> StoreResult<FixLookup> {
        let state = self.lock();
        let in_organisation = |portal_id: i32| {
            state
                .portals
                .get(&portal_id)
                .is_some_and(|portal| portal.organisation_id == organisation_id)
        };
        let Some(call) = state
            .calls
            .get(&call_id)
            .filter(|call| in_organisation(call.portal_id))
        else {
            return Ok(FixLookup::NoCall);
        };
        let Some(client) = state
            .clients
            .get(&client_id)
            .filter(|client| in_organisation(client.portal_id) && !client.is_deleted)
        else {
            return Ok(FixLookup::NoClient);
        };
        let previous_client = state
            .clients
            .get(&call.client_id)
            .filter(|_| FixTarget::counted_elsewhere(call, client_id))
            .map(|previous| (previous.portal_id, previous.id));
        Ok(FixLookup::Found(Box::new(FixTarget {
            call: call.clone(),
            requests: state.requests.get(&call_id).cloned().unwrap_or_default(),
            client: state.client_view(client, now),
            previous_client,
        })))
    }

    async fn fix_call(&self, target: &FixTarget, primary_number: Option<&str>) -> StoreResult<()> {
        let mut state = self.lock();
        let call_id = target.call.id;
        let call_as_read = state.calls.get(&call_id).is_some_and(|call| {
            (call.client_id, call.portal_id, call.is_unknown)
                == (
                    target.call.client_id,
                    target.call.portal_id,
                    target.call.is_unknown,
                )
        });
        let client_live = state
            .clients
            .get(&target.client.id)
            .is_some_and(|client| !client.is_deleted);
        if !(call_as_read && client_live) {
            return Err(StoreError::ConditionFailed);
        }
        // Statistics follow from the calls here, so moving the call moves them.
        state.calls.insert(call_id, target.fixed_call());
        for request in state.requests.entry(call_id).or_default() {
            request.client_id = target.client.id;
            request.portal_id = target.client.portal_id;
        }
        if let (Some(number), Some(client)) =
            (primary_number, state.clients.get_mut(&target.client.id))
        {
            client.primary_number = Some(number.to_string());
        }
        Ok(())
    }
}

#[async_trait]
impl IngestStore for MemoryStore {
    async fn entry_by_id(&self, entry_id: i32) -> StoreResult<Option<DueEntry>> {
        Ok(self
            .lock()
            .entries
            .get(&entry_id)
            .map(StoredEntry::due_entry))
    }

    async fn delivery_state(
        &self,
        portal_id: i32,
        event_id: &str,
        conversation_uuid: &str,
        connected_uuid: Option<&str>,
    ) -> StoreResult<DeliveryState> {
        let state = self.lock();
        let conversation = |uuid: &str| {
            state
                .conversations
                .get(&(portal_id, uuid.to_string()))
                .copied()
        };
        Ok(DeliveryState {
            receipt: state
                .receipts
                .get(&(portal_id, event_id.to_string()))
                .cloned(),
            conversation: conversation(conversation_uuid),
            held: state
                .held_analyses
                .get(&(portal_id, conversation_uuid.to_string()))
                .cloned(),
            connected_to: connected_uuid.and_then(conversation),
        })
    }

    async fn clients_by_number(&self, portal_id: i32, number: &str) -> StoreResult<Vec<Client>> {
        Ok(self
            .lock()
            .clients
            .values()
            .filter(|client| client.portal_id == portal_id && !client.is_deleted)
            .filter(|client| {
                client.phone.as_deref() == Some(number)
                    || client.primary_number.as_deref() == Some(number)
            })
            .cloned()
            .collect())
    }

    async fn questions(&self, questionnaire_id: i32) -> StoreResult<Vec<Question>> {
        Ok(self
            .lock()
            .questionnaires
            .get(&questionnaire_id)
            .map(|questionnaire| questionnaire.questions.clone())
            .unwrap_or_default())
    }

    async fn record_call(&self, new: &NewCall) -> StoreResult<i32> {
        let mut state = self.lock();
        let portal_id = new.portal_id;
        let uuid =
            new.call.conversation_uuid.clone().ok_or_else(|| {
                StoreError::Corrupt("a call to record has no conversation".into())
            })?;
        let conversation_key = (portal_id, uuid.clone());
        let held_now = state
            .held_analyses
            .get(&conversation_key)
            .map(|held| held.event_id.clone());
        let entry_as_read = new.completion.as_ref().is_none_or(|completion| {
            let due = &completion.entry;
            state.entries.get(&due.entry.id).is_some_and(|stored| {
                if due.is_open() {
                    stored.is_as_read(due)
                } else {
                    !stored.is_open() && stored.entry.phone_call_id.is_none()
                }
            })
        });
        let unchanged = !state
            .receipts
            .contains_key(&(portal_id, new.event_id.clone()))
            && !state.conversations.contains_key(&conversation_key)
            && held_now == new.held_event_id
            && entry_as_read;
        if !unchanged {
            return Err(StoreError::ConditionFailed);
        }
        let call_id = state.next_id(counters::PHONE_CALL, 1)?;
        let count = |n: usize| i32::try_from(n).map_err(|_| StoreError::Corrupt("count".into()));
        let first_line = state.next_id(counters::TRANSCRIPT_LINE, count(new.lines.len())?)?;
        let first_request = state.next_id(counters::CLIENT_REQUEST, count(new.requests.len())?)?;
        let numbered = new.numbered(call_id, first_line, first_request)?;
        state.lines.insert(call_id, numbered.lines);
        state.requests.insert(call_id, numbered.requests);
        state.calls.insert(call_id, numbered.call);
        state
            .conversations
            .insert(conversation_key.clone(), new.conversation(call_id));
        state
            .receipts
            .insert((portal_id, new.event_id.clone()), uuid);
        state.held_analyses.remove(&conversation_key);
        if let Some(completion) = &new.completion {
            if let Some(stored) = state.entries.get_mut(&completion.entry.entry.id) {
                stored.entry.phone_call_id = Some(call_id);
                stored.close();
            }
            state.put_answers(completion.entry.entry.questionnaire_id, &completion.answers);
        }
        Ok(call_id)
    }

    async fn hold_analysis(
        &self,
        portal_id: i32,
        conversation_uuid: &str,
        held: &HeldAnalysis,
    ) -> StoreResult<()> {
        let mut state = self.lock();
        let conversation_key = (portal_id, conversation_uuid.to_string());
        let receipt_key = (portal_id, held.event_id.clone());
        if state.conversations.contains_key(&conversation_key)
            || state.receipts.contains_key(&receipt_key)
        {
            return Err(StoreError::ConditionFailed);
        }
        state
            .receipts
            .insert(receipt_key, conversation_uuid.to_string());
        state.held_analyses.insert(conversation_key, held.clone());
        Ok(())
    }

    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<()> {
        let mut state = self.lock();
        let receipt_key = (recorded.portal_id, recorded.event_id.clone());
        let call_id = recorded.conversation.phone_call_id;
        if state.receipts.contains_key(&receipt_key) || !state.calls.contains_key(&call_id) {
            return Err(StoreError::ConditionFailed);
        }
        if let Some(call) = state.calls.get_mut(&call_id) {
            recorded.analysis.apply(call);
        }
        if let Some(entry) = recorded.conversation.entry {
            state.put_answers(entry.questionnaire_id, &recorded.answers);
        }
        state
            .receipts
            .insert(receipt_key, recorded.conversation_uuid.clone());
        Ok(())
    }
}

#[async_trait]
impl SchedulerStore for MemoryStore {
    async fn due_entries(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<DueEntry>> {
        let state = self.lock();
        let mut due: Vec<(Timestamp, DueEntry)> = state
            .entries
            .values()
            .filter_map(|stored| {
                let at = stored.due_at()?;
                (at <= now).then(|| (at, stored.due_entry()))
            })
            .collect();
        due.sort_by_key(|(at, due)| (*at, due.entry.id));
        Ok(due.into_iter().take(limit).map(|(_, due)| due).collect())
    }

    async fn call_targets(&self, due: &[DueEntry]) -> StoreResult<CallTargets> {
        let state = self.lock();
        let mut targets = CallTargets::default();
        for due in due {
            let client_id = due.entry.client_id;
            if let Some(client) = state.clients.get(&client_id) {
                targets.clients.insert(client_id, client.clone());
            }
            let questionnaire_id = due.entry.questionnaire_id;
            if let Some(questionnaire) = state.questionnaires.get(&questionnaire_id) {
                targets
                    .questionnaires
                    .insert(questionnaire_id, questionnaire.summary());
            }
        }
        Ok(targets)
    }

    async fn claim_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<bool> {
        let mut state = self.lock();
        let Some(stored) = state.entries.get_mut(&due.entry.id) else {
            return Ok(false);
        };
        if !stored.is_as_read(due) {
            return Ok(false);
        }
        stored.schedule.attempts = claim.attempt;
        stored.pending = Some(PendingAttempt {
            attempt: claim.attempt,
            lease_until: claim.lease_until,
        });
        if let Some(next) = claim.next_try_at {
            stored.entry.next_try_at = Some(next);
        }
        Ok(true)
    }

    async fn confirm_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<()> {
        let mut state = self.lock();
        if let Some(stored) = state.entries.get_mut(&due.entry.id)
            && stored.pending.is_some_and(|p| p.attempt == claim.attempt)
        {
            match claim.next_try_at {
                Some(_) => stored.pending = None,
                None => stored.close(),
            }
        }
        Ok(())
    }

    async fn close_entry(&self, due: &DueEntry) -> StoreResult<bool> {
        let mut state = self.lock();
        match state.entries.get_mut(&due.entry.id) {
            Some(stored) if stored.is_as_read(due) => {
                stored.close();
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[async_trait]
impl SeedWriter for MemoryStore {
    async fn write_seed(&self, seed: &Seed) -> StoreResult<()> {
        let mut state = self.lock();
        for portal in &seed.portals {
            state.portals.insert(portal.id, portal.clone());
        }
        for account in &seed.accounts {
            state
                .accounts_by_phone
                .insert(account.phone_number.clone(), account.clone());
        }
        for client in &seed.clients {
            state.clients.insert(client.id, client.clone());
        }
        for call in &seed.phone_calls {
            let lines = call.transcript.clone().unwrap_or_default();
            state.lines.insert(call.id, lines);
            state.calls.insert(
                call.id,
                PhoneCall {
                    transcript: None,
                    ..call.clone()
                },
            );
        }
        for request in &seed.client_requests {
            state
                .requests
                .entry(request.phone_call_id)
                .or_default()
                .push(request.clone());
        }
        for detail in &seed.contact_details {
            state.contact_details.insert(detail.id, detail.clone());
        }
        for questionnaire in &seed.questionnaires {
            for entry in &questionnaire.clients {
                let portal_id = state
                    .clients
                    .get(&entry.client_id)
                    .map_or(0, |client| client.portal_id);
                state.entries.insert(
                    entry.id,
                    StoredEntry {
                        entry: entry.clone(),
                        portal_id,
                        schedule: Schedule::defaults_of(questionnaire),
                        pending: None,
                    },
                );
            }
            state.questionnaires.insert(
                questionnaire.id,
                QuestionnaireDetail {
                    clients: Vec::new(),
                    ..questionnaire.clone()
                },
            );
        }
        for (kind, top) in seed.counter_floors() {
            let counter = state.counters.entry(kind).or_insert(0);
            *counter = (*counter).max(top);
        }
        Ok(())
    }
}
