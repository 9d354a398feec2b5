//! The in-memory store's side of this capability.

use crate::ids::{ContactDetailId, PortalId};
use async_trait::async_trait;

use crate::records::ContactDetail;
use crate::store::memory::MemoryStore;
use crate::store::{ContactDetailEdit, ContactDetailStore, ContactDetailUpdate, StoreResult};

#[async_trait]
impl ContactDetailStore for MemoryStore {
    async fn contact_details(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>> {
        let portal_id = portal_id.get();
        Ok(self
            .lock()
            .contact_details
            .values()
            .filter(|detail| detail.portal_id == portal_id)
            .cloned()
            .collect())
    }

    async fn contact_detail(
        &self,
        portal_id: PortalId,
        id: ContactDetailId,
    ) -> StoreResult<Option<ContactDetail>> {
        let portal_id = portal_id.get();
        Ok(self
            .lock()
            .contact_details
            .get(&id.get())
            .filter(|detail| detail.portal_id == portal_id)
            .cloned())
    }

    async fn update_contact_detail(
        &self,
        edit: ContactDetailEdit<'_>,
    ) -> StoreResult<Option<ContactDetailUpdate>> {
        let portal_id = edit.portal_id.get();
        let mut state = self.lock();
        Ok(state
            .contact_details
            .get_mut(&edit.id.get())
            .filter(|detail| detail.portal_id == portal_id)
            .map(|detail| {
                let before = detail.clone();
                edit.changes.apply(detail);
                ContactDetailUpdate {
                    before,
                    after: detail.clone(),
                }
            }))
    }
}
