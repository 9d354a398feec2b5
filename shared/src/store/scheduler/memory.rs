//! The in-memory store's side of this capability.

use async_trait::async_trait;

use crate::domain::{Alert, EntryEnd, REPORT_WAIT};
use crate::ids::AlertId;
use crate::records::Timestamp;
use crate::store::memory::MemoryStore;
use crate::store::{CallTargets, Claim, DueEntry, PendingAttempt, SchedulerStore, StoreResult};

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
                None => {
                    stored.close();
                    stored.report_due = Some(claim.lease_until + REPORT_WAIT);
                }
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

    async fn conclude_last_attempt(
        &self,
        due: &DueEntry,
        alert: Option<&Alert>,
    ) -> StoreResult<bool> {
        let mut state = self.lock();
        let Some(stored) = state.entries.get_mut(&due.entry.id) else {
            return Ok(false);
        };
        let Some(alert) = alert else {
            stored.report_due = None;
            return Ok(true);
        };
        if stored.ended.is_some() || stored.entry.phone_call_id.is_some() {
            return Ok(false);
        }
        stored.ended = Some(EntryEnd::Exhausted);
        stored.report_due = None;
        state
            .alerts
            .entry(AlertId(alert.id))
            .or_insert_with(|| (alert.clone(), 1));
        Ok(true)
    }
}
