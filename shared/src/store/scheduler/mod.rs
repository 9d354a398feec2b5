//! The questionnaire scheduler: due entries, claims on attempts, and closing entries.

use async_trait::async_trait;

use crate::domain::{
    Alert, AttemptOutcome, Effect, EntryEnd, Schedule, effect_after_last_attempt, effect_of,
    entry_is_open,
};
use crate::records::{Client, QuestionnaireClientEntry, QuestionnaireSummary, Timestamp};
use crate::store::StoreResult;
use std::collections::HashMap;

use crate::ids::PortalId;

pub(crate) mod dynamo;
mod memory;

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
    pub portal_id: PortalId,
    pub schedule: Schedule,
    pub pending: Option<PendingAttempt>,
    /// The outcomes the dialler reported for its attempts (`call.failed`), oldest first.
    pub outcomes: Vec<AttemptOutcome>,
    /// Why it ended without reaching its client, once it did.
    pub ended: Option<EntryEnd>,
}

impl DueEntry {
    /// What a report that `outcome`'s attempt reached nobody does to this entry as read: moves
    /// an open entry's next try or ends it, ends one closed after its last attempt that nothing
    /// reached, and is only kept on any other.
    pub fn effect_of(&self, outcome: &AttemptOutcome) -> Effect {
        if self.is_open() {
            effect_of(outcome, &self.schedule, self.entry.next_try_at)
        } else if self.entry.phone_call_id.is_none() && self.ended.is_none() {
            effect_after_last_attempt(outcome, &self.schedule)
        } else {
            Effect::Record
        }
    }

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
    /// Takes an entry closed after its last attempt out of the due index, where it waited for
    /// the dialler's report of that attempt. With `alert`, no report came: the entry ends as
    /// exhausted and raises it, if no call or report reached the entry meanwhile (`false`
    /// otherwise, and nothing is written).
    async fn conclude_last_attempt(
        &self,
        due: &DueEntry,
        alert: Option<&Alert>,
    ) -> StoreResult<bool>;
}
