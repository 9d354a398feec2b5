//! Unusual reading: the distinct clients each account opened in a period, counted as the
//! access layer writes its records, and the periods in which an account went over the
//! portal's threshold, which the scheduler raises as `unusual_access` alerts.

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};

use crate::domain::Alert;
use crate::ids::PortalId;
use crate::records::Timestamp;
use crate::store::{StoreResult, StoredAlert};

mod dynamo;
pub(crate) mod memory;

/// How many distinct clients one account may open in one period before its reads are refused
/// and the portal's admins are told, and how long a period is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadingRules {
    /// `UnusualReadingClients`.
    pub clients: usize,
    /// `UnusualReadingMinutes`.
    pub period: TimeDelta,
}

impl Default for ReadingRules {
    /// 150 clients an hour: docs/security.md, "Unusual reading", says how it was chosen.
    fn default() -> Self {
        Self {
            clients: 150,
            period: TimeDelta::hours(1),
        }
    }
}

impl ReadingRules {
    /// The period holding `now`: periods are aligned on the epoch, so every function and
    /// every instance of one agrees on where a period starts.
    pub fn period_at(&self, now: Timestamp) -> Period {
        let length = self.period.num_seconds().max(60);
        let start = now.timestamp().div_euclid(length) * length;
        let start = DateTime::<Utc>::from_timestamp(start, 0).unwrap_or(now);
        Period {
            start,
            end: start + TimeDelta::seconds(length),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: Timestamp,
    pub end: Timestamp,
}

/// The clients one request of an account opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub portal_id: PortalId,
    pub account_id: i32,
    pub period: Period,
    /// Not empty, each above 0.
    pub client_ids: Vec<i32>,
    /// When the request was made: the instant a period that goes over is filed with.
    pub at: Timestamp,
}

/// How many distinct clients the account had opened in the period before and after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCount {
    pub before: usize,
    pub after: usize,
}

impl ReadCount {
    /// Whether this request took the account over `threshold`: exactly one request of a
    /// period does, since the counts are kept with atomic updates.
    pub fn crossed(&self, threshold: usize) -> bool {
        self.before <= threshold && self.after > threshold
    }
}

/// A period in which an account went over the threshold, waiting for its alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusualReading {
    pub portal_id: i32,
    pub account_id: i32,
    pub period_start: Timestamp,
    /// When the account went over.
    pub at: Timestamp,
}

impl UnusualReading {
    /// The alert it raises.
    pub fn alert(&self) -> Alert {
        Alert::unusual_access(self.portal_id, self.account_id, self.at)
    }
}

/// The access layer's side: every function whose routes show clients' data to accounts.
#[async_trait]
pub trait ReadingWatch: Send + Sync + 'static {
    /// Adds the request's clients to what the account opened in the period and answers the
    /// counts before and after; the request that crosses `threshold` also files the period
    /// for the scheduler's alert.
    async fn note_reading(&self, reading: &Reading, threshold: usize) -> StoreResult<ReadCount>;
}

/// The scheduler's side: the periods waiting for their alert, and raising each once.
#[async_trait]
pub trait UnusualReadingStore: Send + Sync + 'static {
    /// Periods that went over and have no alert yet, at most `limit`.
    async fn unusual_readings(&self, limit: usize) -> StoreResult<Vec<UnusualReading>>;
    /// Opens the period's `unusual_access` alert (the store gives its id) unless it was
    /// opened already: `None` then, so that a retried pass never raises a second.
    async fn open_unusual_access_alert(
        &self,
        reading: &UnusualReading,
    ) -> StoreResult<Option<StoredAlert>>;
}
