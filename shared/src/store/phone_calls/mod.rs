//! Reading a call with its transcript and connected legs, and a call's client requests.

use async_trait::async_trait;

use crate::records::{ClientRequest, PhoneCall};
use crate::store::StoreResult;

use crate::ids::CallId;

pub(crate) mod dynamo;
mod memory;

/// The phone-calls function's reads.
#[async_trait]
pub trait PhoneCallReader: Send + Sync + 'static {
    /// The call with its transcript, then the calls connected to it (each with transcript),
    /// in the order the interface gives; `None` when the call does not exist.
    async fn call_with_connected(&self, call_id: CallId) -> StoreResult<Option<Vec<PhoneCall>>>;
    /// The call (without transcript) and its client requests by id.
    async fn call_requests(
        &self,
        call_id: CallId,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>>;
}
