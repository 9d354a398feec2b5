//! The caller context's reads on the in-memory store.

use async_trait::async_trait;

use crate::fixture::counters;
use crate::ids::{AlertId, ClientId, PortalId};
use crate::store::ingest::OPEN_REQUEST;
use crate::store::live::{LiveCallStore, LiveState, ToolWrite, late_request, written_alert};
use crate::store::memory::{MemoryStore, State};
use crate::store::{AlertWrite, CallAlert, DueEntry, StoreError, StoreResult};

impl State {
    /// A conversation's live state as stored (version 0: nothing yet) with its recorded call.
    pub(crate) fn live_state(&self, portal_id: i32, call_id: &str) -> LiveState {
        let key = (portal_id, call_id.to_string());
        let (live, version) = self.live_calls.get(&key).cloned().unwrap_or_default();
        LiveState {
            live,
            version,
            conversation: self.conversations.get(&key).cloned(),
        }
    }
}

#[async_trait]
impl LiveCallStore for MemoryStore {
    async fn open_request_count(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<usize> {
        let (portal_id, client_id) = (portal_id.get(), client_id.get());
        let state = self.lock();
        Ok(state
            .requests
            .iter()
            // A call's requests are visible once its record is.
            .filter(|(call_id, _)| state.calls.contains_key(call_id))
            .flat_map(|(_, requests)| requests)
            .filter(|r| r.portal_id == portal_id && r.client_id == client_id)
            .filter(|r| r.status.as_deref() == Some(OPEN_REQUEST))
            .count())
    }

    async fn open_entries(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<Vec<DueEntry>> {
        let state = self.lock();
        Ok(state
            .entries
            .values()
            .filter(|stored| stored.portal_id == portal_id.get())
            .filter(|stored| stored.entry.client_id == client_id.get())
            .filter(|stored| stored.is_open())
            .map(|stored| stored.due_entry())
            .collect())
    }

    async fn live_state(&self, portal_id: PortalId, call_id: &str) -> StoreResult<LiveState> {
        Ok(self.lock().live_state(portal_id.get(), call_id))
    }

    async fn record_tool_call(&self, write: &ToolWrite) -> StoreResult<Option<CallAlert>> {
        let mut state = self.lock();
        let portal_id = write.portal_id.get();
        let key = (portal_id, write.call_id.clone());
        let now = state.live_state(portal_id, &write.call_id);
        let recorded = now.conversation.clone();
        if now.version != write.read.version
            || recorded.is_some() != write.read.conversation.is_some()
        {
            return Err(StoreError::ConditionFailed);
        }
        let mut live = write.live.clone();
        let written = match &write.alert {
            None => None,
            Some(alert_write) => {
                let (alert, version) = match alert_write {
                    AlertWrite::Open(_) => {
                        if recorded.as_ref().is_some_and(|c| c.alert.is_some()) {
                            return Err(StoreError::ConditionFailed);
                        }
                        let id = state.next_id(counters::ALERT, 1)?;
                        let alert = written_alert(
                            alert_write,
                            id,
                            recorded.as_ref().map(|c| c.phone_call_id),
                        );
                        (alert, 1)
                    }
                    AlertWrite::RaiseTo { version, alert } => {
                        if state.alerts.get(&AlertId(alert.id)).map(|(_, v)| *v) != Some(*version) {
                            return Err(StoreError::ConditionFailed);
                        }
                        (alert.clone(), version + 1)
                    }
                };
                let written = CallAlert {
                    alert_id: AlertId(alert.id),
                    reason: alert.reason,
                };
                state.alerts.insert(AlertId(alert.id), (alert, version));
                match state.conversations.get_mut(&key) {
                    Some(conversation) => conversation.alert = Some(written),
                    None => live.alert = Some(written),
                }
                Some(written)
            }
        };
        if let (Some(conversation), Some((request, at))) = (&recorded, &write.late_request) {
            let id = state.next_id(counters::CLIENT_REQUEST, 1)?;
            let record = late_request(id, portal_id, conversation, request, *at);
            state
                .requests
                .entry(conversation.phone_call_id)
                .or_default()
                .push(record);
        }
        state.live_calls.insert(key, (live, now.version + 1));
        Ok(written)
    }
}
