//! The access log of clients' personal data (HSLF-FS 2016:40 ch. 4): its records, the
//! append-only writer every data function holds, and the reads and reviews only the
//! access-log function has.
//!
//! A record is written once and never changed: the only write is a put conditional on its key
//! being new. One request leaves one record per `MAX_CLIENTS_PER_RECORD` clients it touched,
//! and, for each client, a copy under the client (the client's log extract), written together.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::{ClientId, PortalId};
use crate::records::Timestamp;
use crate::store::StoreResult;

pub(crate) mod dynamo;
mod memory;

/// How long a record is kept: five years (HSLF-FS 2016:40 ch. 4 § 9's minimum, with two leap
/// days) and thirty days for an operator's last export. Records carry their purge time from
/// the moment they are written, and nothing can change a record after that.
pub const RETENTION: Duration = Duration::days(5 * 365 + 2 + 30);

/// Client ids one record lists; a request touching more (a list of a very large portal)
/// leaves one record per this many, so that no record nears DynamoDB's 400 KB item limit.
pub const MAX_CLIENTS_PER_RECORD: usize = 5_000;

/// Who made an access.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Accessor {
    /// A staff member or admin, by their session.
    #[serde(rename_all = "camelCase")]
    Account { account_id: i32, name: String },
    /// An integration holding the portal's import secret.
    ImportSecret,
    /// The voice platform, by a signed delivery.
    VoicePlatform,
    /// The questionnaire scheduler, messaging an alert's final-outpost contacts.
    Scheduler,
    /// The triage of a call as it is ingested, messaging the contacts of the alert it opened.
    Triage,
}

impl Accessor {
    pub fn of(caller: &crate::auth::Caller) -> Self {
        Self::Account {
            account_id: caller.account_id.get(),
            name: caller.account_name.clone(),
        }
    }

    fn account_id(&self) -> Option<i32> {
        match self {
            Self::Account { account_id, .. } => Some(*account_id),
            _ => None,
        }
    }
}

/// What was done with clients' data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub enum Action {
    /// `GET /phone-calls/{id}`: calls with their transcripts.
    #[serde(rename = "call.read")]
    ReadCall,
    /// `GET /phone-calls/{id}/requests`.
    #[serde(rename = "call.requests.read")]
    ReadCallRequests,
    /// `GET /clients`: every client listed.
    #[serde(rename = "clients.list")]
    ListClients,
    /// `PATCH /clients/{id}`.
    #[serde(rename = "client.update")]
    UpdateClient,
    /// `POST /organisations/suggest-unknown-client`: the candidates shown.
    #[serde(rename = "client.suggest")]
    SuggestClient,
    /// `POST /organisations/fix-unknown-client`.
    #[serde(rename = "call.fix")]
    FixCall,
    /// `GET /questionnaires/{id}`: the clients whose entries and answers were shown.
    #[serde(rename = "questionnaire.read")]
    ReadQuestionnaire,
    /// `POST /questionnaires/{id}/start-for-clients`.
    #[serde(rename = "questionnaire.start")]
    StartQuestionnaire,
    /// An alert's SMS to final-outpost contacts (the scheduler): the client's name and what
    /// happened, disclosed outside the organisation.
    #[serde(rename = "alert.notify")]
    NotifyContacts,
    /// `GET /alerts`: the clients of the alerts listed.
    #[serde(rename = "alerts.list")]
    ListAlerts,
    /// `GET /alerts/{id}`.
    #[serde(rename = "alert.read")]
    ReadAlert,
    /// `POST /alerts/{id}/acknowledge`.
    #[serde(rename = "alert.acknowledge")]
    AcknowledgeAlert,
    /// `POST /portals/import-clients`: each client created or found.
    #[serde(rename = "clients.import")]
    ImportClients,
    /// A voice-platform delivery writing a client's call.
    #[serde(rename = "call.ingest")]
    IngestCall,
    /// `POST /integrations/voice/inbound` (and its provider shapes): what the agent is told
    /// about a known caller before it answers.
    #[serde(rename = "call.context")]
    CallerContext,
    /// `POST /integrations/voice/tools` (and its provider shapes): a request written down or
    /// an emergency reported for a client during a live call.
    #[serde(rename = "call.tool")]
    ToolCall,
    /// `PUT /contact-details/{id}`: a change of the numbers the portal's alerts go to (no
    /// client's data; a staff member's attempt is a denial).
    #[serde(rename = "contact-detail.update")]
    UpdateContactDetail,
    /// `GET /access-log/clients/{id}`.
    #[serde(rename = "access-log.client.read")]
    ReadClientLog,
    /// `GET /access-log`.
    #[serde(rename = "access-log.read")]
    ReadLog,
    /// `POST /access-log/reviews`.
    #[serde(rename = "access-log.review")]
    RecordReview,
    /// `GET /access-log/reviews`.
    #[serde(rename = "access-log.reviews.read")]
    ReadReviews,
}

impl Action {
    /// Whether the action opens the records of the clients it names one by one (a call, its
    /// requests, an alert, a client's change or log), which is what unusual reading counts.
    /// Lists are not counted: the client list is every staff member's working view, and
    /// counting each client on it would trip the threshold at the first look
    /// (docs/security.md, "Unusual reading").
    pub fn opens_clients(self) -> bool {
        matches!(
            self,
            Self::ReadCall
                | Self::ReadCallRequests
                | Self::UpdateClient
                | Self::FixCall
                | Self::ReadAlert
                | Self::AcknowledgeAlert
                | Self::ReadClientLog
        )
    }
}

/// Whether the access was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Allowed,
    /// Answered 403: the caller reached existing data it may not see or change.
    Denied,
}

/// One access: who, in which portal (the unit), did what to which clients and calls, when,
/// and what the answer was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "id": "2026-11-23T09:15:02.123456Z#3f1c0d4e-8a55-4a55-9a39-0c7c2b8d3e11#0",
    "at": "2026-11-23T09:15:02.123456Z", "portalId": 1,
    "accessor": {"kind": "account", "accountId": 1, "name": "Karin Berg"},
    "action": "call.read", "clientIds": [3], "callIds": [12, 13], "status": 200,
    "outcome": "allowed", "traceId": "3f1c0d4e-8a55-4a55-9a39-0c7c2b8d3e11"
}))]
pub struct AccessRecord {
    /// Unique, and in time order: the time, the trace id and the part.
    pub id: String,
    pub at: DateTime<Utc>,
    /// The accessor's portal.
    pub portal_id: i32,
    pub accessor: Accessor,
    pub action: Action,
    pub client_ids: Vec<i32>,
    pub call_ids: Vec<i32>,
    /// The HTTP status the request was answered with.
    pub status: u16,
    pub outcome: Outcome,
    pub trace_id: String,
}

/// What a request did, before the log gives it its time and id.
#[derive(Debug, Clone, PartialEq)]
pub struct Access {
    /// The portal the access was made in (the unit).
    pub portal_id: PortalId,
    pub accessor: Accessor,
    pub action: Action,
    pub client_ids: Vec<i32>,
    pub call_ids: Vec<i32>,
}

impl Access {
    /// The records this access leaves: one per `MAX_CLIENTS_PER_RECORD` clients (one when it
    /// touched none), in order, with ids that sort by time.
    pub fn records(self, at: Timestamp, status: u16, trace_id: &str) -> Vec<AccessRecord> {
        let mut clients = self.client_ids;
        // 0 is "no client" on a call (an unknown caller).
        clients.retain(|id| *id > 0);
        clients.sort_unstable();
        clients.dedup();
        let mut calls = self.call_ids;
        calls.sort_unstable();
        calls.dedup();
        let parts: Vec<Vec<i32>> = if clients.is_empty() {
            vec![Vec::new()]
        } else {
            clients
                .chunks(MAX_CLIENTS_PER_RECORD)
                .map(<[i32]>::to_vec)
                .collect()
        };
        let outcome = if status == 403 {
            Outcome::Denied
        } else {
            Outcome::Allowed
        };
        parts
            .into_iter()
            .enumerate()
            .map(|(part, client_ids)| AccessRecord {
                id: format!("{}#{trace_id}#{part}", sort_time(at)),
                at,
                portal_id: self.portal_id.get(),
                accessor: self.accessor.clone(),
                action: self.action,
                client_ids,
                call_ids: calls.clone(),
                status,
                outcome,
                trace_id: trace_id.to_string(),
            })
            .collect()
    }
}

/// A time as the start of a record id: fixed width, so ids sort by time as text.
pub fn sort_time(at: Timestamp) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// A record as one client's extract lists it: only that client among its clients.
impl AccessRecord {
    pub fn for_client(&self, client_id: i32) -> Self {
        Self {
            client_ids: vec![client_id],
            ..self.clone()
        }
    }
}

/// Which records a log query returns: a time range (from inclusive, to exclusive), newest
/// first, optionally of one account, after a cursor (a record id), at most `limit`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogQuery {
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
    pub account_id: Option<i32>,
    /// Start after the record with this id (the last of the previous page).
    pub before: Option<String>,
    pub limit: Option<usize>,
}

impl LogQuery {
    /// Whether a record passes the filters that are not part of the key range.
    fn admits(&self, record: &AccessRecord, portal_id: PortalId) -> bool {
        record.portal_id == portal_id.get()
            && self
                .account_id
                .is_none_or(|account| record.accessor.account_id() == Some(account))
    }

    /// The key range of a list without a time range (reviews): everything before the cursor.
    fn cursor_range(&self) -> (String, String) {
        LogQuery {
            from: None,
            to: None,
            ..self.clone()
        }
        .id_range()
    }

    /// The key range as record ids: `[from, to)`, ending before the cursor.
    fn id_range(&self) -> (String, String) {
        // Key condition values may not be empty; every id starts with a year's digits.
        let low = self.from.map_or_else(|| "0".to_string(), sort_time);
        let mut high = self.to.map(sort_time).unwrap_or_else(|| "~".to_string());
        if let Some(before) = &self.before
            && before < &high
        {
            high.clone_from(before);
        }
        (low, high)
    }
}

/// One page of a log query; `next` is the cursor of the following page while more follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next: Option<String>,
}

/// A documented review of a portal's log: the sample drawn, by whom, and the conclusion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// Unique, and in time order.
    pub id: String,
    pub at: DateTime<Utc>,
    pub portal_id: i32,
    pub reviewer: Accessor,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// The sample size asked for.
    pub sample_size: u32,
    /// The records in the range the sample was drawn from.
    pub population: u32,
    /// The ids of the records drawn, by id.
    pub drawn: Vec<String>,
    pub conclusion: String,
}

/// The append-only side of the log, which every function touching clients' data holds.
#[async_trait]
pub trait AccessLogWriter: Send + Sync + 'static {
    /// Writes the records and each client's copy, each only if its key is new: an item
    /// already there is left as it is. A key holds the request's trace id, so such an item
    /// is this request's own, from an attempt whose answer was lost.
    async fn append(&self, records: &[AccessRecord]) -> StoreResult<()>;
}

/// The access-log function's reads, and the one other thing it writes: reviews.
#[async_trait]
pub trait AccessLogReader: AccessLogWriter {
    /// Records of the portal (made by its accounts, secrets and deliveries).
    async fn portal_log(
        &self,
        portal_id: PortalId,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>>;
    /// Records that touched the client, made in `portal_id` (every portal when `None`), each
    /// listing only that client.
    async fn client_log(
        &self,
        client_id: ClientId,
        portal_id: Option<PortalId>,
        query: &LogQuery,
    ) -> StoreResult<Page<AccessRecord>>;
    /// The ids of every record of the portal in `[from, to)`: what a review draws from.
    async fn record_ids(
        &self,
        portal_id: PortalId,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<String>>;
    /// The records of the portal with these ids (at most 100), by id.
    async fn records(&self, portal_id: PortalId, ids: &[String]) -> StoreResult<Vec<AccessRecord>>;
    async fn add_review(&self, review: &Review) -> StoreResult<()>;
    /// The portal's reviews, newest first (`query`'s cursor and limit apply).
    async fn reviews(&self, portal_id: PortalId, query: &LogQuery) -> StoreResult<Page<Review>>;
}

/// Cuts a newest-first list of items to a page: `limit` items, and the cursor of the next
/// page when one more followed.
pub(crate) fn page_of<T>(
    mut items: Vec<T>,
    limit: Option<usize>,
    id: impl Fn(&T) -> &str,
) -> Page<T> {
    match limit {
        Some(limit) if items.len() > limit => {
            items.truncate(limit);
            let next = items.last().map(|item| id(item).to_string());
            Page { items, next }
        }
        _ => Page { items, next: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn access(clients: Vec<i32>) -> Access {
        Access {
            portal_id: PortalId(1),
            accessor: Accessor::VoicePlatform,
            action: Action::ListClients,
            client_ids: clients,
            call_ids: vec![],
        }
    }

    #[test]
    fn records_are_kept_at_least_five_years() {
        assert!(RETENTION >= Duration::days(5 * 365 + 2));
    }

    #[test]
    fn a_large_access_is_split_into_records_of_bounded_size_and_ids_sort_by_time() {
        let at = chrono::Utc.with_ymd_and_hms(2026, 11, 23, 9, 0, 0).unwrap();
        let many: Vec<i32> = (1..=12_001).rev().collect();
        let records = access(many).records(at, 200, "t");
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].client_ids.len(), MAX_CLIENTS_PER_RECORD);
        assert_eq!(
            records[2].client_ids,
            (10_001..=12_001).collect::<Vec<i32>>()
        );
        assert!(records.windows(2).all(|pair| pair[0].id < pair[1].id));
        let none = access(vec![]).records(at, 403, "t");
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].outcome, Outcome::Denied);
        let later = access(vec![]).records(at + Duration::microseconds(1), 200, "a");
        assert!(
            later[0].id > none[0].id,
            "a later record sorts after, whatever its trace id"
        );
    }
}
