//! An organisation's clients (unknown-caller candidates) and fixing an unknown caller's call.

use async_trait::async_trait;

use crate::domain::CallStats;
use crate::records::{Client, ClientRequest, PhoneCall, Timestamp};
use crate::store::StoreResult;

use crate::ids::{CallId, ClientId, OrganisationId, PortalId};

pub(crate) mod dynamo;
mod memory;

/// The organisations function's reads: which organisation a portal belongs to, and the live
/// clients of all its portals (the candidates for an unknown caller).
#[async_trait]
pub trait OrganisationStore: Send + Sync + 'static {
    async fn organisation_of(&self, portal_id: PortalId) -> StoreResult<Option<OrganisationId>>;
    /// Every client of the organisation's portals that is not deleted, as seen at `now`.
    async fn organisation_clients(
        &self,
        organisation_id: OrganisationId,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>>;
    /// The call and the client that fixing would link, as they are now: `NoCall` when the call
    /// does not exist or belongs to another organisation's portal, `NoClient` when the client
    /// is not a live client of one of the organisation's portals.
    async fn fix_target(&self, fix: FixRequest, now: Timestamp) -> StoreResult<FixLookup>;
    /// Links the call and its client requests to the target client and its portal, marks the
    /// call known, moves the call's entry in the call statistics from its previous client (if
    /// any) to the new one, and sets the client's `primaryNumber` when given; all in one
    /// transaction. `ConditionFailed`, with nothing written, when the call, a request or either
    /// client changed since `fix_target` read them.
    async fn fix_call(&self, target: &FixTarget, primary_number: Option<&str>) -> StoreResult<()>;
}

/// A fix as asked for: the call to link, and the client to link it to, both to be found
/// within the organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixRequest {
    pub organisation_id: OrganisationId,
    pub call_id: CallId,
    pub client_id: ClientId,
}

/// What `fix_target` found.
#[derive(Debug, Clone, PartialEq)]
pub enum FixLookup {
    NoCall,
    NoClient,
    Found(Box<FixTarget>),
}

/// A fix as read: the call (without transcript) with its client requests, the client it is to
/// be linked to, and the client (portal and id) whose statistics count the call today when
/// that is another one.
#[derive(Debug, Clone, PartialEq)]
pub struct FixTarget {
    pub call: PhoneCall,
    pub requests: Vec<ClientRequest>,
    pub client: Client,
    pub previous_client: Option<(PortalId, ClientId)>,
}

impl FixTarget {
    /// The call as fixing leaves it.
    pub fn fixed_call(&self) -> PhoneCall {
        PhoneCall {
            client_id: self.client.id,
            portal_id: self.client.portal_id,
            is_unknown: false,
            transcript: None,
            ..self.call.clone()
        }
    }

    /// Whether the call's statistics entry has to leave `client_id` (it counted there before).
    pub fn counted_elsewhere(call: &PhoneCall, client_id: i32) -> bool {
        CallStats::counts(call) && call.client_id != client_id
    }
}
