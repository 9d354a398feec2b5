//! A portal's contact details and their editable part.

use async_trait::async_trait;

use crate::records::ContactDetail;
use crate::store::StoreResult;

use crate::ids::{ContactDetailId, PortalId};

pub(crate) mod dynamo;
mod memory;

/// The editable part of a contact detail (`PUT /contact-details/{id}` replaces all of it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContactDetailChanges {
    pub name: String,
    pub contact_number: Option<String>,
    pub contact_email: Option<String>,
    pub contact_between_start: Option<String>,
    pub contact_between_end: Option<String>,
    pub priority: i32,
    pub is_active: bool,
}

impl ContactDetailChanges {
    pub fn apply(&self, detail: &mut ContactDetail) {
        detail.name = Some(self.name.clone());
        detail.contact_number = self.contact_number.clone();
        detail.contact_email = self.contact_email.clone();
        detail.contact_between_start = self.contact_between_start.clone();
        detail.contact_between_end = self.contact_between_end.clone();
        detail.priority = self.priority;
        detail.is_active = self.is_active;
    }
}

/// The contact-details function's reads and writes, always within one portal.
#[async_trait]
pub trait ContactDetailStore: Send + Sync + 'static {
    /// Every contact detail of the portal, in no particular order.
    async fn contact_details(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>>;
    async fn contact_detail(
        &self,
        portal_id: PortalId,
        id: ContactDetailId,
    ) -> StoreResult<Option<ContactDetail>>;
    /// Replaces the editable fields; `None` when the portal has no such contact detail.
    async fn update_contact_detail(
        &self,
        portal_id: PortalId,
        id: ContactDetailId,
        changes: &ContactDetailChanges,
    ) -> StoreResult<Option<ContactDetail>>;
}
