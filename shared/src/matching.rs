//! The unknown-caller matcher (the `matcher` crate) fed with the service's client records.

use matcher::ClientFields;
use matcher::index::ClientIndex;

use crate::records::{Client, Timestamp};

impl Client {
    /// The fields the matcher reads, borrowed from the record.
    pub fn matcher_fields(&self) -> ClientFields<'_> {
        ClientFields {
            id: self.id,
            portal_id: self.portal_id,
            is_deleted: self.is_deleted,
            name: self.name.as_deref(),
            phone: self.phone.as_deref(),
            primary_number: self.primary_number.as_deref(),
            national_id: self.national_id.as_deref(),
            street: self.street.as_deref(),
            zip_code: self.zip_code.as_deref(),
            city: self.city.as_deref(),
            memory: self.memory.as_deref(),
            about: self.about.as_deref(),
        }
    }
}

/// The matcher's index over the live clients among `clients`, as of `now`.
pub fn client_index<'a>(
    clients: impl IntoIterator<Item = &'a Client>,
    now: Timestamp,
) -> ClientIndex {
    ClientIndex::build(clients.into_iter().map(Client::matcher_fields), now)
}
