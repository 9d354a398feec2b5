//! Portals, their import guard, and importing clients by national id.

use async_trait::async_trait;

use crate::domain::SourcedEvent;

use crate::records::Portal;
use crate::store::StoreResult;

use crate::ids::PortalId;

pub(crate) mod dynamo;
mod memory;

/// Recent failed import attempts of one portal, each with the address it came from, and the
/// version that guards their update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportGuard {
    pub failures: Vec<SourcedEvent>,
    pub version: u64,
}

/// A portal's import guard as it becomes, written only while the stored one is still at
/// `read_version`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImportGuardSave<'a> {
    pub portal_id: PortalId,
    pub guard: &'a ImportGuard,
    pub read_version: u64,
}

/// What an import request needs before it may write: whether the portal exists, and its guard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportContext {
    pub portal: Option<Portal>,
    pub guard: ImportGuard,
}

/// A client the import made, or found already there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    Created { client_id: i32, national_id: String },
    Existing { client_id: i32, national_id: String },
}

/// The portals function's reads and writes.
#[async_trait]
pub trait PortalStore: Send + Sync + 'static {
    async fn portal(&self, id: PortalId) -> StoreResult<Option<Portal>>;
    /// The portal (if it exists) and its import guard, in one read.
    async fn import_context(&self, portal_id: PortalId) -> StoreResult<ImportContext>;
    /// Replaces the portal's guard; `ConditionFailed` when it changed since `read_version`.
    async fn save_import_guard(&self, save: ImportGuardSave<'_>) -> StoreResult<()>;
    /// Creates one client per national id (already normalised, no repeats) that the portal does
    /// not have yet, and reports the others as existing; ids come from one counter update.
    /// Idempotent under retries and concurrent identical requests.
    async fn import_clients(
        &self,
        portal_id: PortalId,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>>;
}
