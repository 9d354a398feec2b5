//! A portal's clients: pages, and the fields staff may change.

use async_trait::async_trait;

use crate::records::{Client, Timestamp};
use crate::store::{PageRequest, StoreResult};

use crate::ids::{ClientId, PortalId};

pub(crate) mod dynamo;
mod memory;

/// Which page of a portal's clients to read.
pub type ClientPageRequest = PageRequest<ClientId>;

/// A page of clients by id, with the id to continue after when more follow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientPage {
    pub clients: Vec<Client>,
    pub next_after: Option<ClientId>,
}

/// The client fields staff may change (`PATCH /clients/{id}`), by their wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientField {
    Name,
    Phone,
    City,
    Street,
    Country,
    ZipCode,
    Language,
}

impl ClientField {
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Phone => "phone",
            Self::City => "city",
            Self::Street => "street",
            Self::Country => "country",
            Self::ZipCode => "zipCode",
            Self::Language => "language",
        }
    }

    pub fn apply(self, client: &mut Client, value: Option<String>) {
        let slot = match self {
            Self::Name => &mut client.name,
            Self::Phone => &mut client.phone,
            Self::City => &mut client.city,
            Self::Street => &mut client.street,
            Self::Country => &mut client.country,
            Self::ZipCode => &mut client.zip_code,
            Self::Language => &mut client.language,
        };
        *slot = value;
    }
}

/// Validated changes to a client: each field set to a value, or to null (`None`).
pub type ClientChanges = Vec<(ClientField, Option<String>)>;

/// A change of one client of a portal, made at `now` (the instant the returned client's
/// derived fields are computed for).
#[derive(Debug, Clone, PartialEq)]
pub struct ClientUpdate {
    pub portal_id: PortalId,
    pub client_id: ClientId,
    pub changes: ClientChanges,
    pub now: Timestamp,
}

/// The clients function's reads and writes, always within one portal.
#[async_trait]
pub trait ClientStore: Send + Sync + 'static {
    /// The portal's clients that are not deleted, by id, derived fields computed for `now`.
    async fn clients(
        &self,
        portal_id: PortalId,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage>;
    /// Sets only the given fields (no read-modify-write of the record) and returns the client;
    /// `None` when the portal has no such client, or it is deleted.
    async fn update_client(&self, update: &ClientUpdate) -> StoreResult<Option<Client>>;
    /// Whether the portal has (or had: deleted ones count) this client.
    async fn has_client(&self, portal_id: PortalId, client_id: ClientId) -> StoreResult<bool>;
}
