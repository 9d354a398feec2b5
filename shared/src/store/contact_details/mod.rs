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

/// A replaced contact detail: as it was, and as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactDetailUpdate {
    pub before: ContactDetail,
    pub after: ContactDetail,
}

impl ContactDetailUpdate {
    /// The number that could receive the portal's alerts before and no longer can: the
    /// detail's number changed, or the detail was deactivated. Any active number can: an
    /// urgent alert with nobody inside a window goes to every active contact with one.
    pub fn number_dropped(&self) -> Option<&str> {
        let before = alert_number(&self.before)?;
        (alert_number(&self.after) != Some(before)).then_some(before)
    }
}

/// The number the portal's alerts may reach through this detail, if any.
fn alert_number(detail: &ContactDetail) -> Option<&str> {
    detail
        .contact_number
        .as_deref()
        .filter(|_| detail.is_active)
}

impl ContactDetailChanges {
    /// The detail as it is after these changes.
    pub fn applied(&self, mut detail: ContactDetail) -> ContactDetail {
        self.apply(&mut detail);
        detail
    }

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

/// A replacement of one contact detail's editable fields, within a portal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactDetailEdit<'a> {
    pub portal_id: PortalId,
    pub id: ContactDetailId,
    pub changes: &'a ContactDetailChanges,
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
    /// Replaces the editable fields in one write, answering the detail as it was and as it is;
    /// `None` when the portal has no such contact detail.
    async fn update_contact_detail(
        &self,
        edit: ContactDetailEdit<'_>,
    ) -> StoreResult<Option<ContactDetailUpdate>>;
}
