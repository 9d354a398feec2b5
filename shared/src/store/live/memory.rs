//! The caller context's reads on the in-memory store.

use async_trait::async_trait;

use crate::ids::{ClientId, PortalId};
use crate::store::ingest::OPEN_REQUEST;
use crate::store::live::CallerStore;
use crate::store::memory::MemoryStore;
use crate::store::{DueEntry, StoreResult};

#[async_trait]
impl CallerStore for MemoryStore {
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
}
