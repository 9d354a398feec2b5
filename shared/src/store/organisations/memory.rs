//! The in-memory store's side of this capability.

use crate::ids::{ClientId, OrganisationId, PortalId};
use std::collections::HashSet;

use async_trait::async_trait;

use crate::records::{Client, Timestamp};
use crate::store::memory::MemoryStore;
use crate::store::{FixLookup, FixRequest, FixTarget, OrganisationStore, StoreError, StoreResult};

#[async_trait]
impl OrganisationStore for MemoryStore {
    async fn organisation_of(&self, portal_id: PortalId) -> StoreResult<Option<OrganisationId>> {
        let portal_id = portal_id.get();
        Ok(self
            .lock()
            .portals
            .get(&portal_id)
            .map(|portal| OrganisationId(portal.organisation_id)))
    }

    async fn organisation_clients(
        &self,
        organisation_id: OrganisationId,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>> {
        let organisation_id = organisation_id.get();
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

    async fn fix_target(&self, fix: FixRequest, now: Timestamp) -> StoreResult<FixLookup> {
        let organisation_id = fix.organisation_id.get();
        let call_id = fix.call_id.get();
        let client_id = fix.client_id.get();
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
            .map(|previous| (PortalId(previous.portal_id), ClientId(previous.id)));
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
