//! The in-memory store: the same contract as the DynamoDB store, behind one mutex so that every
//! conditional write and transaction is atomic, for router tests and `local-api`.
//! Its state and its lock live here; each capability's operations sit beside its trait.

use crate::ids::{AccountId, AlertId, OrganisationId, PortalId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;
use std::sync::{Mutex, MutexGuard};

use crate::domain::{
    Alert, AlertReason, AttemptOutcome, CallStats, Effect, EntryEnd, Schedule, entry_is_open,
};
use crate::records::{
    Account, Answer, Client, ClientRequest, ContactDetail, PhoneCall, Portal,
    QuestionnaireClientEntry, QuestionnaireDetail, Timestamp, TranscriptLine,
};
use crate::store::{
    Conversation, DueEntry, HeldAnalysis, ImportGuard, OtpRequest, Owner, PendingAttempt, SendLog,
    Session, StoreError, StoreResult,
};

/// A client entry with what the API does not show: its portal, its schedule and the attempt a
/// scheduler pass holds.
#[derive(Debug, Clone)]
pub(crate) struct StoredEntry {
    pub(crate) entry: QuestionnaireClientEntry,
    pub(crate) portal_id: i32,
    pub(crate) schedule: Schedule,
    pub(crate) pending: Option<PendingAttempt>,
    pub(crate) outcomes: Vec<AttemptOutcome>,
    pub(crate) ended: Option<EntryEnd>,
    /// After its last attempt: when the scheduler stops waiting for that attempt's report.
    pub(crate) report_due: Option<Timestamp>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) portals: BTreeMap<i32, Portal>,
    pub(crate) accounts_by_phone: HashMap<String, Account>,
    pub(crate) clients: BTreeMap<i32, Client>,
    pub(crate) calls: BTreeMap<i32, PhoneCall>,
    pub(crate) lines: BTreeMap<i32, Vec<TranscriptLine>>,
    pub(crate) requests: BTreeMap<i32, Vec<ClientRequest>>,
    pub(crate) contact_details: BTreeMap<i32, ContactDetail>,
    /// Questionnaires with their questions and answers; entries live in `entries`.
    pub(crate) questionnaires: BTreeMap<i32, QuestionnaireDetail>,
    pub(crate) entries: BTreeMap<i32, StoredEntry>,
    /// The owner of each questionnaire that is not a template.
    pub(crate) questionnaire_owners: HashMap<i32, OrganisationId>,
    pub(crate) counters: HashMap<&'static str, i32>,
    pub(crate) sessions: HashMap<String, Session>,
    pub(crate) account_sessions: HashMap<AccountId, HashSet<String>>,
    /// By number and request id.
    pub(crate) otps: HashMap<(String, String), OtpRequest>,
    pub(crate) send_logs: HashMap<String, SendLog>,
    pub(crate) import_guards: HashMap<i32, ImportGuard>,
    /// Call ingestion, by portal: receipts (event id -> conversation), recorded conversations
    /// and analyses waiting for their call (by conversation uuid).
    pub(crate) receipts: HashMap<(i32, String), String>,
    pub(crate) conversations: HashMap<(i32, String), Conversation>,
    pub(crate) held_analyses: HashMap<(i32, String), HeldAnalysis>,
    /// What the agent's tools did during a conversation, with its version.
    pub(crate) live_calls: HashMap<(i32, String), (crate::store::live::LiveCall, u64)>,
    /// The access log: records and reviews by id (ids sort by time).
    pub(crate) access_records: BTreeMap<String, crate::store::access_log::AccessRecord>,
    pub(crate) reviews: BTreeMap<String, crate::store::access_log::Review>,
    /// Alerts by id, with their versions.
    pub(crate) alerts: BTreeMap<AlertId, (crate::domain::Alert, u64)>,
    /// The days each portal's alarm chain was tested on.
    pub(crate) chain_tests: HashSet<(i32, chrono::NaiveDate)>,
    /// The clients each account opened in a period, by portal, account and period start,
    /// with when it went over its threshold and whether its alert was opened.
    pub(crate) readings: HashMap<(i32, i32, Timestamp), crate::store::reading::memory::Watched>,
}

impl State {
    /// A client as the API shows it: derived fields computed from the calls at `now`.
    pub(crate) fn client_view(&self, client: &Client, now: Timestamp) -> Client {
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
    pub(crate) fn put_answers(&mut self, questionnaire_id: i32, answers: &[Answer]) {
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

    /// Who questionnaire `id` belongs to.
    pub(crate) fn owner_of(&self, id: i32) -> Owner {
        Owner::of(self.questionnaire_owners.get(&id).copied())
    }

    /// Keeps an attempt's outcome with its entry and applies its effect; an end that calls for
    /// an alert raises it, once per entry, as the DynamoDB store's conditional put does.
    pub(crate) fn apply_outcome(
        &mut self,
        due: &DueEntry,
        outcome: &AttemptOutcome,
        effect: Effect,
    ) {
        let Some(stored) = self.entries.get_mut(&due.entry.id) else {
            return;
        };
        stored.outcomes.push(outcome.clone());
        match effect {
            Effect::Record => {}
            Effect::RetryAt(next) => stored.entry.next_try_at = Some(next),
            Effect::End(end) => {
                stored.close();
                stored.ended = Some(end);
                stored.report_due = None;
                if let Some(reason) = AlertReason::of(end) {
                    let alert = Alert::raised(
                        &stored.entry,
                        stored.portal_id,
                        reason,
                        stored.outcomes.clone(),
                        outcome.at,
                    );
                    self.alerts.entry(AlertId(alert.id)).or_insert((alert, 1));
                }
            }
        }
    }

    pub(crate) fn next_id(&mut self, kind: &'static str, count: i32) -> StoreResult<i32> {
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
    pub(crate) state: Mutex<State>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
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
        add(&mut lines, "owner", &state.questionnaire_owners);
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

impl StoredEntry {
    /// Open: still to be called, or its last attempt claimed and not yet confirmed.
    pub(crate) fn is_open(&self) -> bool {
        self.pending.is_some() || entry_is_open(&self.entry, &self.schedule)
    }

    pub(crate) fn due_at(&self) -> Option<Timestamp> {
        match self.pending {
            Some(pending) => Some(pending.lease_until),
            None if self.is_open() => self.entry.next_try_at,
            None => self.report_due,
        }
    }

    pub(crate) fn due_entry(&self) -> DueEntry {
        DueEntry {
            entry: self.entry.clone(),
            portal_id: PortalId(self.portal_id),
            schedule: self.schedule,
            pending: self.pending,
            outcomes: self.outcomes.clone(),
            ended: self.ended,
        }
    }

    /// Still as the scheduler read it: the same entry, attempts and claim.
    pub(crate) fn is_as_read(&self, due: &DueEntry) -> bool {
        self.is_open()
            && self.schedule.attempts == due.schedule.attempts
            && self.pending == due.pending
    }

    pub(crate) fn close(&mut self) {
        self.entry.next_try_at = None;
        self.pending = None;
    }
}
