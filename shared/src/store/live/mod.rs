//! What a live call needs from the store before and while the agent talks: how many requests
//! a client has open and which questionnaire entries are waiting for them.

pub(crate) mod dynamo;
pub(crate) mod memory;

use async_trait::async_trait;

use crate::ids::{ClientId, PortalId};
use crate::store::{DueEntry, StoreResult};

/// The caller context's reads, always within the portal that signed the request.
#[async_trait]
pub trait CallerStore: Send + Sync + 'static {
    /// How many of the client's requests are still open (nobody has answered them).
    async fn open_request_count(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<usize>;
    /// The client's open questionnaire entries in this portal (at most one per
    /// questionnaire), as stored, with any attempt a scheduler pass holds.
    async fn open_entries(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<Vec<DueEntry>>;
}
