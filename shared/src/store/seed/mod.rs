//! Loading a validated fixture into a store.

use async_trait::async_trait;

use crate::fixture::Seed;
use crate::store::StoreResult;

pub(crate) mod dynamo;
mod memory;

/// Loads a validated fixture; counters continue above the ids it holds.
#[async_trait]
pub trait SeedWriter: Send + Sync + 'static {
    async fn write_seed(&self, seed: &Seed) -> StoreResult<()>;
}
