//! The in-memory store's side of this capability: records and reviews by id, appended under
//! the store's one lock.

use async_trait::async_trait;

use crate::ids::{ClientId, PortalId};
use crate::records::Timestamp;
use crate::store::access_log::{
    AccessLogReader, AccessLogWriter, AccessRecord, LogQuery, Page, Review, page_of, sort_time,
};
use crate::store::memory::MemoryStore;
use crate::store::{StoreError, StoreResult};

/// Newest first, with ids in `[low, high)`.
fn in_range<'a, T: 'a>(
    items: impl DoubleEndedIterator<Item = (&'a String, &'a T)>,
    (low, high): (String, String),
) -> impl Iterator<Item = &'a T> {
    items
        .rev()
        .filter(move |(id, _)| **id >= low && **id < high)
        .map(|(_, item)| item)
}

#[async_trait]
impl AccessLogWriter for MemoryStore {
    async fn append(&self, records: &[AccessRecord]) -> StoreResult<()> {
        let mut state = self.lock();
        for record in records {
            state
                .access_records
                .entry(record.id.clone())
                .or_insert_with(|| record.clone());
        }
        Ok(())
    }
}

#[async_trait]
impl AccessLogReader for MemoryStore {
    async fn portal_log(
        &self,
        portal_id: PortalId,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>> {
        let state = self.lock();
        let found = in_range(state.access_records.iter(), query.id_range())
            .filter(|record| query.admits(record, portal_id))
            .cloned()
            .collect();
        Ok(page_of(found, query.limit, |record| &record.id))
    }

    async fn client_log(
        &self,
        client_id: ClientId,
        portal_id: Option<PortalId>,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>> {
        let state = self.lock();
        let found = in_range(state.access_records.iter(), query.id_range())
            .filter(|record| record.client_ids.contains(&client_id.get()))
            .filter(|record| query.admits(record, portal_id.unwrap_or(PortalId(record.portal_id))))
            .map(|record| record.for_client(client_id.get()))
            .collect();
        Ok(page_of(found, query.limit, |record| &record.id))
    }

    async fn record_ids(
        &self,
        portal_id: PortalId,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<String>> {
        let (low, high) = (sort_time(from), sort_time(to));
        if low >= high {
            return Ok(Vec::new());
        }
        Ok(self
            .lock()
            .access_records
            .range(low..high)
            .filter(|(_, record)| record.portal_id == portal_id.get())
            .map(|(id, _)| id.clone())
            .collect())
    }

    async fn records(&self, portal_id: PortalId, ids: &[String]) -> StoreResult<Vec<AccessRecord>> {
        let state = self.lock();
        let mut found: Vec<AccessRecord> = ids
            .iter()
            .filter_map(|id| state.access_records.get(id))
            .filter(|record| record.portal_id == portal_id.get())
            .cloned()
            .collect();
        found.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(found)
    }

    async fn add_review(&self, review: &Review) -> StoreResult<()> {
        let mut state = self.lock();
        if state.reviews.contains_key(&review.id) {
            return Err(StoreError::ConditionFailed);
        }
        state.reviews.insert(review.id.clone(), review.clone());
        Ok(())
    }

    async fn reviews(&self, portal_id: PortalId, query: &LogQuery) -> StoreResult<Page<Review>> {
        let state = self.lock();
        let found = in_range(state.reviews.iter(), query.cursor_range())
            .filter(|review| review.portal_id == portal_id.get())
            .cloned()
            .collect();
        Ok(page_of(found, query.limit, |review| &review.id))
    }
}
