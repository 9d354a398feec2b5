//! A dialler double that records every attempt before the real dialler gets it.

use std::sync::{Arc, Mutex};

use shared::notify::{Dialler, DiallerMessage};
use shared::store::BoxError;

/// Every attempt a scheduler hands to the dialler, recorded before the real dialler (outbox or
/// SQS) gets it, so a test sees a second send even where the queue would drop it.
#[derive(Clone)]
pub struct RecordingDialler {
    inner: Arc<dyn Dialler>,
    sent: Arc<Mutex<Vec<DiallerMessage>>>,
}

impl RecordingDialler {
    pub fn new(inner: Arc<dyn Dialler>) -> Self {
        Self {
            inner,
            sent: Arc::default(),
        }
    }

    pub fn sent(&self) -> Vec<DiallerMessage> {
        self.sent.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Dialler for RecordingDialler {
    async fn dial(&self, messages: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        self.sent.lock().unwrap().extend_from_slice(messages);
        // Lets a concurrent pass run between this pass's claims and its send.
        tokio::task::yield_now().await;
        self.inner.dial(messages).await
    }
}
