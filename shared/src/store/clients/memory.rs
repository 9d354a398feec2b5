//! The in-memory store's side of this capability.

use crate::ids::{ClientId, PortalId};
use async_trait::async_trait;

use crate::domain::CallStats;
use crate::records::{Client, Timestamp};
use crate::store::memory::MemoryStore;
use crate::store::{ClientPage, ClientPageRequest, ClientStore, ClientUpdate, StoreResult};

#[async_trait]
impl ClientStore for MemoryStore {
    async fn has_client(&self, portal_id: PortalId, client_id: ClientId) -> StoreResult<bool> {
        Ok(self
            .lock()
            .clients
            .get(&client_id.get())
            .is_some_and(|client| client.portal_id == portal_id.get()))
    }

    async fn clients(
        &self,
        portal_id: PortalId,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage> {
        let portal_id = portal_id.get();
        let state = self.lock();
        let start = page
            .after
            .map_or(i32::MIN, |after| after.get().saturating_add(1));
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
            Some(_) => clients.last().map(|client| ClientId(client.id)),
            None => None,
        };
        Ok(ClientPage {
            clients,
            next_after,
        })
    }

    async fn update_client(&self, update: &ClientUpdate) -> StoreResult<Option<Client>> {
        let portal_id = update.portal_id.get();
        let mut state = self.lock();
        let Some(client) = state
            .clients
            .get_mut(&update.client_id.get())
            .filter(|client| client.portal_id == portal_id && !client.is_deleted)
        else {
            return Ok(None);
        };
        for (field, value) in &update.changes {
            field.apply(client, value.clone());
        }
        let client = client.clone();
        Ok(Some(state.client_view(&client, update.now)))
    }
}
