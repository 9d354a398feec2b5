//! The in-memory store's side of this capability.

use crate::ids::{AlertId, EntryId, PortalId, QuestionnaireId};
use async_trait::async_trait;

use crate::fixture::counters;
use crate::records::{Client, Question};
use crate::store::ingest::{AlertWrite, CallAlert};
use crate::store::memory::{MemoryStore, StoredEntry};
use crate::store::{
    AnalysisHold, Conversation, DeliveryKey, DeliveryState, DueEntry, IngestStore, NewCall,
    OutcomeReport, RecordedAnalysis, StoreError, StoreResult,
};

#[async_trait]
impl IngestStore for MemoryStore {
    async fn entry_by_id(&self, entry_id: EntryId) -> StoreResult<Option<DueEntry>> {
        let entry_id = entry_id.get();
        Ok(self
            .lock()
            .entries
            .get(&entry_id)
            .map(StoredEntry::due_entry))
    }

    async fn delivery_state(&self, delivery: DeliveryKey<'_>) -> StoreResult<DeliveryState> {
        let portal_id = delivery.portal_id.get();
        let own = delivery.conversation_uuid;
        let state = self.lock();
        let conversation = |uuid: &str| {
            state
                .conversations
                .get(&(portal_id, uuid.to_string()))
                .cloned()
        };
        Ok(DeliveryState {
            receipt: state
                .receipts
                .get(&(portal_id, delivery.event_id.to_string()))
                .cloned(),
            conversation: conversation(own),
            held: state
                .held_analyses
                .get(&(portal_id, own.to_string()))
                .cloned(),
            connected_to: delivery.connected_uuid.and_then(conversation),
            live: state.live_state(portal_id, own),
        })
    }

    async fn clients_by_number(
        &self,
        portal_id: PortalId,
        number: &str,
    ) -> StoreResult<Vec<Client>> {
        let portal_id = portal_id.get();
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

    async fn questions(&self, questionnaire_id: QuestionnaireId) -> StoreResult<Vec<Question>> {
        let questionnaire_id = questionnaire_id.get();
        Ok(self
            .lock()
            .questionnaires
            .get(&questionnaire_id)
            .map(|questionnaire| questionnaire.questions.clone())
            .unwrap_or_default())
    }

    async fn record_call(&self, new: &NewCall) -> StoreResult<Conversation> {
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
                    !stored.is_open()
                        && stored.entry.phone_call_id.is_none()
                        && stored.ended == due.ended
                }
            })
        });
        let unchanged = !state
            .receipts
            .contains_key(&(portal_id, new.event_id.clone()))
            && !state.conversations.contains_key(&conversation_key)
            && held_now == new.held_event_id
            && entry_as_read
            && state.live_state(portal_id, &uuid).version == new.live_version
            && new.linked_alert.as_ref().is_none_or(|(version, alert)| {
                state.alerts.get(&AlertId(alert.id)).map(|(_, v)| *v) == Some(*version)
            });
        if !unchanged {
            return Err(StoreError::ConditionFailed);
        }
        let call_id = state.next_id(counters::PHONE_CALL, 1)?;
        let count = |n: usize| i32::try_from(n).map_err(|_| StoreError::Corrupt("count".into()));
        let first_line = state.next_id(counters::TRANSCRIPT_LINE, count(new.lines.len())?)?;
        let first_request = state.next_id(counters::CLIENT_REQUEST, count(new.requests.len())?)?;
        let numbered = new.numbered(call_id, first_line, first_request)?;
        let alert_id = match &new.alert {
            Some(alert) => {
                let id = state.next_id(counters::ALERT, 1)?;
                let alert = crate::domain::Alert {
                    id,
                    phone_call_id: Some(call_id),
                    ..alert.clone()
                };
                state.alerts.insert(AlertId(id), (alert, 1));
                Some(id)
            }
            None => None,
        };
        if let Some((version, alert)) = &new.linked_alert {
            let linked = crate::domain::Alert {
                phone_call_id: Some(call_id),
                ..alert.clone()
            };
            state
                .alerts
                .insert(AlertId(alert.id), (linked, version + 1));
        }
        state.lines.insert(call_id, numbered.lines);
        state.requests.insert(call_id, numbered.requests);
        state.calls.insert(call_id, numbered.call);
        let conversation = new.conversation(call_id, alert_id.map(AlertId));
        state
            .conversations
            .insert(conversation_key.clone(), conversation.clone());
        state
            .receipts
            .insert((portal_id, new.event_id.clone()), uuid);
        state.held_analyses.remove(&conversation_key);
        if let Some(completion) = &new.completion {
            let due = &completion.entry;
            match &completion.not_a_contact {
                Some(outcome) => state.apply_outcome(due, outcome, due.effect_of(outcome)),
                None => {
                    if let Some(stored) = state.entries.get_mut(&due.entry.id) {
                        stored.entry.phone_call_id = Some(call_id);
                        stored.close();
                    }
                }
            }
            state.put_answers(completion.entry.entry.questionnaire_id, &completion.answers);
        }
        Ok(conversation)
    }

    async fn hold_analysis(&self, hold: AnalysisHold<'_>) -> StoreResult<()> {
        let portal_id = hold.portal_id.get();
        let conversation_uuid = hold.conversation_uuid;
        let mut state = self.lock();
        let conversation_key = (portal_id, conversation_uuid.to_string());
        let receipt_key = (portal_id, hold.held.event_id.clone());
        if state.conversations.contains_key(&conversation_key)
            || state.receipts.contains_key(&receipt_key)
        {
            return Err(StoreError::ConditionFailed);
        }
        state
            .receipts
            .insert(receipt_key, conversation_uuid.to_string());
        state
            .held_analyses
            .insert(conversation_key, hold.held.clone());
        Ok(())
    }

    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<Option<CallAlert>> {
        let mut state = self.lock();
        let receipt_key = (recorded.portal_id, recorded.event_id.clone());
        let conversation_key = (recorded.portal_id, recorded.conversation_uuid.clone());
        let call_id = recorded.conversation.phone_call_id;
        if state.receipts.contains_key(&receipt_key) || !state.calls.contains_key(&call_id) {
            return Err(StoreError::ConditionFailed);
        }
        let current = state
            .conversations
            .get(&conversation_key)
            .and_then(|c| c.alert);
        let written = match &recorded.alert {
            None => None,
            Some(AlertWrite::Open(alert)) => {
                if current.is_some() {
                    return Err(StoreError::ConditionFailed);
                }
                let id = state.next_id(counters::ALERT, 1)?;
                let alert = crate::domain::Alert {
                    id,
                    phone_call_id: Some(call_id),
                    ..alert.clone()
                };
                let reason = alert.reason;
                state.alerts.insert(AlertId(id), (alert, 1));
                Some(CallAlert {
                    alert_id: AlertId(id),
                    reason,
                })
            }
            Some(AlertWrite::RaiseTo { version, alert }) => {
                match state.alerts.get_mut(&AlertId(alert.id)) {
                    Some((stored, stored_version)) if stored_version == version => {
                        *stored = alert.clone();
                        *stored_version += 1;
                    }
                    _ => return Err(StoreError::ConditionFailed),
                }
                Some(CallAlert {
                    alert_id: AlertId(alert.id),
                    reason: alert.reason,
                })
            }
        };
        if let Some(written) = written
            && let Some(conversation) = state.conversations.get_mut(&conversation_key)
        {
            conversation.alert = Some(written);
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
        Ok(written)
    }

    async fn record_outcome(&self, report: &OutcomeReport) -> StoreResult<()> {
        let mut state = self.lock();
        let receipt_key = (report.portal_id, report.event_id.clone());
        if state.receipts.contains_key(&receipt_key) {
            return Err(StoreError::ConditionFailed);
        }
        if let Some(due) = &report.entry {
            if !state
                .entries
                .get(&due.entry.id)
                .is_some_and(|stored| stored.due_entry() == *due)
            {
                return Err(StoreError::ConditionFailed);
            }
            state.apply_outcome(due, &report.outcome, report.effect);
        }
        state
            .receipts
            .insert(receipt_key, report.conversation_uuid.clone());
        Ok(())
    }
}
