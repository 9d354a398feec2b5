//! The call statistics behind a client's derived fields (`totalCalls`, `lastCallAt`,
//! `callLengthInSeconds`, `callsLast7Days`).

use std::collections::{BTreeMap, HashMap};

use crate::records::{Client, PhoneCall, Timestamp};

/// How long a call counts towards `callsLast7Days`.
pub const RECENT_CALL_WINDOW: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// The call history behind a client's derived fields. Counted: every call linked to the client
/// that is not a leg connected to another call (a transfer continues the same conversation)
/// and not still marked unknown. `callLengthInSeconds` is the total talk time of those calls.
///
/// Kept per call (id -> start and length) rather than as running totals, so that a call can
/// be taken away from a client again (re-fixing an unknown caller) with an exact result, and
/// so that writing one call's entry twice (a retried write) counts it once.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct CallStats {
    pub calls: BTreeMap<String, CountedCall>,
}

/// One counted call: its start (Unix milliseconds) and its length in seconds. A pair rather
/// than a record, to keep a client item small: about 20 bytes per call.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CountedCall(pub i64, pub i32);

impl CountedCall {
    /// The entry of a call that counts, `None` for one that does not.
    pub fn of(call: &PhoneCall) -> Option<Self> {
        CallStats::counts(call).then(|| {
            let seconds = call
                .end_date
                .map_or(0, |end| (end - call.start_date).num_seconds().max(0));
            Self(
                call.start_date.timestamp_millis(),
                i32::try_from(seconds).unwrap_or(i32::MAX),
            )
        })
    }

    pub fn start(self) -> Option<Timestamp> {
        chrono::DateTime::from_timestamp_millis(self.0)
    }

    /// The key of a call in a client's stats.
    pub fn key(call_id: i32) -> String {
        call_id.to_string()
    }
}

impl CallStats {
    pub fn counts(call: &PhoneCall) -> bool {
        call.client_id > 0 && call.connected_to.is_none() && !call.is_unknown
    }

    /// The stats of every client with counted calls among `calls`.
    pub fn of_calls<'a>(calls: impl IntoIterator<Item = &'a PhoneCall>) -> HashMap<i32, Self> {
        let mut stats: HashMap<i32, Self> = HashMap::new();
        for call in calls {
            if let Some(counted) = CountedCall::of(call) {
                stats
                    .entry(call.client_id)
                    .or_default()
                    .calls
                    .insert(CountedCall::key(call.id), counted);
            }
        }
        stats
    }

    /// Writes the derived fields into the client as they stand at `now`.
    pub fn apply(&self, client: &mut Client, now: Timestamp) {
        let starts = || self.calls.values().filter_map(|call| call.start());
        client.total_calls = i32::try_from(self.calls.len()).unwrap_or(i32::MAX);
        client.call_length_in_seconds = self
            .calls
            .values()
            .fold(0i32, |total, call| total.saturating_add(call.1));
        client.last_call_at = starts().max();
        let recent = starts()
            .filter(|start| *start > now - RECENT_CALL_WINDOW && *start <= now)
            .count();
        client.calls_last7_days = i32::try_from(recent).unwrap_or(i32::MAX);
    }
}
