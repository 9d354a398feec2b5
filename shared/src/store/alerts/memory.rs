//! The in-memory store's side of this capability.

use async_trait::async_trait;

use crate::domain::Alert;
use crate::fixture::counters;
use crate::ids::{AlertId, PortalId};
use crate::records::{ContactDetail, Timestamp};
use crate::store::alerts::AlertsRequest;
use crate::store::memory::{MemoryStore, State};
use crate::store::{AlertPage, AlertStore, EscalationStore, StoreResult, StoredAlert};

fn stored(state: &State, alert: &Alert, version: u64) -> StoredAlert {
    StoredAlert {
        client_name: state
            .clients
            .get(&alert.client_id)
            .filter(|client| client.portal_id == alert.portal_id && !client.is_deleted)
            .and_then(|client| client.name.clone()),
        alert: alert.clone(),
        version,
    }
}

fn put_at(state: &mut State, version: u64, alert: &Alert) -> bool {
    match state.alerts.get_mut(&AlertId(alert.id)) {
        Some((stored, stored_version)) if *stored_version == version => {
            *stored = alert.clone();
            *stored_version += 1;
            true
        }
        _ => false,
    }
}

#[async_trait]
impl AlertStore for MemoryStore {
    async fn alerts(&self, portal_id: PortalId, request: AlertsRequest) -> StoreResult<AlertPage> {
        let AlertsRequest { filter, page } = request;
        let state = self.lock();
        let mut alerts: Vec<StoredAlert> = state
            .alerts
            .range(
                page.after.map_or(AlertId(i32::MIN), |after| {
                    AlertId(after.get().saturating_add(1))
                })..,
            )
            .map(|(_, (alert, version))| (alert, *version))
            .filter(|(alert, _)| alert.portal_id == portal_id.get())
            .filter(|(alert, _)| filter.admits(alert))
            .take(page.limit.map_or(usize::MAX, |limit| limit + 1))
            .map(|(alert, version)| stored(&state, alert, version))
            .collect();
        let next = match page.limit {
            Some(limit) if alerts.len() > limit => {
                alerts.truncate(limit);
                alerts.last().map(|stored| AlertId(stored.alert.id))
            }
            _ => None,
        };
        Ok(AlertPage { alerts, next })
    }

    async fn alert(&self, portal_id: PortalId, id: AlertId) -> StoreResult<Option<StoredAlert>> {
        let state = self.lock();
        Ok(state
            .alerts
            .get(&id)
            .filter(|(alert, _)| alert.portal_id == portal_id.get())
            .map(|(alert, version)| stored(&state, alert, *version)))
    }

    async fn replace_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool> {
        Ok(put_at(&mut self.lock(), version, alert))
    }
}

#[async_trait]
impl EscalationStore for MemoryStore {
    async fn due_alerts(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<StoredAlert>> {
        let state = self.lock();
        let mut due: Vec<StoredAlert> = state
            .alerts
            .values()
            .filter(|(alert, _)| alert.is_due(now))
            .map(|(alert, version)| stored(&state, alert, *version))
            .collect();
        due.sort_by_key(|stored| (stored.alert.next_step_at, stored.alert.id));
        due.truncate(limit);
        Ok(due)
    }

    async fn escalating_alerts(&self, limit: usize) -> StoreResult<Vec<Alert>> {
        let state = self.lock();
        Ok(state
            .alerts
            .values()
            .filter(|(alert, _)| {
                alert.status == crate::domain::AlertStatus::Open && alert.next_step_at.is_some()
            })
            .take(limit)
            .map(|(alert, _)| alert.clone())
            .collect())
    }

    async fn alert_to_step(
        &self,
        portal_id: PortalId,
        id: AlertId,
    ) -> StoreResult<Option<StoredAlert>> {
        AlertStore::alert(self, portal_id, id).await
    }

    async fn escalation_contacts(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>> {
        Ok(self
            .lock()
            .contact_details
            .values()
            .filter(|detail| detail.portal_id == portal_id.get())
            .cloned()
            .collect())
    }

    async fn step_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool> {
        Ok(put_at(&mut self.lock(), version, alert))
    }

    async fn open_test_alert(
        &self,
        alert: &Alert,
        day: chrono::NaiveDate,
    ) -> StoreResult<Option<StoredAlert>> {
        let mut state = self.lock();
        if !state.chain_tests.insert((alert.portal_id, day)) {
            return Ok(None);
        }
        let id = state.next_id(counters::ALERT, 1)?;
        let alert = Alert {
            id,
            ..alert.clone()
        };
        state.alerts.insert(AlertId(id), (alert.clone(), 1));
        Ok(Some(stored(&state, &alert, 1)))
    }
}
