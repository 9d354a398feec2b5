//! Budgets a stranger cannot spend for somebody else: events (a login code sent, a failed
//! import secret) counted per source network in a sliding window, under a cap for all
//! networks together.

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::records::Timestamp;
use crate::source::SourceNetwork;

/// Something a request from `source` caused at `at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourcedEvent {
    pub at: Timestamp,
    pub source: SourceNetwork,
}

/// At most `per_source` events from one network and `total` from all networks within
/// `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourcedBudget {
    pub per_source: usize,
    pub total: usize,
    pub window: TimeDelta,
}

impl SourcedBudget {
    /// The events still inside the window at `now`, oldest first.
    pub fn recent(
        &self,
        events: impl IntoIterator<Item = SourcedEvent>,
        now: Timestamp,
    ) -> Vec<SourcedEvent> {
        let mut recent: Vec<SourcedEvent> = events
            .into_iter()
            .filter(|event| event.at > now - self.window && event.at <= now)
            .collect();
        recent.sort_by_key(|event| event.at);
        recent
    }

    /// `Ok` when `source` may cause one more event beside `recent` (from `Self::recent`);
    /// otherwise the 429 (with `per_source_detail` or `total_detail`) that waits until the
    /// oldest event that counts leaves the window.
    pub fn check(
        &self,
        recent: &[SourcedEvent],
        source: &SourceNetwork,
        now: Timestamp,
        per_source_detail: &str,
        total_detail: &str,
    ) -> Result<(), ApiError> {
        self.check_source(recent, source, now, per_source_detail)?;
        self.check_total(recent, now, total_detail)
    }

    /// The per-network half of `check` alone.
    pub fn check_source(
        &self,
        recent: &[SourcedEvent],
        source: &SourceNetwork,
        now: Timestamp,
        detail: &str,
    ) -> Result<(), ApiError> {
        let from_source: Vec<Timestamp> = recent
            .iter()
            .filter(|event| &event.source == source)
            .map(|event| event.at)
            .collect();
        self.within(&from_source, self.per_source, now, detail)
    }

    /// The all-networks half of `check` alone.
    pub fn check_total(
        &self,
        recent: &[SourcedEvent],
        now: Timestamp,
        detail: &str,
    ) -> Result<(), ApiError> {
        let all: Vec<Timestamp> = recent.iter().map(|event| event.at).collect();
        self.within(&all, self.total, now, detail)
    }

    fn within(
        &self,
        times: &[Timestamp],
        max: usize,
        now: Timestamp,
        detail: &str,
    ) -> Result<(), ApiError> {
        if times.len() < max {
            return Ok(());
        }
        let free_at = times[times.len() - max] + self.window;
        let wait = (free_at - now).num_milliseconds().max(0);
        Err(ApiError::TooManyRequests {
            detail: detail.into(),
            retry_after_secs: u64::try_from((wait + 999) / 1000).unwrap_or(1).max(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: SourcedBudget = SourcedBudget {
        per_source: 2,
        total: 3,
        window: TimeDelta::minutes(15),
    };

    fn event(now: Timestamp, minutes_ago: i64, source: &str) -> SourcedEvent {
        SourcedEvent {
            at: now - TimeDelta::minutes(minutes_ago),
            source: network(source),
        }
    }

    fn network(last: &str) -> SourceNetwork {
        let address = if last.contains('.') {
            last.to_string()
        } else {
            format!("192.0.2.{}", last.as_bytes()[0])
        };
        SourceNetwork::of(address.parse().unwrap())
    }

    #[test]
    fn only_events_inside_the_window_count() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let failure = |minutes_ago| event(now, minutes_ago, "192.0.2.1");
        let events = vec![failure(0), failure(20), failure(15), failure(14)];
        assert_eq!(BUDGET.recent(events, now), [failure(14), failure(0)]);
    }

    #[test]
    fn a_busy_address_is_refused_before_the_cap_for_all() {
        let now: Timestamp = "2026-11-20T12:00:00Z".parse().unwrap();
        let recent = [event(now, 10, "a"), event(now, 5, "a")];
        let refused = BUDGET.check(&recent, &network("a"), now, "address", "all");
        assert!(matches!(
            refused,
            Err(ApiError::TooManyRequests { ref detail, retry_after_secs: 300 }) if detail == "address"
        ));
        assert!(
            BUDGET
                .check(&recent, &network("b"), now, "address", "all")
                .is_ok()
        );
        let recent = [event(now, 10, "a"), event(now, 5, "b"), event(now, 1, "c")];
        let capped = BUDGET.check(&recent, &network("d"), now, "address", "all");
        assert!(matches!(
            capped,
            Err(ApiError::TooManyRequests { ref detail, .. }) if detail == "all"
        ));
    }
}
