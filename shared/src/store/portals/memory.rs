//! The in-memory store's side of this capability.

use crate::ids::PortalId;
use std::collections::HashMap;

use async_trait::async_trait;

use crate::fixture::counters;
use crate::records::{Client, Portal};
use crate::store::memory::MemoryStore;
use crate::store::{
    ImportContext, ImportGuardSave, Imported, PortalStore, StoreError, StoreResult,
};

#[async_trait]
impl PortalStore for MemoryStore {
    async fn portal(&self, id: PortalId) -> StoreResult<Option<Portal>> {
        let id = id.get();
        Ok(self.lock().portals.get(&id).cloned())
    }

    async fn import_context(&self, portal_id: PortalId) -> StoreResult<ImportContext> {
        let portal_id = portal_id.get();
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

    async fn save_import_guard(&self, save: ImportGuardSave<'_>) -> StoreResult<()> {
        let portal_id = save.portal_id.get();
        let mut state = self.lock();
        let current = state.import_guards.get(&portal_id).map_or(0, |g| g.version);
        if current != save.read_version {
            return Err(StoreError::ConditionFailed);
        }
        state.import_guards.insert(portal_id, save.guard.clone());
        Ok(())
    }

    async fn import_clients(
        &self,
        portal_id: PortalId,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>> {
        let portal_id = portal_id.get();
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
