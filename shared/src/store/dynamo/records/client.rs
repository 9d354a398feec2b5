//! A client as stored: the record beside its call history, and its national id's claim.

use crate::domain::CallStats;
use crate::records::{Client, Timestamp};
use crate::store::dynamo::items::{Item, data_keys, from_item, n, to_item};
use crate::store::dynamo::keys;
use crate::store::{StoreError, StoreResult};

pub(crate) const CALL_STATS: &str = "callStats";

/// A client as stored: the record (derived fields left empty) plus its call history.
pub(crate) fn client_item(client: &Client, stats: &CallStats) -> StoreResult<Item> {
    let stored = Client {
        total_calls: 0,
        last_call_at: None,
        call_length_in_seconds: 0,
        calls_last7_days: 0,
        ..client.clone()
    };
    let mut item = to_item(
        &stored,
        data_keys(
            keys::portal(client.portal_id),
            keys::client(client.id),
            None,
        ),
    )?;
    item.insert(
        CALL_STATS.into(),
        serde_dynamo::to_attribute_value(stats)
            .map_err(|e| StoreError::Corrupt(format!("cannot encode call stats: {e}")))?,
    );
    Ok(item)
}

/// A client as the API shows it: derived fields computed from its call history at `now`.
pub(crate) fn client_from_item(mut item: Item, now: Timestamp) -> StoreResult<Client> {
    let stats: CallStats = match item.remove(CALL_STATS) {
        Some(value) => serde_dynamo::from_attribute_value(value)
            .map_err(|e| StoreError::Corrupt(format!("call stats: {e}")))?,
        None => CallStats::default(),
    };
    let mut client: Client = from_item(item)?;
    stats.apply(&mut client, now);
    Ok(client)
}

pub(crate) fn national_id_claim(portal_id: i32, national_id: &str, client_id: i32) -> Item {
    let mut item = data_keys(
        keys::portal(portal_id),
        keys::national_id(national_id),
        None,
    );
    item.insert("clientId".into(), n(client_id));
    item
}
