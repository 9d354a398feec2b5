//! The in-memory store's side of this capability.

use crate::ids::CallId;
use async_trait::async_trait;

use crate::domain::order_thread;
use crate::records::{ClientRequest, PhoneCall};
use crate::store::memory::MemoryStore;
use crate::store::{PhoneCallReader, StoreResult};

#[async_trait]
impl PhoneCallReader for MemoryStore {
    async fn call_with_connected(&self, call_id: CallId) -> StoreResult<Option<Vec<PhoneCall>>> {
        let call_id = call_id.get();
        let state = self.lock();
        let with_transcript = |call: &PhoneCall| PhoneCall {
            transcript: Some(state.lines.get(&call.id).cloned().unwrap_or_default()),
            ..call.clone()
        };
        let Some(root) = state.calls.get(&call_id) else {
            return Ok(None);
        };
        let connected = state
            .calls
            .values()
            .filter(|call| call.connected_to == Some(call_id))
            .map(with_transcript)
            .collect();
        Ok(Some(order_thread(with_transcript(root), connected)))
    }

    async fn call_requests(
        &self,
        call_id: CallId,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>> {
        let call_id = call_id.get();
        let state = self.lock();
        Ok(state.calls.get(&call_id).map(|call| {
            let mut requests = state.requests.get(&call_id).cloned().unwrap_or_default();
            requests.sort_by_key(|request| request.id);
            (call.clone(), requests)
        }))
    }
}
