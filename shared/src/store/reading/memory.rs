//! The in-memory store's side of this capability: each account's clients of a period in a set,
//! under the store's one lock.

use std::collections::HashSet;

use async_trait::async_trait;

use crate::fixture::counters;
use crate::ids::AlertId;
use crate::records::Timestamp;
use crate::store::memory::MemoryStore;
use crate::store::reading::{
    ReadCount, Reading, ReadingWatch, UnusualReading, UnusualReadingStore,
};
use crate::store::{StoreResult, StoredAlert};

/// One account's period.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watched {
    clients: HashSet<i32>,
    /// When it went over, until its alert is opened.
    over_at: Option<Timestamp>,
    alert_opened: bool,
}

#[async_trait]
impl ReadingWatch for MemoryStore {
    async fn note_reading(&self, reading: &Reading, threshold: usize) -> StoreResult<ReadCount> {
        let mut state = self.lock();
        let watched = state
            .readings
            .entry((
                reading.portal_id.get(),
                reading.account_id,
                reading.period.start,
            ))
            .or_default();
        let before = watched.clients.len();
        watched.clients.extend(&reading.client_ids);
        let count = ReadCount {
            before,
            after: watched.clients.len(),
        };
        if count.crossed(threshold) {
            watched.over_at = Some(reading.at);
        }
        Ok(count)
    }
}

#[async_trait]
impl UnusualReadingStore for MemoryStore {
    async fn unusual_readings(&self, limit: usize) -> StoreResult<Vec<UnusualReading>> {
        let state = self.lock();
        let mut found: Vec<UnusualReading> = state
            .readings
            .iter()
            .filter(|(_, watched)| !watched.alert_opened)
            .filter_map(|(&(portal_id, account_id, period_start), watched)| {
                Some(UnusualReading {
                    portal_id,
                    account_id,
                    period_start,
                    at: watched.over_at?,
                })
            })
            .collect();
        found.sort_by_key(|reading| (reading.at, reading.portal_id, reading.account_id));
        found.truncate(limit);
        Ok(found)
    }

    async fn open_unusual_access_alert(
        &self,
        reading: &UnusualReading,
    ) -> StoreResult<Option<StoredAlert>> {
        let mut state = self.lock();
        let key = (reading.portal_id, reading.account_id, reading.period_start);
        match state.readings.get(&key) {
            Some(watched) if watched.over_at.is_some() && !watched.alert_opened => {}
            _ => return Ok(None),
        }
        let id = state.next_id(counters::ALERT, 1)?;
        let alert = crate::domain::Alert {
            id,
            ..reading.alert()
        };
        state.alerts.insert(AlertId(id), (alert.clone(), 1));
        if let Some(watched) = state.readings.get_mut(&key) {
            watched.alert_opened = true;
        }
        Ok(Some(StoredAlert {
            alert,
            version: 1,
            client_name: None,
        }))
    }
}
