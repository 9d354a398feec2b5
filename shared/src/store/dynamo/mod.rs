//! The DynamoDB store: single-table data layout plus the auth table, records stored with
//! serde_dynamo, invariants kept by conditional writes and transactions.
//!
//! Data table (`pk`, `sk`; GSI `gsi1` on `gsi1pk`, `gsi1sk`):
//! - `PORTAL#{id}` / `META`: portal, listed under `gsi1pk = ORGANISATION#{org}`;
//!   `PORTAL#{id}` / `CLIENT#{id}` and `CONTACT#{id}`: the
//!   portal's clients and contact details (tenant scope in the key). A client item also holds
//!   `callStats`, the call history its derived fields are computed from at read time.
//!   `PORTAL#{id}` / `NATID#{nationalId}` claims a national id for one client of the portal
//!   (imports stay idempotent); `PORTAL#{id}` / `IMPORTGUARD` counts failed import attempts.
//! - `ACCOUNT#{e164}` / `META`: staff account, found by the number it logs in with, with
//!   `organisationId` (its portal's organisation, written with the fixture) for the session.
//! - `CALL#{id}` / `LINE#{id}`, `META`, `REQ#{id}`: transcript lines sort before the call and
//!   client requests after it, so "call + transcript" and "call + requests" are one range
//!   Query each. A call connected to call C, and its lines, carry `gsi1pk = CONNECTED#{C}`.
//! - `QUESTIONNAIRE#{id}` / `META` (with `ownerOrganisationId`, absent on a shared template),
//!   `QUESTION#{id}`, `QUESTIONS` (version of the question list, guarding inserts);
//!   `gsi1pk = QUESTIONNAIRES` lists them. Per portal of the client,
//!   `QUESTIONNAIRE#{id}#PORTAL#{p}` / `OPEN#{client}` (the client's open entry, at most one),
//!   `ENTRY#{id}` (closed entries), `ANSWER#{entry}#{question}`. Entries carry `schedule`;
//!   open ones are in the due-time index: `gsi1pk = DUE#{id % 8}`,
//!   `gsi1sk = {nextTryAt}#{id}` (sparse: closed entries leave it). While a scheduler pass holds
//!   an attempt the entry carries `pending` and is indexed at the lease's end instead. A closed
//!   entry whose last attempt is unreported stays indexed until `REPORT_WAIT` after it. Every
//!   entry, open or closed, is also in `gsi2` under `gsi2pk = QENTRY#{id}`.
//! - `PORTAL#{id}` / `ALERT#{entry}`: the alert an entry that reached nobody raised, with its
//!   `version`; while its next escalation step is due it is in `gsi1` under
//!   `gsi1pk = ESCALATION`, `gsi1sk = {nextStepAt}#{entry}`.
//! - Call ingestion, per portal: `PORTAL#{id}` / `EVENT#{eventId}` (receipt of a processed
//!   delivery), `CONV#{conversationUuid}` (the call a conversation became, and the entry it
//!   completed), `ANALYSIS#{conversationUuid}` (an analysis that arrived before its call).
//! - `COUNTER` / `{kind}`: id counters (`value`).
//!
//! Auth table (`pk`, TTL attribute `ttl`): `SESSION#{sha256}`, `SESSIONS#{account}` (the
//! account's session hashes, for logout of all sessions), `OTP#{e164}#{requestId}` (one per pending
//! request), `OTPSENDS#{e164}` (the sends of the last hour with their source addresses, and each
//! address's pending request).

mod counting;
pub(crate) mod errors;
pub(crate) mod expression;
pub(crate) mod items;
pub(crate) mod keys;
pub(crate) mod operations;
pub(crate) mod records;

pub use counting::{RequestCounter, client_from, operation_name};

use aws_sdk_dynamodb::Client as DynamoClient;

use crate::config::Tables;

#[derive(Clone)]
pub struct DynamoStore {
    pub(crate) client: DynamoClient,
    pub(crate) tables: Tables,
}

impl DynamoStore {
    pub fn new(client: DynamoClient, tables: Tables) -> Self {
        Self { client, tables }
    }
}
