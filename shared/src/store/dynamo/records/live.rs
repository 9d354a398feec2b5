//! A call in progress as stored: its `LIVE#` item, with the version its next write is
//! conditional on.

use crate::store::StoreResult;
use crate::store::dynamo::items::{Item, from_item, version_of};
use crate::store::live::LiveCall;

/// The live state of a `LIVE#` item.
pub(crate) fn live_from_item(mut item: Item) -> StoreResult<(LiveCall, u64)> {
    let version = version_of(&item)?;
    item.remove("version");
    Ok((from_item(item)?, version))
}
