//! Alerts: reading and acknowledging a portal's alerts (staff), and the escalation pass's view
//! of the alerts due for their next step (the scheduler).

use async_trait::async_trait;

use crate::domain::{Alert, AlertReason, AlertStatus};
use crate::ids::{AlertId, PortalId};
use crate::records::{ContactDetail, Timestamp};
use crate::store::{PageRequest, StoreResult};

mod dynamo;
mod memory;

/// An alert as read, with the version its next write is conditional on and its client's name
/// (`None` when the client is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAlert {
    pub alert: Alert,
    pub version: u64,
    pub client_name: Option<String>,
}

/// One page of a portal's alerts, by id; `next` is the id to continue after.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AlertPage {
    pub alerts: Vec<StoredAlert>,
    pub next: Option<AlertId>,
}

/// Which of a portal's alerts a list holds: without a field, any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AlertFilter {
    pub status: Option<AlertStatus>,
    pub reason: Option<AlertReason>,
    /// Whether the reader is an admin of the portal: only admins see the alerts about an
    /// account (`Alert::is_for_admins`), since the account may be the reader's own.
    pub admin: bool,
}

impl AlertFilter {
    /// Test alerts only when asked for by reason: never mixed with real ones.
    pub fn admits(&self, alert: &Alert) -> bool {
        (self.admin || !alert.is_for_admins())
            && self.status.is_none_or(|status| alert.status == status)
            && match self.reason {
                Some(reason) => alert.reason == reason,
                None => alert.reason != AlertReason::Test,
            }
    }
}

/// A list of a portal's alerts as staff ask for it: which alerts, and which page of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlertsRequest {
    pub filter: AlertFilter,
    pub page: PageRequest<AlertId>,
}

/// Staff's reads and the acknowledgement, always within one portal.
#[async_trait]
pub trait AlertStore: Send + Sync + 'static {
    /// The page of the portal's alerts that the request's filter admits, by id.
    async fn alerts(&self, portal_id: PortalId, request: AlertsRequest) -> StoreResult<AlertPage>;
    async fn alert(&self, portal_id: PortalId, id: AlertId) -> StoreResult<Option<StoredAlert>>;
    /// Writes `alert` over the stored one if that is still at `version`; `false` otherwise.
    async fn replace_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool>;
}

/// The escalation pass's reads and its conditional steps.
#[async_trait]
pub trait EscalationStore: Send + Sync + 'static {
    /// Open alerts whose next step is at or before `now`, oldest step first, at most `limit`.
    async fn due_alerts(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<StoredAlert>>;
    /// Every open alert with a step still to take, due or not, at most `limit`; read as the
    /// escalation index has it (eventually consistent), for the pass's count of alerts nobody
    /// was told of.
    async fn escalating_alerts(&self, limit: usize) -> StoreResult<Vec<Alert>>;
    /// One alert of the portal, to take its next step at once (a call's alert as it opens).
    async fn alert_to_step(
        &self,
        portal_id: PortalId,
        id: AlertId,
    ) -> StoreResult<Option<StoredAlert>>;
    /// Every contact detail of the portal, in any order.
    async fn escalation_contacts(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>>;
    /// Writes the alert's next step if it is still at `version` (not acknowledged, and not
    /// stepped by another pass meanwhile); `false` otherwise.
    async fn step_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool>;
    /// Opens the daily alarm-chain test's alert of its portal for `day` (the store gives its
    /// id), unless that portal's test of that day was opened already: `None` then, so that a
    /// retried pass never tests twice.
    async fn open_test_alert(
        &self,
        alert: &Alert,
        day: chrono::NaiveDate,
    ) -> StoreResult<Option<StoredAlert>>;
}
