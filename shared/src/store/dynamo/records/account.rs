//! A staff account as stored: the record beside its portal's organisation.

/// The attribute of an account item that holds its portal's organisation, written at seed
/// time: portals never change organisation through the API, and a login reads one item.
pub(crate) const ACCOUNT_ORGANISATION: &str = "organisationId";
