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
//! - `ACCOUNT#{e164}` / `META`: staff account, found by the number it logs in with.
//! - `CALL#{id}` / `LINE#{id}`, `META`, `REQ#{id}`: transcript lines sort before the call and
//!   client requests after it, so "call + transcript" and "call + requests" are one range
//!   Query each. A call connected to call C, and its lines, carry `gsi1pk = CONNECTED#{C}`.
//! - `QUESTIONNAIRE#{id}` / `META`, `QUESTION#{id}`, `QUESTIONS` (version of the question
//!   list, guarding inserts); `gsi1pk = QUESTIONNAIRES` lists them. Per portal of the client,
//!   `QUESTIONNAIRE#{id}#PORTAL#{p}` / `OPEN#{client}` (the client's open entry, at most one),
//!   `ENTRY#{id}` (closed entries), `ANSWER#{entry}#{question}`. Entries carry `schedule`;
//!   open ones are in the due-time index: `gsi1pk = DUE#{id % 8}`,
//!   `gsi1sk = {nextTryAt}#{id}` (sparse: closed entries leave it). While a scheduler pass holds
//!   an attempt the entry carries `pending` and is indexed at the lease's end instead. Every
//!   entry, open or closed, is also in `gsi2` under `gsi2pk = QENTRY#{id}`.
//! - Call ingestion, per portal: `PORTAL#{id}` / `EVENT#{eventId}` (receipt of a processed
//!   delivery), `CONV#{conversationUuid}` (the call a conversation became, and the entry it
//!   completed), `ANALYSIS#{conversationUuid}` (an analysis that arrived before its call).
//! - `COUNTER` / `{kind}`: id counters (`value`).
//!
//! Auth table (`pk`, TTL attribute `ttl`): `SESSION#{sha256}`, `SESSIONS#{account}` (the
//! account's session hashes, for logout of all sessions), `OTP#{e164}`, `OTPSENDS#{e164}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use aws_sdk_dynamodb::Client as DynamoClient;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::{Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, KeysAndAttributes, Put, PutRequest, ReturnValue,
    TransactWriteItem, Update, WriteRequest,
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use super::{
    AddQuestionOutcome, NewEntry, NewQuestion, QuestionnaireStore, Schedule, StartOutcome,
    entry_is_open, question_refusal,
};
use super::{
    AuthStore, BoxError, OtpRequest, PhoneCallReader, SeedWriter, SendLog, Session, SessionReader,
    StoreError, StoreResult, order_thread,
};
use super::{
    CallStats, ClientChanges, ClientPage, ClientPageRequest, ClientStore, ContactDetailChanges,
    ContactDetailStore, ImportContext, ImportGuard, Imported, PortalStore,
};
use super::{CallTargets, Claim, DueEntry, OrganisationStore, PendingAttempt, SchedulerStore};
use super::{CountedCall, FixLookup, FixTarget, IngestStore};
use super::{DeliveryState, HeldAnalysis, NewCall, RecordedAnalysis};
use crate::config::Tables;
use crate::fixture::Seed;
use crate::fixture::counters;
use crate::records::{
    Account, Answer, Client, ClientRequest, ContactDetail, PhoneCall, Portal, Question,
    QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Timestamp, TranscriptLine,
};

type Item = HashMap<String, AttributeValue>;

const KEY_ATTRIBUTES: [&str; 6] = ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "ttl"];
/// DynamoDB's limits, which moto does not enforce.
const BATCH_WRITE_LIMIT: usize = 25;
const BATCH_GET_LIMIT: usize = 100;
/// Items read beyond a client page, so that deleted clients rarely cost a second Query.
const PAGE_SLACK: usize = 16;
/// Clients per import transaction: each is two items, the client and its national-id claim.
const IMPORT_CLIENTS_PER_TRANSACTION: usize = TRANSACTION_LIMIT / 2;
const TRANSACTION_LIMIT: usize = 100;

#[derive(Clone)]
pub struct DynamoStore {
    client: DynamoClient,
    tables: Tables,
}

impl DynamoStore {
    pub fn new(client: DynamoClient, tables: Tables) -> Self {
        Self { client, tables }
    }
}

fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn key(pk: impl Into<String>, sk: Option<&str>) -> Item {
    let mut item = Item::from([("pk".to_string(), s(pk))]);
    if let Some(sk) = sk {
        item.insert("sk".into(), s(sk));
    }
    item
}

fn padded(id: i32) -> String {
    format!("{id:010}")
}

/// Every key this store writes, in one place, so writers and readers cannot disagree.
mod keys {
    use super::padded;

    pub fn portal(id: i32) -> String {
        format!("PORTAL#{id}")
    }
    /// The `gsi1pk` of an organisation's portals.
    pub fn organisation(id: i32) -> String {
        format!("ORGANISATION#{id}")
    }
    pub fn client(id: i32) -> String {
        format!("CLIENT#{}", padded(id))
    }
    pub fn contact(id: i32) -> String {
        format!("CONTACT#{}", padded(id))
    }
    pub fn account(phone: &str) -> String {
        format!("ACCOUNT#{phone}")
    }
    pub fn call(id: i32) -> String {
        format!("CALL#{id}")
    }
    pub fn line(id: i32) -> String {
        format!("LINE#{}", padded(id))
    }
    pub fn request(id: i32) -> String {
        format!("REQ#{}", padded(id))
    }
    pub fn connected_to(id: i32) -> String {
        format!("CONNECTED#{id}")
    }
    pub fn national_id(id: &str) -> String {
        format!("NATID#{id}")
    }
    /// Above every padded client id, so `CLIENT#{id}`..`CLIENTS_END` is the portal's clients.
    pub const CLIENTS_END: &str = "CLIENT#9999999999";
    pub const IMPORT_GUARD: &str = "IMPORTGUARD";
    pub const COUNTER: &str = "COUNTER";
    pub fn questionnaire(id: i32) -> String {
        format!("QUESTIONNAIRE#{id}")
    }
    pub fn questionnaire_portal(id: i32, portal: i32) -> String {
        format!("QUESTIONNAIRE#{id}#PORTAL#{portal}")
    }
    pub fn question(id: i32) -> String {
        format!("QUESTION#{}", padded(id))
    }
    /// The version item that serialises question inserts of one questionnaire.
    pub const QUESTIONS_VERSION: &str = "QUESTIONS";
    /// A client's open entry: one per questionnaire and client, which keeps starts idempotent.
    pub fn open_entry(client_id: i32) -> String {
        format!("OPEN#{}", padded(client_id))
    }
    /// Every entry, open or closed, under its id in `gsi2`.
    pub fn entry_id(entry_id: i32) -> String {
        format!("QENTRY#{}", padded(entry_id))
    }
    pub fn answer(entry_id: i32, question_id: i32) -> String {
        format!("ANSWER#{}#{}", padded(entry_id), padded(question_id))
    }
    /// A delivery from the voice platform that was processed (its receipt).
    pub fn event(event_id: &str) -> String {
        format!("EVENT#{event_id}")
    }
    /// A conversation recorded as a call, by the platform's conversation uuid.
    pub fn conversation(uuid: &str) -> String {
        format!("CONV#{uuid}")
    }
    /// An analysis waiting for its conversation's call.
    pub fn held_analysis(uuid: &str) -> String {
        format!("ANALYSIS#{uuid}")
    }
    /// A closed entry (called, or out of attempts), kept for the record.
    pub fn closed_entry(entry_id: i32) -> String {
        format!("ENTRY#{}", padded(entry_id))
    }
    /// Shards of the due-time index (`gsi1`) that the scheduler reads open entries from.
    pub const DUE_SHARDS: i32 = 8;
    pub fn due(entry_id: i32) -> String {
        format!("DUE#{}", entry_id.rem_euclid(DUE_SHARDS))
    }
    /// Fixed-width UTC time first, so that string order is time order.
    pub fn due_at(at: crate::records::Timestamp, entry_id: i32) -> String {
        format!("{}#{}", due_time(at), padded(entry_id))
    }
    /// Above every `due_at(at, _)`: the upper bound of a due Query at `at`.
    pub fn due_until(at: crate::records::Timestamp) -> String {
        format!("{}#~", due_time(at))
    }
    fn due_time(at: crate::records::Timestamp) -> String {
        at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    }
    /// The portal of an entry from its partition key (`QUESTIONNAIRE#{q}#PORTAL#{p}`).
    pub fn entry_portal(pk: &str) -> Option<i32> {
        pk.strip_prefix("QUESTIONNAIRE#")?
            .split_once("#PORTAL#")?
            .1
            .parse()
            .ok()
    }
    pub const META: &str = "META";
    pub fn session(hash: &str) -> String {
        format!("SESSION#{hash}")
    }
    pub fn account_sessions(account_id: i32) -> String {
        format!("SESSIONS#{account_id}")
    }
    pub fn otp(phone: &str) -> String {
        format!("OTP#{phone}")
    }
    pub fn otp_sends(phone: &str) -> String {
        format!("OTPSENDS#{phone}")
    }
}

/// A record as an item: its serde_dynamo attributes plus the key attributes.
fn to_item<T: Serialize>(record: &T, keys: Item) -> StoreResult<Item> {
    let mut item: Item = serde_dynamo::to_item(record)
        .map_err(|e| StoreError::Corrupt(format!("cannot encode record: {e}")))?;
    item.extend(keys);
    Ok(item)
}

/// A record from an item, key attributes removed first (records reject unknown fields).
fn from_item<T: DeserializeOwned>(mut item: Item) -> StoreResult<T> {
    for name in KEY_ATTRIBUTES {
        item.remove(name);
    }
    serde_dynamo::from_item(item).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn sk_of(item: &Item) -> &str {
    match item.get("sk") {
        Some(AttributeValue::S(sk)) => sk,
        _ => "",
    }
}

fn pk_of(item: &Item) -> &str {
    match item.get("pk") {
        Some(AttributeValue::S(pk)) => pk,
        _ => "",
    }
}

/// Maps an SDK failure onto the store's error kinds; the original is kept as the source.
fn classify<E>(error: SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let server_error = error
        .raw_response()
        .is_some_and(|raw| raw.status().is_server_error());
    let code = error.code().unwrap_or_default().to_string();
    let message = error.message().unwrap_or_default().to_string();
    match (&error, code.as_str()) {
        (_, "ConditionalCheckFailedException") => StoreError::ConditionFailed,
        (_, "TransactionCanceledException") if message.contains("ConditionalCheckFailed") => {
            StoreError::ConditionFailed
        }
        (
            _,
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded"
            | "TransactionConflictException"
            | "TransactionCanceledException"
            | "TransactionInProgressException",
        ) => StoreError::Throttled(Box::new(error)),
        (SdkError::TimeoutError(_) | SdkError::DispatchFailure(_), _) => {
            StoreError::Unavailable(Box::new(error))
        }
        (SdkError::ResponseError(_), _) => StoreError::Unavailable(Box::new(error)),
        (SdkError::ServiceError(_), _) if server_error => StoreError::Unavailable(Box::new(error)),
        _ => StoreError::Backend(Box::new(error)),
    }
}

fn build_error(error: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Backend(Box::new(error))
}

fn txn_put(put: Put) -> TransactWriteItem {
    TransactWriteItem::builder().put(put).build()
}

fn txn_update(update: Update) -> TransactWriteItem {
    TransactWriteItem::builder().update(update).build()
}

fn txn_delete(delete: Delete) -> TransactWriteItem {
    TransactWriteItem::builder().delete(delete).build()
}

// ---- auth table items -------------------------------------------------------------------

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionItem {
    account_id: i32,
    portal_id: i32,
    created_at: Timestamp,
    last_seen_at: Timestamp,
    expires_at: Timestamp,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OtpItem {
    request_id: String,
    code_hash: String,
    expires_at: Timestamp,
    attempts: u32,
    used: bool,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct SendLogItem {
    sent_at: Vec<Timestamp>,
    version: u64,
}

/// The condition of a write guarded by a version: the first write, or the version still being
/// the one read. Values are `None` for the first write (DynamoDB refuses an empty map).
fn version_guard(read: u64) -> (&'static str, Option<HashMap<String, AttributeValue>>) {
    if read == 0 {
        ("attribute_not_exists(pk)", None)
    } else {
        (
            "version = :v",
            Some(HashMap::from([(":v".to_string(), n(read))])),
        )
    }
}

fn ttl_attribute(at: Timestamp) -> (String, AttributeValue) {
    ("ttl".to_string(), n(at.timestamp()))
}

impl DynamoStore {
    /// One BatchGetItem request over any tables; unprocessed keys (which come back under load)
    /// are asked for again. Found items by table.
    async fn batch_get_request(
        &self,
        mut request: HashMap<String, KeysAndAttributes>,
    ) -> StoreResult<HashMap<String, Vec<Item>>> {
        let mut found: HashMap<String, Vec<Item>> = HashMap::new();
        for _ in 0..5 {
            let out = self
                .client
                .batch_get_item()
                .set_request_items(Some(request))
                .send()
                .await
                .map_err(classify)?;
            for (table, items) in out.responses.unwrap_or_default() {
                found.entry(table).or_default().extend(items);
            }
            match out.unprocessed_keys {
                Some(rest) if !rest.is_empty() => request = rest,
                _ => return Ok(found),
            }
        }
        Err(StoreError::Throttled(
            "batch get left keys unprocessed".into(),
        ))
    }

    /// One item of the data table and one of the auth table, in one request.
    async fn batch_get(
        &self,
        data_key: Item,
        auth_key: Item,
    ) -> StoreResult<(Option<Item>, Option<Item>)> {
        let consistent = |key: Item| {
            KeysAndAttributes::builder()
                .keys(key)
                .consistent_read(true)
                .build()
                .map_err(build_error)
        };
        let mut found = self
            .batch_get_request(HashMap::from([
                (self.tables.data.clone(), consistent(data_key)?),
                (self.tables.auth.clone(), consistent(auth_key)?),
            ]))
            .await?;
        let mut first = |table: &str| {
            found
                .remove(table)
                .and_then(|items| items.into_iter().next())
        };
        Ok((first(&self.tables.data), first(&self.tables.auth)))
    }

    async fn query_all(
        &self,
        index: Option<&str>,
        condition: &str,
        values: Vec<(&str, AttributeValue)>,
    ) -> StoreResult<Vec<Item>> {
        let mut query = self
            .client
            .query()
            .table_name(&self.tables.data)
            .key_condition_expression(condition)
            .set_index_name(index.map(str::to_string))
            // GSIs only offer eventually consistent reads.
            .consistent_read(index.is_none());
        for (name, value) in values {
            query = query.expression_attribute_values(name, value);
        }
        query
            .into_paginator()
            .items()
            .send()
            .try_collect()
            .await
            .map_err(classify)
    }

    /// The records of partition `pk` whose sort key starts with `prefix`.
    async fn records_with_prefix<T: DeserializeOwned>(
        &self,
        pk: String,
        prefix: &str,
    ) -> StoreResult<Vec<T>> {
        self.query_all(
            None,
            "pk = :pk AND begins_with(sk, :prefix)",
            vec![(":pk", s(pk)), (":prefix", s(prefix))],
        )
        .await?
        .into_iter()
        .map(from_item)
        .collect()
    }

    async fn transact(&self, items: Vec<TransactWriteItem>) -> StoreResult<()> {
        debug_assert!(items.len() <= TRANSACTION_LIMIT);
        self.client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn batch_write(&self, table: &str, items: Vec<Item>) -> StoreResult<()> {
        for chunk in items.chunks(BATCH_WRITE_LIMIT) {
            let mut pending = chunk
                .iter()
                .map(|item| {
                    Ok(WriteRequest::builder()
                        .put_request(
                            PutRequest::builder()
                                .set_item(Some(item.clone()))
                                .build()
                                .map_err(build_error)?,
                        )
                        .build())
                })
                .collect::<StoreResult<Vec<_>>>()?;
            let mut tries = 0;
            while !pending.is_empty() {
                tries += 1;
                if tries > 8 {
                    return Err(StoreError::Throttled(
                        "batch write left items unprocessed".into(),
                    ));
                }
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(table, pending)
                    .send()
                    .await
                    .map_err(classify)?;
                pending = out
                    .unprocessed_items
                    .and_then(|mut rest| rest.remove(table))
                    .unwrap_or_default();
            }
        }
        Ok(())
    }

    /// Items of the data table by key, in requests of 100 keys.
    async fn batch_get_data(&self, keys: Vec<Item>) -> StoreResult<Vec<Item>> {
        let mut found = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(BATCH_GET_LIMIT) {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(chunk.to_vec()))
                .consistent_read(true)
                .build()
                .map_err(build_error)?;
            let mut items = self
                .batch_get_request(HashMap::from([(self.tables.data.clone(), request)]))
                .await?;
            found.extend(items.remove(&self.tables.data).unwrap_or_default());
        }
        Ok(found)
    }

    async fn get_data(&self, pk: String, sk: &str) -> StoreResult<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(pk, Some(sk))))
            .consistent_read(true)
            .send()
            .await
            .map_err(classify)?;
        Ok(out.item)
    }

    fn auth_put(&self, item: Item) -> Put {
        Put::builder()
            .table_name(&self.tables.auth)
            .set_item(Some(item))
            .build()
            .expect("table name and item are set")
    }
}

fn otp_request_from(phone_number: &str, item: Item) -> StoreResult<OtpRequest> {
    let otp: OtpItem = from_item(item)?;
    Ok(OtpRequest {
        phone_number: phone_number.to_string(),
        request_id: otp.request_id,
        code_hash: otp.code_hash,
        expires_at: otp.expires_at,
        attempts: otp.attempts,
        used: otp.used,
    })
}

const OTP_OPEN: &str = "requestId = :rid AND used = :false AND attempts < :max";

fn otp_open_values(request_id: &str, max_attempts: u32) -> HashMap<String, AttributeValue> {
    HashMap::from([
        (":rid".to_string(), s(request_id)),
        (":false".to_string(), AttributeValue::Bool(false)),
        (":max".to_string(), n(max_attempts)),
    ])
}

#[async_trait]
impl SessionReader for DynamoStore {
    async fn session(&self, token_hash: &str) -> StoreResult<Option<Session>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::session(token_hash), None)))
            .consistent_read(true)
            .send()
            .await
            .map_err(classify)?;
        out.item
            .map(|item| {
                let stored: SessionItem = from_item(item)?;
                Ok(Session {
                    token_hash: token_hash.to_string(),
                    account_id: stored.account_id,
                    portal_id: stored.portal_id,
                    created_at: stored.created_at,
                    last_seen_at: stored.last_seen_at,
                    expires_at: stored.expires_at,
                })
            })
            .transpose()
    }

    async fn touch_session(&self, token_hash: &str, at: Timestamp) -> StoreResult<()> {
        let result = self
            .client
            .update_item()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::session(token_hash), None)))
            .update_expression("SET lastSeenAt = :at")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":at", s(at.to_rfc3339()))
            .send()
            .await
            .map_err(classify);
        match result {
            Ok(_) | Err(StoreError::ConditionFailed) => Ok(()),
            Err(other) => Err(other),
        }
    }
}

#[async_trait]
impl AuthStore for DynamoStore {
    async fn otp_context(&self, phone_number: &str) -> StoreResult<(Option<Account>, SendLog)> {
        let (account, log) = self
            .batch_get(
                key(keys::account(phone_number), Some(keys::META)),
                key(keys::otp_sends(phone_number), None),
            )
            .await?;
        let log = match log {
            Some(item) => {
                let stored: SendLogItem = from_item(item)?;
                SendLog {
                    sent_at: stored.sent_at,
                    version: stored.version,
                }
            }
            None => SendLog::default(),
        };
        Ok((account.map(from_item).transpose()?, log))
    }

    async fn save_otp(
        &self,
        request: &OtpRequest,
        log: &SendLog,
        read_version: u64,
    ) -> StoreResult<()> {
        let phone = &request.phone_number;
        let mut log_keys = key(keys::otp_sends(phone), None);
        log_keys.extend([ttl_attribute(
            log.sent_at
                .iter()
                .max()
                .copied()
                .unwrap_or(request.expires_at)
                + chrono::Duration::hours(1),
        )]);
        let log_item = to_item(
            &SendLogItem {
                sent_at: log.sent_at.clone(),
                version: log.version,
            },
            log_keys,
        )?;
        let (condition, values) = version_guard(read_version);
        let guarded_log = Put::builder()
            .table_name(&self.tables.auth)
            .set_item(Some(log_item))
            .condition_expression(condition)
            .set_expression_attribute_values(values);
        let mut otp_keys = key(keys::otp(phone), None);
        otp_keys.extend([ttl_attribute(
            request.expires_at + chrono::Duration::hours(1),
        )]);
        let otp_item = to_item(
            &OtpItem {
                request_id: request.request_id.clone(),
                code_hash: request.code_hash.clone(),
                expires_at: request.expires_at,
                attempts: request.attempts,
                used: request.used,
            },
            otp_keys,
        )?;
        self.transact(vec![
            txn_put(guarded_log.build().map_err(build_error)?),
            txn_put(self.auth_put(otp_item)),
        ])
        .await
    }

    async fn otp_and_account(
        &self,
        phone_number: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<Account>)> {
        let (account, otp) = self
            .batch_get(
                key(keys::account(phone_number), Some(keys::META)),
                key(keys::otp(phone_number), None),
            )
            .await?;
        Ok((
            otp.map(|item| otp_request_from(phone_number, item))
                .transpose()?,
            account.map(from_item).transpose()?,
        ))
    }

    async fn record_failed_attempt(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
    ) -> StoreResult<u32> {
        let mut values = otp_open_values(request_id, max_attempts);
        values.insert(":one".into(), n(1));
        let out = self
            .client
            .update_item()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::otp(phone_number), None)))
            .update_expression("ADD attempts :one")
            .condition_expression(OTP_OPEN)
            .set_expression_attribute_values(Some(values))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(classify)?;
        match out.attributes.and_then(|mut a| a.remove("attempts")) {
            Some(AttributeValue::N(count)) => count
                .parse()
                .map_err(|_| StoreError::Corrupt(format!("attempts {count:?}"))),
            other => Err(StoreError::Corrupt(format!("attempts {other:?}"))),
        }
    }

    async fn consume_otp(
        &self,
        phone_number: &str,
        request_id: &str,
        max_attempts: u32,
        session: &Session,
    ) -> StoreResult<()> {
        let mut values = otp_open_values(request_id, max_attempts);
        values.insert(":true".into(), AttributeValue::Bool(true));
        let mark_used = Update::builder()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::otp(phone_number), None)))
            .update_expression("SET used = :true")
            .condition_expression(OTP_OPEN)
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(build_error)?;
        let mut session_keys = key(keys::session(&session.token_hash), None);
        session_keys.extend([ttl_attribute(session.expires_at)]);
        let session_item = to_item(
            &SessionItem {
                account_id: session.account_id,
                portal_id: session.portal_id,
                created_at: session.created_at,
                last_seen_at: session.last_seen_at,
                expires_at: session.expires_at,
            },
            session_keys,
        )?;
        let create_session = Put::builder()
            .table_name(&self.tables.auth)
            .set_item(Some(session_item))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(build_error)?;
        // The account's list of session hashes lives as long as its newest session.
        let index_session = Update::builder()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::account_sessions(session.account_id), None)))
            .update_expression("ADD hashes :h, version :one SET #ttl = :ttl")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":h", AttributeValue::Ss(vec![session.token_hash.clone()]))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ttl", n(session.expires_at.timestamp()))
            .build()
            .map_err(build_error)?;
        self.transact(vec![
            txn_update(mark_used),
            txn_put(create_session),
            txn_update(index_session),
        ])
        .await
    }

    async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        // The hash left in the account's list is harmless: logout of all deletes it again.
        self.client
            .delete_item()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::session(token_hash), None)))
            .send()
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn delete_all_sessions(&self, account_id: i32) -> StoreResult<usize> {
        let index_key = key(keys::account_sessions(account_id), None);
        for _ in 0..3 {
            let out = self
                .client
                .get_item()
                .table_name(&self.tables.auth)
                .set_key(Some(index_key.clone()))
                .consistent_read(true)
                .send()
                .await
                .map_err(classify)?;
            let Some(mut index) = out.item else {
                return Ok(0);
            };
            let hashes = match index.remove("hashes") {
                Some(AttributeValue::Ss(hashes)) => hashes,
                _ => Vec::new(),
            };
            let version = index.remove("version").unwrap_or_else(|| n(0));
            let mut deletes = hashes
                .iter()
                .map(|hash| {
                    Delete::builder()
                        .table_name(&self.tables.auth)
                        .set_key(Some(key(keys::session(hash), None)))
                        .build()
                        .map(txn_delete)
                        .map_err(build_error)
                })
                .collect::<StoreResult<Vec<_>>>()?;
            // The index goes last and only if no login added a session since it was read.
            deletes.push(txn_delete(
                Delete::builder()
                    .table_name(&self.tables.auth)
                    .set_key(Some(index_key.clone()))
                    .condition_expression("version = :v")
                    .expression_attribute_values(":v", version)
                    .build()
                    .map_err(build_error)?,
            ));
            let mut result = Ok(());
            for chunk in deletes.chunks(TRANSACTION_LIMIT) {
                result = self.transact(chunk.to_vec()).await;
                if result.is_err() {
                    break;
                }
            }
            match result {
                Ok(()) => return Ok(hashes.len()),
                Err(StoreError::ConditionFailed) => continue,
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Throttled(
            "sessions kept changing during logout".into(),
        ))
    }
}

#[async_trait]
impl PhoneCallReader for DynamoStore {
    async fn call_with_connected(&self, call_id: i32) -> StoreResult<Option<Vec<PhoneCall>>> {
        let (own, connected) = futures::future::try_join(
            self.query_all(
                None,
                "pk = :pk AND sk <= :meta",
                vec![(":pk", s(keys::call(call_id))), (":meta", s(keys::META))],
            ),
            self.query_all(
                Some("gsi1"),
                "gsi1pk = :c",
                vec![(":c", s(keys::connected_to(call_id)))],
            ),
        )
        .await?;
        let mut calls: HashMap<String, PhoneCall> = HashMap::new();
        let mut lines: HashMap<String, Vec<TranscriptLine>> = HashMap::new();
        for item in own.into_iter().chain(connected) {
            let pk = pk_of(&item).to_string();
            if sk_of(&item) == keys::META {
                calls.insert(pk, from_item(item)?);
            } else if sk_of(&item).starts_with("LINE#") {
                lines.entry(pk).or_default().push(from_item(item)?);
            }
        }
        let root_pk = keys::call(call_id);
        let Some(root) = calls.remove(&root_pk) else {
            return Ok(None);
        };
        let mut with_lines = |pk: &str, call: PhoneCall| PhoneCall {
            transcript: Some(lines.remove(pk).unwrap_or_default()),
            ..call
        };
        let root = with_lines(&root_pk, root);
        let connected = calls
            .into_iter()
            .map(|(pk, call)| with_lines(&pk, call))
            .collect();
        Ok(Some(order_thread(root, connected)))
    }

    async fn call_requests(
        &self,
        call_id: i32,
    ) -> StoreResult<Option<(PhoneCall, Vec<ClientRequest>)>> {
        let items = self
            .query_all(
                None,
                "pk = :pk AND sk >= :meta",
                vec![(":pk", s(keys::call(call_id))), (":meta", s(keys::META))],
            )
            .await?;
        let mut call = None;
        let mut requests = Vec::new();
        for item in items {
            if sk_of(&item) == keys::META {
                call = Some(from_item::<PhoneCall>(item)?);
            } else if sk_of(&item).starts_with("REQ#") {
                requests.push(from_item::<ClientRequest>(item)?);
            }
        }
        Ok(call.map(|call| (call, requests)))
    }
}

fn data_keys(pk: String, sk: String, gsi1: Option<(String, String)>) -> Item {
    let mut item = key(pk, Some(&sk));
    if let Some((gsi1pk, gsi1sk)) = gsi1 {
        item.insert("gsi1pk".into(), s(gsi1pk));
        item.insert("gsi1sk".into(), s(gsi1sk));
    }
    item
}

/// A call's items: its transcript lines and its record (without transcript). A leg connected
/// to another call is also listed, record and lines, under that call in `gsi1`.
fn call_items(call: &PhoneCall, lines: &[TranscriptLine]) -> StoreResult<(Vec<Item>, Item)> {
    let pk = keys::call(call.id);
    let connected = |sk: &str| {
        call.connected_to
            .map(|to| (keys::connected_to(to), format!("{pk}#{sk}")))
    };
    let line_items = lines
        .iter()
        .map(|line| {
            let sk = keys::line(line.id);
            to_item(line, data_keys(pk.clone(), sk.clone(), connected(&sk)))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let bare = PhoneCall {
        transcript: None,
        ..call.clone()
    };
    let record = to_item(
        &bare,
        data_keys(pk.clone(), keys::META.into(), connected(keys::META)),
    )?;
    Ok((line_items, record))
}

fn request_item(request: &ClientRequest) -> StoreResult<Item> {
    let keys = data_keys(
        keys::call(request.phone_call_id),
        keys::request(request.id),
        None,
    );
    to_item(request, keys)
}

/// An answer, kept with the entries of the client's portal.
fn answer_item(questionnaire_id: i32, portal_id: i32, answer: &Answer) -> StoreResult<Item> {
    let keys = data_keys(
        keys::questionnaire_portal(questionnaire_id, portal_id),
        keys::answer(answer.questionnaire_call_id, answer.question_id),
        None,
    );
    to_item(answer, keys)
}

/// Every item a fixture becomes, in the layout described at the top of this module.
fn seed_items(seed: &Seed) -> StoreResult<Vec<Item>> {
    let mut items = Vec::new();
    for portal in &seed.portals {
        items.push(to_item(
            portal,
            data_keys(
                keys::portal(portal.id),
                keys::META.into(),
                Some((
                    keys::organisation(portal.organisation_id),
                    keys::portal(portal.id),
                )),
            ),
        )?);
    }
    for account in &seed.accounts {
        let keys = data_keys(
            keys::account(&account.phone_number),
            keys::META.into(),
            None,
        );
        items.push(to_item(account, keys)?);
    }
    let mut client_portal = HashMap::new();
    let stats = CallStats::of_calls(&seed.phone_calls);
    for client in &seed.clients {
        client_portal.insert(client.id, client.portal_id);
        let history = stats.get(&client.id).cloned().unwrap_or_default();
        items.push(client_item(client, &history)?);
        if let Some(national_id) = &client.national_id {
            items.push(national_id_claim(client.portal_id, national_id, client.id));
        }
    }
    for call in &seed.phone_calls {
        let lines = call.transcript.as_deref().unwrap_or_default();
        let (line_items, record) = call_items(call, lines)?;
        items.extend(line_items);
        items.push(record);
    }
    for request in &seed.client_requests {
        items.push(request_item(request)?);
    }
    for detail in &seed.contact_details {
        let keys = data_keys(
            keys::portal(detail.portal_id),
            keys::contact(detail.id),
            None,
        );
        items.push(to_item(detail, keys)?);
    }
    for questionnaire in &seed.questionnaires {
        let pk = keys::questionnaire(questionnaire.id);
        let list = Some(("QUESTIONNAIRES".to_string(), padded(questionnaire.id)));
        items.push(to_item(
            &questionnaire.summary(),
            data_keys(pk.clone(), keys::META.into(), list),
        )?);
        for question in &questionnaire.questions {
            let sk = format!("QUESTION#{}", padded(question.id));
            items.push(to_item(question, data_keys(pk.clone(), sk, None))?);
        }
        let mut entry_portal = HashMap::new();
        for entry in &questionnaire.clients {
            let portal = client_portal.get(&entry.client_id).copied().unwrap_or(0);
            entry_portal.insert(entry.id, portal);
            items.push(entry_item(
                entry,
                portal,
                &Schedule::defaults_of(questionnaire),
            )?);
        }
        for answer in &questionnaire.answers {
            let portal = entry_portal
                .get(&answer.questionnaire_call_id)
                .copied()
                .unwrap_or(0);
            items.push(answer_item(questionnaire.id, portal, answer)?);
        }
    }
    Ok(items)
}

#[async_trait]
impl SeedWriter for DynamoStore {
    async fn write_seed(&self, seed: &Seed) -> StoreResult<()> {
        self.batch_write(&self.tables.data, seed_items(seed)?)
            .await?;
        for (kind, floor) in seed.counter_floors() {
            let result = self
                .client
                .update_item()
                .table_name(&self.tables.data)
                .set_key(Some(key(keys::COUNTER, Some(kind))))
                .update_expression("SET #v = :floor")
                .condition_expression("attribute_not_exists(#v) OR #v < :floor")
                .expression_attribute_names("#v", "value")
                .expression_attribute_values(":floor", n(floor))
                .send()
                .await
                .map_err(classify);
            match result {
                Ok(_) | Err(StoreError::ConditionFailed) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(())
    }
}

// ---- portal data --------------------------------------------------------------------------

const CALL_STATS: &str = "callStats";

/// A client as stored: the record (derived fields left empty) plus its call history.
fn client_item(client: &Client, stats: &CallStats) -> StoreResult<Item> {
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
fn client_from_item(mut item: Item, now: Timestamp) -> StoreResult<Client> {
    let stats: CallStats = match item.remove(CALL_STATS) {
        Some(value) => serde_dynamo::from_attribute_value(value)
            .map_err(|e| StoreError::Corrupt(format!("call stats: {e}")))?,
        None => CallStats::default(),
    };
    let mut client: Client = from_item(item)?;
    stats.apply(&mut client, now);
    Ok(client)
}

fn national_id_claim(portal_id: i32, national_id: &str, client_id: i32) -> Item {
    let mut item = data_keys(
        keys::portal(portal_id),
        keys::national_id(national_id),
        None,
    );
    item.insert("clientId".into(), n(client_id));
    item
}

fn claimed_client_id(item: &Item) -> StoreResult<i32> {
    match item.get("clientId") {
        Some(AttributeValue::N(id)) => id
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("clientId {id:?}"))),
        other => Err(StoreError::Corrupt(format!("clientId {other:?}"))),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ImportGuardItem {
    failures: Vec<Timestamp>,
    version: u64,
}

impl DynamoStore {
    /// The national ids among `national_ids` the portal has claimed, with their clients.
    async fn national_id_claims(
        &self,
        portal_id: i32,
        national_ids: &[String],
    ) -> StoreResult<HashMap<String, i32>> {
        let keys = national_ids
            .iter()
            .map(|id| key(keys::portal(portal_id), Some(&keys::national_id(id))))
            .collect();
        let mut claims = HashMap::new();
        for item in self.batch_get_data(keys).await? {
            let national_id = sk_of(&item).trim_start_matches("NATID#").to_string();
            claims.insert(national_id, claimed_client_id(&item)?);
        }
        Ok(claims)
    }

    /// Reserves `count` consecutive ids of a kind in one counter update; returns the first.
    async fn reserve_ids(&self, kind: &str, count: usize) -> StoreResult<i32> {
        let count = i32::try_from(count).map_err(|_| StoreError::Corrupt("id batch".into()))?;
        let out = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(keys::COUNTER, Some(kind))))
            .update_expression("ADD #v :n")
            // The counter may not pass the int32 range of the ids it hands out.
            .condition_expression("attribute_not_exists(#v) OR #v <= :max")
            .expression_attribute_names("#v", "value")
            .expression_attribute_values(":n", n(count))
            .expression_attribute_values(":max", n(i32::MAX - count))
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(|e| match classify(e) {
                StoreError::ConditionFailed => {
                    StoreError::Corrupt(format!("{kind} ids are exhausted"))
                }
                other => other,
            })?;
        match out.attributes.and_then(|mut a| a.remove("value")) {
            Some(AttributeValue::N(last)) => last
                .parse::<i32>()
                .map(|last| last - count + 1)
                .map_err(|_| StoreError::Corrupt(format!("counter {last:?}"))),
            other => Err(StoreError::Corrupt(format!("counter {other:?}"))),
        }
    }

    /// A consistent Query of the portal's clients from key `from` on, deleted ones filtered
    /// out by DynamoDB, and only those also matching `condition` (over `#n`-style names and
    /// `:v` values the caller adds) when given.
    fn live_clients_query(
        &self,
        portal_id: i32,
        from: &str,
        condition: Option<&str>,
    ) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
        let filter = match condition {
            Some(condition) => format!("isDeleted = :false AND ({condition})"),
            None => "isDeleted = :false".to_string(),
        };
        self.client
            .query()
            .table_name(&self.tables.data)
            .key_condition_expression("pk = :pk AND sk BETWEEN :from AND :to")
            .filter_expression(filter)
            .expression_attribute_values(":pk", s(keys::portal(portal_id)))
            .expression_attribute_values(":from", s(from))
            .expression_attribute_values(":to", s(keys::CLIENTS_END))
            .expression_attribute_values(":false", AttributeValue::Bool(false))
            .consistent_read(true)
    }

    /// The query behind `GET /clients`: clients after `page.after`, deleted ones filtered out
    /// by DynamoDB, pages read until the page is full plus one (to know whether more follow).
    async fn client_items(
        &self,
        portal_id: i32,
        page: ClientPageRequest,
    ) -> StoreResult<Vec<Item>> {
        let from = keys::client(page.after.map_or(0, |after| after.saturating_add(1)));
        let wanted = page.limit.map(|limit| limit + 1);
        let mut items = Vec::new();
        let mut start_key = None;
        loop {
            let remaining = wanted.map(|wanted| wanted - items.len());
            let out = self
                .live_clients_query(portal_id, &from, None)
                // DynamoDB applies `Limit` before the filter; a little slack keeps a page
                // to one request when deleted clients fall inside it.
                .set_limit(remaining.map(|r| i32::try_from(r + PAGE_SLACK).unwrap_or(i32::MAX)))
                .set_exclusive_start_key(start_key)
                .send()
                .await
                .map_err(classify)?;
            items.extend(out.items.unwrap_or_default());
            start_key = out.last_evaluated_key;
            let full = wanted.is_some_and(|wanted| items.len() >= wanted);
            if full || start_key.is_none() {
                return Ok(items);
            }
        }
    }
}

#[async_trait]
impl ClientStore for DynamoStore {
    async fn clients(
        &self,
        portal_id: i32,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage> {
        let mut items = self.client_items(portal_id, page).await?;
        let more = page.limit.is_some_and(|limit| items.len() > limit);
        if let Some(limit) = page.limit {
            items.truncate(limit);
        }
        let clients = items
            .into_iter()
            .map(|item| client_from_item(item, now))
            .collect::<StoreResult<Vec<_>>>()?;
        let next_after = if more {
            clients.last().map(|client| client.id)
        } else {
            None
        };
        Ok(ClientPage {
            clients,
            next_after,
        })
    }

    async fn update_client(
        &self,
        portal_id: i32,
        client_id: i32,
        changes: &ClientChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Client>> {
        let item_key = key(keys::portal(portal_id), Some(&keys::client(client_id)));
        if changes.is_empty() {
            let item = self
                .get_data(keys::portal(portal_id), &keys::client(client_id))
                .await?;
            return item
                .filter(|item| !matches!(item.get("isDeleted"), Some(AttributeValue::Bool(true))))
                .map(|item| client_from_item(item, now))
                .transpose();
        }
        // Only the named attributes are written, so concurrent changes of other fields (or of
        // the call history) survive.
        let mut update = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression("attribute_exists(pk) AND isDeleted = :false")
            .expression_attribute_values(":false", AttributeValue::Bool(false))
            .return_values(ReturnValue::AllNew);
        let mut assignments = Vec::with_capacity(changes.len());
        for (i, (field, value)) in changes.iter().enumerate() {
            assignments.push(format!("#f{i} = :v{i}"));
            update = update
                .expression_attribute_names(format!("#f{i}"), field.attribute())
                .expression_attribute_values(
                    format!(":v{i}"),
                    value.clone().map_or(AttributeValue::Null(true), s),
                );
        }
        let result = update
            .update_expression(format!("SET {}", assignments.join(", ")))
            .send()
            .await
            .map_err(classify);
        match result {
            Ok(out) => out
                .attributes
                .map(|item| client_from_item(item, now))
                .transpose(),
            Err(StoreError::ConditionFailed) => Ok(None),
            Err(other) => Err(other),
        }
    }
}

#[async_trait]
impl ContactDetailStore for DynamoStore {
    async fn contact_details(&self, portal_id: i32) -> StoreResult<Vec<ContactDetail>> {
        self.records_with_prefix(keys::portal(portal_id), "CONTACT#")
            .await
    }

    async fn contact_detail(&self, portal_id: i32, id: i32) -> StoreResult<Option<ContactDetail>> {
        self.get_data(keys::portal(portal_id), &keys::contact(id))
            .await?
            .map(from_item)
            .transpose()
    }

    async fn update_contact_detail(
        &self,
        portal_id: i32,
        id: i32,
        changes: &ContactDetailChanges,
    ) -> StoreResult<Option<ContactDetail>> {
        let text = |value: &Option<String>| value.clone().map_or(AttributeValue::Null(true), s);
        let result = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(keys::portal(portal_id), Some(&keys::contact(id)))))
            .update_expression(
                "SET #name = :name, contactNumber = :number, contactEmail = :email, \
                 contactBetweenStart = :start, contactBetweenEnd = :end, priority = :priority, \
                 isActive = :active",
            )
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#name", "name")
            .expression_attribute_values(":name", s(changes.name.clone()))
            .expression_attribute_values(":number", text(&changes.contact_number))
            .expression_attribute_values(":email", text(&changes.contact_email))
            .expression_attribute_values(":start", text(&changes.contact_between_start))
            .expression_attribute_values(":end", text(&changes.contact_between_end))
            .expression_attribute_values(":priority", n(changes.priority))
            .expression_attribute_values(":active", AttributeValue::Bool(changes.is_active))
            .return_values(ReturnValue::AllNew)
            .send()
            .await
            .map_err(classify);
        match result {
            Ok(out) => out.attributes.map(from_item).transpose(),
            Err(StoreError::ConditionFailed) => Ok(None),
            Err(other) => Err(other),
        }
    }
}

#[async_trait]
impl PortalStore for DynamoStore {
    async fn portal(&self, id: i32) -> StoreResult<Option<Portal>> {
        self.get_data(keys::portal(id), keys::META)
            .await?
            .map(from_item)
            .transpose()
    }

    async fn import_context(&self, portal_id: i32) -> StoreResult<ImportContext> {
        let items = self
            .batch_get_data(vec![
                key(keys::portal(portal_id), Some(keys::META)),
                key(keys::portal(portal_id), Some(keys::IMPORT_GUARD)),
            ])
            .await?;
        let mut context = ImportContext::default();
        for item in items {
            if sk_of(&item) == keys::META {
                context.portal = Some(from_item(item)?);
            } else {
                let stored: ImportGuardItem = from_item(item)?;
                context.guard = ImportGuard {
                    failures: stored.failures,
                    version: stored.version,
                };
            }
        }
        Ok(context)
    }

    async fn save_import_guard(
        &self,
        portal_id: i32,
        guard: &ImportGuard,
        read_version: u64,
    ) -> StoreResult<()> {
        let mut keys = data_keys(keys::portal(portal_id), keys::IMPORT_GUARD.into(), None);
        // Kept a day past the newest failure; DynamoDB's TTL removes it after that.
        if let Some(newest) = guard.failures.iter().max() {
            keys.extend([ttl_attribute(*newest + chrono::Duration::days(1))]);
        }
        let item = to_item(
            &ImportGuardItem {
                failures: guard.failures.clone(),
                version: guard.version,
            },
            keys,
        )?;
        let (condition, values) = version_guard(read_version);
        self.client
            .put_item()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_values(values)
            .send()
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn import_clients(
        &self,
        portal_id: i32,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>> {
        let mut claims = self.national_id_claims(portal_id, national_ids).await?;
        let new: Vec<&String> = national_ids
            .iter()
            .filter(|id| !claims.contains_key(*id))
            .collect();
        let mut created: HashMap<String, i32> = HashMap::new();
        if !new.is_empty() {
            let first = self.reserve_ids(counters::CLIENT, new.len()).await?;
            let mut pending: Vec<(i32, &String)> = (first..).zip(new).collect();
            // A concurrent import of the same ids makes a chunk fail as a whole; the ids it
            // claimed meanwhile are then existing, and the rest is tried again.
            for _ in 0..5 {
                let mut retry = Vec::new();
                for chunk in pending.chunks(IMPORT_CLIENTS_PER_TRANSACTION) {
                    let mut writes = Vec::with_capacity(chunk.len() * 2);
                    for (client_id, national_id) in chunk {
                        let client = Client {
                            id: *client_id,
                            portal_id,
                            national_id: Some((*national_id).clone()),
                            ..Client::default()
                        };
                        for item in [
                            client_item(&client, &CallStats::default())?,
                            national_id_claim(portal_id, national_id, *client_id),
                        ] {
                            writes.push(self.data_put(item, Some("attribute_not_exists(pk)"))?);
                        }
                    }
                    match self.transact(writes).await {
                        Ok(()) => {
                            created.extend(chunk.iter().map(|(id, nid)| ((*nid).clone(), *id)))
                        }
                        // DynamoDB reports a race with a concurrent transaction on the same
                        // claims either way.
                        Err(StoreError::ConditionFailed | StoreError::Throttled(_)) => {
                            let ids: Vec<String> =
                                chunk.iter().map(|(_, nid)| (*nid).clone()).collect();
                            let found = self.national_id_claims(portal_id, &ids).await?;
                            retry.extend(
                                chunk
                                    .iter()
                                    .filter(|(_, nid)| !found.contains_key(*nid))
                                    .copied(),
                            );
                            claims.extend(found);
                        }
                        Err(other) => return Err(other),
                    }
                }
                pending = retry;
                if pending.is_empty() {
                    break;
                }
            }
            if !pending.is_empty() {
                return Err(StoreError::Throttled(
                    "national ids kept changing during the import".into(),
                ));
            }
        }
        Ok(national_ids
            .iter()
            .map(|national_id| match created.get(national_id) {
                Some(client_id) => Imported::Created {
                    client_id: *client_id,
                    national_id: national_id.clone(),
                },
                None => Imported::Existing {
                    client_id: claims.get(national_id).copied().unwrap_or_default(),
                    national_id: national_id.clone(),
                },
            })
            .collect())
    }
}

// ---- questionnaires ----------------------------------------------------------------------

const SCHEDULE: &str = "schedule";
const PENDING: &str = "pending";
/// Rounds an insert may lose to concurrent inserts before it answers 503.
const QUESTION_INSERT_ATTEMPTS: u32 = 16;

/// An entry as stored: open under `OPEN#{client}` in the due-time index, closed under
/// `ENTRY#{id}`, with its schedule.
fn entry_item(
    entry: &QuestionnaireClientEntry,
    portal_id: i32,
    schedule: &Schedule,
) -> StoreResult<Item> {
    let pk = keys::questionnaire_portal(entry.questionnaire_id, portal_id);
    let keys = match entry.next_try_at {
        Some(next) if entry_is_open(entry, schedule) => data_keys(
            pk,
            keys::open_entry(entry.client_id),
            Some((keys::due(entry.id), keys::due_at(next, entry.id))),
        ),
        _ => data_keys(pk, keys::closed_entry(entry.id), None),
    };
    let mut item = to_item(entry, keys)?;
    item.insert("gsi2pk".into(), s(keys::entry_id(entry.id)));
    item.insert(
        SCHEDULE.into(),
        serde_dynamo::to_attribute_value(schedule)
            .map_err(|e| StoreError::Corrupt(format!("cannot encode schedule: {e}")))?,
    );
    Ok(item)
}

fn entry_from_item(mut item: Item) -> StoreResult<QuestionnaireClientEntry> {
    item.remove(SCHEDULE);
    item.remove(PENDING);
    from_item(item)
}

fn attribute<T: DeserializeOwned>(item: &mut Item, name: &str) -> StoreResult<Option<T>> {
    item.remove(name)
        .map(|value| {
            serde_dynamo::from_attribute_value(value)
                .map_err(|e| StoreError::Corrupt(format!("{name}: {e}")))
        })
        .transpose()
}

fn encode<T: Serialize>(value: &T) -> StoreResult<AttributeValue> {
    serde_dynamo::to_attribute_value(value)
        .map_err(|e| StoreError::Corrupt(format!("cannot encode attribute: {e}")))
}

fn due_entry_from_item(mut item: Item) -> StoreResult<DueEntry> {
    let portal_id = keys::entry_portal(pk_of(&item))
        .ok_or_else(|| StoreError::Corrupt(format!("entry key {:?}", pk_of(&item))))?;
    let schedule = attribute(&mut item, SCHEDULE)?
        .ok_or_else(|| StoreError::Corrupt("entry without schedule".into()))?;
    let pending = attribute(&mut item, PENDING)?;
    Ok(DueEntry {
        entry: from_item(item)?,
        portal_id,
        schedule,
        pending,
    })
}

/// The key of the item holding an open entry the scheduler read.
fn open_entry_key(due: &DueEntry) -> Item {
    key(
        keys::questionnaire_portal(due.entry.questionnaire_id, due.portal_id),
        Some(&keys::open_entry(due.entry.client_id)),
    )
}

/// A condition or update expression with its attribute names and values.
#[derive(Default)]
struct Expression {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Expression {
    fn name(&mut self, placeholder: &str, name: &str) -> &mut Self {
        self.names.insert(placeholder.into(), name.into());
        self
    }
    fn value(&mut self, placeholder: &str, value: AttributeValue) -> &mut Self {
        self.values.insert(placeholder.into(), value);
        self
    }
}

/// The condition that an open entry is still as the scheduler read it: the same entry (a
/// client's `OPEN#` key is reused by its next entry), the same attempts, the same claim.
fn entry_as_read(due: &DueEntry, expression: &mut Expression) -> StoreResult<&'static str> {
    expression
        .name("#id", "id")
        .value(":id", n(due.entry.id))
        .name("#pending", PENDING);
    Ok(match due.pending {
        None => {
            expression
                .name("#schedule", SCHEDULE)
                .name("#attempts", "attempts")
                .value(":read", n(due.schedule.attempts));
            "#id = :id AND #schedule.#attempts = :read AND attribute_not_exists(#pending)"
        }
        Some(pending) => {
            expression
                .name("#attempt", "attempt")
                .name("#lease", "leaseUntil")
                .value(":held", n(pending.attempt))
                .value(":lease", encode(&pending.lease_until)?);
            "#id = :id AND #pending.#attempt = :held AND #pending.#lease = :lease"
        }
    })
}

fn version_of(item: &Item) -> StoreResult<u64> {
    match item.get("version") {
        Some(AttributeValue::N(version)) => version
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("version {version:?}"))),
        _ => Ok(0),
    }
}

impl Expression {
    /// Names and values as the SDK takes them: DynamoDB refuses empty maps.
    fn into_parts(self) -> (Option<HashMap<String, String>>, Option<Item>) {
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

impl DynamoStore {
    /// A transaction's update of one data-table item.
    fn data_update(
        &self,
        item_key: Item,
        update: &str,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        Update::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(txn_update)
            .map_err(build_error)
    }

    /// A transaction's check that one data-table item is in a given state.
    fn data_check(
        &self,
        item_key: Item,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        ConditionCheck::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(|check| TransactWriteItem::builder().condition_check(check).build())
            .map_err(build_error)
    }

    fn data_delete(
        &self,
        item_key: Item,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<TransactWriteItem> {
        let (names, values) = expression.into_parts();
        Delete::builder()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(txn_delete)
            .map_err(build_error)
    }

    fn data_put(&self, item: Item, condition: Option<&str>) -> StoreResult<TransactWriteItem> {
        Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_string))
            .build()
            .map(txn_put)
            .map_err(build_error)
    }
}

#[async_trait]
impl QuestionnaireStore for DynamoStore {
    async fn questionnaires(&self) -> StoreResult<Vec<QuestionnaireSummary>> {
        self.query_all(
            Some("gsi1"),
            "gsi1pk = :list",
            vec![(":list", s("QUESTIONNAIRES"))],
        )
        .await?
        .into_iter()
        .map(from_item)
        .collect()
    }

    async fn questionnaire(
        &self,
        id: i32,
        portal_id: i32,
    ) -> StoreResult<Option<QuestionnaireDetail>> {
        let (definition, portal) = futures::future::try_join(
            self.query_all(None, "pk = :pk", vec![(":pk", s(keys::questionnaire(id)))]),
            self.query_all(
                None,
                "pk = :pk",
                vec![(":pk", s(keys::questionnaire_portal(id, portal_id)))],
            ),
        )
        .await?;
        let mut summary: Option<QuestionnaireSummary> = None;
        let mut questions: Vec<Question> = Vec::new();
        for item in definition {
            match sk_of(&item) {
                keys::META => summary = Some(from_item(item)?),
                sk if sk.starts_with("QUESTION#") => questions.push(from_item(item)?),
                _ => {}
            }
        }
        let Some(summary) = summary else {
            return Ok(None);
        };
        let mut clients = Vec::new();
        let mut answers: Vec<Answer> = Vec::new();
        for item in portal {
            let sk = sk_of(&item);
            if sk.starts_with("OPEN#") || sk.starts_with("ENTRY#") {
                clients.push(entry_from_item(item)?);
            } else if sk.starts_with("ANSWER#") {
                answers.push(from_item(item)?);
            }
        }
        Ok(Some(summary.into_detail(questions, answers, clients)))
    }

    async fn add_question(
        &self,
        questionnaire_id: i32,
        question: &NewQuestion,
    ) -> StoreResult<AddQuestionOutcome> {
        let pk = keys::questionnaire(questionnaire_id);
        let mut id = None;
        // A concurrent insert changes the version; read again and shift again, after a short
        // random pause so that a crowd of writers spreads out.
        for attempt in 0..QUESTION_INSERT_ATTEMPTS {
            if attempt > 0 {
                let pause = rand::random_range(0..10 * u64::from(attempt));
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
            }
            let items = self
                .query_all(None, "pk = :pk", vec![(":pk", s(pk.clone()))])
                .await?;
            let mut exists = false;
            let mut version = 0;
            let mut questions: Vec<Question> = Vec::new();
            for item in items {
                match sk_of(&item) {
                    keys::META => exists = true,
                    keys::QUESTIONS_VERSION => version = version_of(&item)?,
                    sk if sk.starts_with("QUESTION#") => questions.push(from_item(item)?),
                    _ => {}
                }
            }
            if !exists {
                return Ok(AddQuestionOutcome::NoQuestionnaire);
            }
            // Our question is there: an earlier attempt landed and its answer was lost (the
            // SDK retried a transaction that had been applied). Inserting again would shift it.
            if let Some(landed) = id.and_then(|id| questions.iter().find(|q| q.id == id)) {
                return Ok(AddQuestionOutcome::Added(landed.clone()));
            }
            if let Some(refusal) = question_refusal(&questions, question.position) {
                return Ok(refusal);
            }
            let question_id = match id {
                Some(id) => id,
                None => *id.insert(self.reserve_ids(counters::QUESTION, 1).await?),
            };
            let added = Question {
                id: question_id,
                questionnaire_id,
                position: question.position,
                kind: Some(question.kind.clone()),
                prompt: Some(question.prompt.clone()),
                metadata: question.metadata.clone(),
            };
            let mut version_item = data_keys(pk.clone(), keys::QUESTIONS_VERSION.into(), None);
            version_item.insert("version".into(), n(version + 1));
            let (condition, values) = version_guard(version);
            let guard = Put::builder()
                .table_name(&self.tables.data)
                .set_item(Some(version_item))
                .condition_expression(condition)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            let mut writes = vec![
                txn_put(guard),
                self.data_put(
                    to_item(
                        &added,
                        data_keys(pk.clone(), keys::question(question_id), None),
                    )?,
                    Some("attribute_not_exists(pk)"),
                )?,
            ];
            for moved in questions.iter().filter(|q| q.position >= question.position) {
                writes.push(txn_update(
                    Update::builder()
                        .table_name(&self.tables.data)
                        .set_key(Some(key(pk.clone(), Some(&keys::question(moved.id)))))
                        .update_expression("SET #position = :position")
                        .expression_attribute_names("#position", "position")
                        .expression_attribute_values(":position", n(moved.position + 1))
                        .build()
                        .map_err(build_error)?,
                ));
            }
            match self.transact(writes).await {
                Ok(()) => return Ok(AddQuestionOutcome::Added(added)),
                Err(StoreError::ConditionFailed | StoreError::Throttled(_)) => continue,
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Throttled(
            "questions kept changing during the insert".into(),
        ))
    }

    async fn start_entries(
        &self,
        questionnaire_id: i32,
        portal_id: i32,
        entries: &[NewEntry],
        now: Timestamp,
    ) -> StoreResult<StartOutcome> {
        let entry_pk = keys::questionnaire_portal(questionnaire_id, portal_id);
        let mut ids = None;
        for _ in 0..3 {
            let mut wanted = vec![key(keys::questionnaire(questionnaire_id), Some(keys::META))];
            for new in entries {
                wanted.push(key(
                    keys::portal(portal_id),
                    Some(&keys::client(new.client_id)),
                ));
                wanted.push(key(
                    entry_pk.clone(),
                    Some(&keys::open_entry(new.client_id)),
                ));
            }
            let mut exists = false;
            let mut live_clients = std::collections::HashSet::new();
            let mut open: HashMap<i32, QuestionnaireClientEntry> = HashMap::new();
            for item in self.batch_get_data(wanted).await? {
                let sk = sk_of(&item).to_string();
                if sk == keys::META {
                    exists = true;
                } else if sk.starts_with("OPEN#") {
                    let entry = entry_from_item(item)?;
                    open.insert(entry.client_id, entry);
                } else if !matches!(item.get("isDeleted"), Some(AttributeValue::Bool(true))) {
                    live_clients.insert(client_from_item(item, now)?.id);
                }
            }
            if !exists {
                return Ok(StartOutcome::NoQuestionnaire);
            }
            let unknown: Vec<i32> = entries
                .iter()
                .map(|new| new.client_id)
                .filter(|id| !live_clients.contains(id))
                .collect();
            if !unknown.is_empty() {
                return Ok(StartOutcome::UnknownClients(unknown));
            }
            let fresh: Vec<&NewEntry> = entries
                .iter()
                .filter(|new| !open.contains_key(&new.client_id))
                .collect();
            let already_scheduled = entries
                .iter()
                .filter_map(|new| open.get(&new.client_id).cloned())
                .collect();
            if fresh.is_empty() {
                return Ok(StartOutcome::Started {
                    created: Vec::new(),
                    already_scheduled,
                });
            }
            let first = match ids {
                Some((first, count)) if count >= fresh.len() => first,
                _ => {
                    let first = self
                        .reserve_ids(counters::QUESTIONNAIRE_ENTRY, fresh.len())
                        .await?;
                    ids.insert((first, fresh.len())).0
                }
            };
            let mut created = Vec::with_capacity(fresh.len());
            let mut writes = Vec::with_capacity(fresh.len());
            for (id, new) in (first..).zip(&fresh) {
                let entry = QuestionnaireClientEntry {
                    id,
                    client_id: new.client_id,
                    questionnaire_id,
                    phone_call_id: None,
                    created_at: now,
                    next_try_at: Some(new.start_date),
                };
                writes.push(self.data_put(
                    entry_item(&entry, portal_id, &new.schedule)?,
                    Some("attribute_not_exists(pk)"),
                )?);
                created.push(entry);
            }
            match self.transact(writes).await {
                Ok(()) => {
                    return Ok(StartOutcome::Started {
                        created,
                        already_scheduled,
                    });
                }
                // A concurrent start opened an entry for one of these clients: read again.
                Err(StoreError::ConditionFailed | StoreError::Throttled(_)) => continue,
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Throttled(
            "entries kept changing during the start".into(),
        ))
    }
}

// ---- organisations --------------------------------------------------------------------------

#[async_trait]
impl OrganisationStore for DynamoStore {
    async fn organisation_of(&self, portal_id: i32) -> StoreResult<Option<i32>> {
        Ok(PortalStore::portal(self, portal_id)
            .await?
            .map(|portal| portal.organisation_id))
    }

    async fn organisation_clients(
        &self,
        organisation_id: i32,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>> {
        let portals = self.organisation_portals(organisation_id).await?;
        let pages = portals
            .iter()
            .map(|portal| self.client_items(*portal, ClientPageRequest::default()));
        futures::future::try_join_all(pages)
            .await?
            .into_iter()
            .flatten()
            .map(|item| client_from_item(item, now))
            .collect()
    }

    async fn fix_target(
        &self,
        organisation_id: i32,
        call_id: i32,
        client_id: i32,
        now: Timestamp,
    ) -> StoreResult<FixLookup> {
        let (portals, call) = futures::future::try_join(
            self.organisation_portals(organisation_id),
            PhoneCallReader::call_requests(self, call_id),
        )
        .await?;
        let Some((call, requests)) = call.filter(|(call, _)| portals.contains(&call.portal_id))
        else {
            return Ok(FixLookup::NoCall);
        };
        // The client's portal is not known from its id: ask every portal of the organisation,
        // together with the client that counts the call today, in one batch.
        let counted_elsewhere = FixTarget::counted_elsewhere(&call, client_id);
        let mut wanted = vec![client_id];
        if counted_elsewhere {
            wanted.push(call.client_id);
        }
        let keys = portals
            .iter()
            .flat_map(|portal| {
                wanted
                    .iter()
                    .map(move |client| key(keys::portal(*portal), Some(&keys::client(*client))))
            })
            .collect();
        let mut found: HashMap<i32, Client> = HashMap::new();
        for item in self.batch_get_data(keys).await? {
            let client = client_from_item(item, now)?;
            found.insert(client.id, client);
        }
        let previous_client = found
            .get(&call.client_id)
            .filter(|_| counted_elsewhere)
            .map(|previous| (previous.portal_id, previous.id));
        match found.remove(&client_id).filter(|client| !client.is_deleted) {
            Some(client) => Ok(FixLookup::Found(Box::new(FixTarget {
                call,
                requests,
                client,
                previous_client,
            }))),
            None => Ok(FixLookup::NoClient),
        }
    }

    async fn fix_call(&self, target: &FixTarget, primary_number: Option<&str>) -> StoreResult<()> {
        let call = target.fixed_call();
        let stats_key = CountedCall::key(call.id);
        let mut writes = Vec::with_capacity(target.requests.len() + 3);

        let mut expression = Expression::default();
        expression
            .name("#client", "clientId")
            .name("#portal", "portalId")
            .name("#unknown", "isUnknown")
            .value(":client", n(call.client_id))
            .value(":portal", n(call.portal_id))
            .value(":false", AttributeValue::Bool(false))
            .value(":readClient", n(target.call.client_id))
            .value(":readPortal", n(target.call.portal_id))
            .value(":readUnknown", AttributeValue::Bool(target.call.is_unknown));
        writes.push(self.data_update(
            key(keys::call(call.id), Some(keys::META)),
            "SET #client = :client, #portal = :portal, #unknown = :false",
            "#client = :readClient AND #portal = :readPortal AND #unknown = :readUnknown",
            expression,
        )?);

        for request in &target.requests {
            let mut expression = Expression::default();
            expression
                .name("#client", "clientId")
                .name("#portal", "portalId")
                .value(":client", n(call.client_id))
                .value(":portal", n(call.portal_id));
            writes.push(self.data_update(
                key(keys::call(call.id), Some(&keys::request(request.id))),
                "SET #client = :client, #portal = :portal",
                "attribute_exists(pk)",
                expression,
            )?);
        }

        let mut expression = Expression::default();
        let mut assignments = Vec::new();
        expression
            .name("#deleted", "isDeleted")
            .value(":false", AttributeValue::Bool(false));
        if let Some(counted) = CountedCall::of(&call) {
            expression
                .name("#stats", CALL_STATS)
                .name("#call", &stats_key)
                .value(":counted", encode(&counted)?);
            assignments.push("#stats.#call = :counted");
        }
        if let Some(number) = primary_number {
            expression
                .name("#primary", "primaryNumber")
                .value(":primary", s(number));
            assignments.push("#primary = :primary");
        }
        let client_key = key(
            keys::portal(target.client.portal_id),
            Some(&keys::client(target.client.id)),
        );
        let live = "attribute_exists(pk) AND #deleted = :false";
        writes.push(if assignments.is_empty() {
            // Nothing to change on the client, but the fix still needs it alive.
            self.data_check(client_key, live, expression)?
        } else {
            self.data_update(
                client_key,
                &format!("SET {}", assignments.join(", ")),
                live,
                expression,
            )?
        });

        if let Some((portal_id, client_id)) = target.previous_client {
            let mut expression = Expression::default();
            expression
                .name("#stats", CALL_STATS)
                .name("#call", &stats_key);
            writes.push(self.data_update(
                key(keys::portal(portal_id), Some(&keys::client(client_id))),
                "REMOVE #stats.#call",
                "attribute_exists(pk)",
                expression,
            )?);
        }
        if writes.len() > TRANSACTION_LIMIT {
            return Err(StoreError::Backend(
                format!(
                    "fixing call {} needs {} writes, more than one transaction holds",
                    call.id,
                    writes.len()
                )
                .into(),
            ));
        }
        self.transact(writes).await
    }
}

impl DynamoStore {
    /// The ids of an organisation's portals (from the `gsi1` listing of portal items).
    async fn organisation_portals(&self, organisation_id: i32) -> StoreResult<Vec<i32>> {
        self.query_all(
            Some("gsi1"),
            "gsi1pk = :organisation",
            vec![(":organisation", s(keys::organisation(organisation_id)))],
        )
        .await?
        .into_iter()
        .map(|item| from_item::<Portal>(item).map(|portal| portal.id))
        .collect()
    }
}

// ---- call ingestion -----------------------------------------------------------------------

/// The receipt of a processed delivery: which conversation it was for.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReceiptItem {
    conversation_uuid: String,
}

impl DynamoStore {
    fn receipt_put(
        &self,
        portal_id: i32,
        event_id: &str,
        uuid: &str,
    ) -> StoreResult<TransactWriteItem> {
        let receipt = ReceiptItem {
            conversation_uuid: uuid.to_string(),
        };
        let item = to_item(
            &receipt,
            data_keys(keys::portal(portal_id), keys::event(event_id), None),
        )?;
        self.data_put(item, Some("attribute_not_exists(pk)"))
    }

    /// The held analysis of a conversation is still as read: the same one (consumed by this
    /// write), or none.
    fn held_as_read(
        &self,
        portal_id: i32,
        uuid: &str,
        held_event_id: Option<&str>,
    ) -> StoreResult<TransactWriteItem> {
        let held_key = key(keys::portal(portal_id), Some(&keys::held_analysis(uuid)));
        let mut expression = Expression::default();
        match held_event_id {
            Some(event_id) => {
                expression
                    .name("#held", "eventId")
                    .value(":held", s(event_id));
                self.data_delete(held_key, "#held = :held", expression)
            }
            None => self.data_check(held_key, "attribute_not_exists(pk)", expression),
        }
    }

    /// Completes an entry with a call: an open entry moves to its closed key if it is still as
    /// read; a closed one (out of attempts) gets the call if it has none yet.
    fn completion_writes(
        &self,
        due: &DueEntry,
        call_id: i32,
    ) -> StoreResult<Vec<TransactWriteItem>> {
        let completed = QuestionnaireClientEntry {
            phone_call_id: Some(call_id),
            next_try_at: None,
            ..due.entry.clone()
        };
        let item = entry_item(&completed, due.portal_id, &due.schedule)?;
        if due.is_open() {
            let mut expression = Expression::default();
            let condition = entry_as_read(due, &mut expression)?;
            return Ok(vec![
                self.data_delete(open_entry_key(due), condition, expression)?,
                self.data_put(item, None)?,
            ]);
        }
        let mut expression = Expression::default();
        expression
            .name("#id", "id")
            .name("#call", "phoneCallId")
            .value(":id", n(due.entry.id))
            .value(":null", s("NULL"));
        let (names, values) = expression.into_parts();
        Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(item))
            .condition_expression(
                "#id = :id AND (attribute_not_exists(#call) OR attribute_type(#call, :null))",
            )
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(|put| vec![txn_put(put)])
            .map_err(build_error)
    }

    /// Deletes items a failed ingestion wrote ahead of its call record, which no reader can
    /// reach; best effort, since they are invisible either way.
    async fn remove_unreachable(&self, keys: Vec<Item>) {
        for chunk in keys.chunks(TRANSACTION_LIMIT) {
            let deletes = chunk
                .iter()
                .map(|item_key| {
                    Delete::builder()
                        .table_name(&self.tables.data)
                        .set_key(Some(item_key.clone()))
                        .build()
                        .map(txn_delete)
                        .map_err(build_error)
                })
                .collect::<StoreResult<Vec<_>>>();
            let result = match deletes {
                Ok(deletes) => self.transact(deletes).await,
                Err(error) => Err(error),
            };
            if let Err(error) = result {
                tracing::warn!(error = %error, items = chunk.len(), "unreachable call items left behind");
            }
        }
    }
}

fn item_key(item: &Item) -> Item {
    ["pk", "sk"]
        .iter()
        .filter_map(|name| Some((name.to_string(), item.get(*name)?.clone())))
        .collect()
}

#[async_trait]
impl IngestStore for DynamoStore {
    async fn entry_by_id(&self, entry_id: i32) -> StoreResult<Option<DueEntry>> {
        self.query_all(
            Some("gsi2"),
            "gsi2pk = :entry",
            vec![(":entry", s(keys::entry_id(entry_id)))],
        )
        .await?
        .into_iter()
        .next()
        .map(due_entry_from_item)
        .transpose()
    }

    async fn delivery_state(
        &self,
        portal_id: i32,
        event_id: &str,
        conversation_uuid: &str,
        connected_uuid: Option<&str>,
    ) -> StoreResult<DeliveryState> {
        let pk = keys::portal(portal_id);
        let own = keys::conversation(conversation_uuid);
        let connected = connected_uuid
            .map(keys::conversation)
            .filter(|connected| *connected != own);
        let mut wanted = vec![
            key(pk.clone(), Some(&keys::event(event_id))),
            key(pk.clone(), Some(&own)),
            key(pk.clone(), Some(&keys::held_analysis(conversation_uuid))),
        ];
        if let Some(connected) = &connected {
            wanted.push(key(pk.clone(), Some(connected)));
        }
        let mut state = DeliveryState::default();
        for item in self.batch_get_data(wanted).await? {
            let sk = sk_of(&item).to_string();
            if sk.starts_with("EVENT#") {
                state.receipt = Some(from_item::<ReceiptItem>(item)?.conversation_uuid);
            } else if sk.starts_with("ANALYSIS#") {
                state.held = Some(from_item(item)?);
            } else if sk == own {
                state.conversation = Some(from_item(item)?);
            } else if connected.as_deref() == Some(sk.as_str()) {
                state.connected_to = Some(from_item(item)?);
            }
        }
        Ok(state)
    }

    async fn clients_by_number(&self, portal_id: i32, number: &str) -> StoreResult<Vec<Client>> {
        let items: Vec<Item> = self
            .live_clients_query(
                portal_id,
                &keys::client(0),
                Some("#phone = :number OR #primary = :number"),
            )
            .expression_attribute_names("#phone", "phone")
            .expression_attribute_names("#primary", "primaryNumber")
            .expression_attribute_values(":number", s(number))
            .into_paginator()
            .items()
            .send()
            .try_collect()
            .await
            .map_err(classify)?;
        items
            .into_iter()
            .map(|mut item| {
                item.remove(CALL_STATS);
                from_item(item)
            })
            .collect()
    }

    async fn questions(&self, questionnaire_id: i32) -> StoreResult<Vec<Question>> {
        self.records_with_prefix(keys::questionnaire(questionnaire_id), "QUESTION#")
            .await
    }

    async fn record_call(&self, new: &NewCall) -> StoreResult<i32> {
        let uuid =
            new.call.conversation_uuid.as_deref().ok_or_else(|| {
                StoreError::Corrupt("a call to record has no conversation".into())
            })?;
        let reserve = |kind: &'static str, count: usize| async move {
            if count == 0 {
                Ok(0)
            } else {
                self.reserve_ids(kind, count).await
            }
        };
        let (call_id, first_line, first_request) = futures::future::try_join3(
            reserve(counters::PHONE_CALL, 1),
            reserve(counters::TRANSCRIPT_LINE, new.lines.len()),
            reserve(counters::CLIENT_REQUEST, new.requests.len()),
        )
        .await?;
        let numbered = new.numbered(call_id, first_line, first_request)?;
        let call = &numbered.call;
        let (mut ahead, record) = call_items(call, &numbered.lines)?;
        for request in &numbered.requests {
            ahead.push(request_item(request)?);
        }

        let portal_pk = keys::portal(new.portal_id);
        let conversation = to_item(
            &new.conversation(call_id),
            data_keys(portal_pk, keys::conversation(uuid), None),
        )?;
        let mut last = vec![
            self.data_put(record, Some("attribute_not_exists(pk)"))?,
            self.data_put(conversation, Some("attribute_not_exists(pk)"))?,
            self.receipt_put(new.portal_id, &new.event_id, uuid)?,
            self.held_as_read(new.portal_id, uuid, new.held_event_id.as_deref())?,
        ];
        if let Some(counted) = CountedCall::of(call) {
            let mut expression = Expression::default();
            expression
                .name("#stats", CALL_STATS)
                .name("#call", &CountedCall::key(call_id))
                .value(":counted", encode(&counted)?);
            last.push(self.data_update(
                key(
                    keys::portal(call.portal_id),
                    Some(&keys::client(call.client_id)),
                ),
                "SET #stats.#call = :counted",
                "attribute_exists(pk)",
                expression,
            )?);
        }
        if let Some(completion) = &new.completion {
            let due = &completion.entry;
            last.extend(self.completion_writes(due, call_id)?);
            for answer in &completion.answers {
                // Answers go last, so that they share the call's transaction when they fit.
                ahead.push(answer_item(
                    due.entry.questionnaire_id,
                    due.portal_id,
                    answer,
                )?);
            }
        }

        // Lines and requests are unreachable until the call record exists, so they go ahead
        // in full transactions; the final one holds what must appear together, filled up
        // with the rest.
        let room = TRANSACTION_LIMIT.saturating_sub(last.len());
        let split = ahead.len().saturating_sub(room);
        let late = ahead.split_off(split);
        let call_pk = keys::call(call_id);
        let mut written = Vec::new();
        for chunk in ahead.chunks(TRANSACTION_LIMIT) {
            let puts = chunk
                .iter()
                .map(|item| self.data_put(item.clone(), None))
                .collect::<StoreResult<Vec<_>>>()?;
            if let Err(error) = self.transact(puts).await {
                self.remove_unreachable(written).await;
                return Err(error);
            }
            written.extend(
                chunk
                    .iter()
                    .filter(|item| pk_of(item) == call_pk)
                    .map(item_key),
            );
        }
        for item in late {
            last.push(self.data_put(item, None)?);
        }
        match self.transact(last).await {
            Ok(()) => Ok(call_id),
            Err(error) => {
                self.remove_unreachable(written).await;
                Err(error)
            }
        }
    }

    async fn hold_analysis(
        &self,
        portal_id: i32,
        conversation_uuid: &str,
        held: &HeldAnalysis,
    ) -> StoreResult<()> {
        let pk = keys::portal(portal_id);
        let held_item = to_item(
            held,
            data_keys(pk.clone(), keys::held_analysis(conversation_uuid), None),
        )?;
        let writes = vec![
            self.data_put(held_item, None)?,
            self.receipt_put(portal_id, &held.event_id, conversation_uuid)?,
            self.data_check(
                key(pk, Some(&keys::conversation(conversation_uuid))),
                "attribute_not_exists(pk)",
                Expression::default(),
            )?,
        ];
        self.transact(writes).await
    }

    async fn apply_analysis(&self, recorded: &RecordedAnalysis) -> StoreResult<()> {
        let analysis = &recorded.analysis;
        let mut expression = Expression::default();
        let mut assignments = Vec::new();
        let fields = [
            ("summary", encode(&analysis.summary)?),
            ("purpose", encode(&analysis.purpose)?),
            ("confidence", n(analysis.confidence)),
            ("confidenceReason", encode(&analysis.confidence_reason)?),
            ("satisfaction", n(analysis.satisfaction)),
            ("satisfactionReason", encode(&analysis.satisfaction_reason)?),
            ("name", encode(&analysis.name)?),
        ];
        for (i, (name, value)) in fields.into_iter().enumerate() {
            expression
                .name(&format!("#f{i}"), name)
                .value(&format!(":f{i}"), value);
            assignments.push(format!("#f{i} = :f{i}"));
        }
        let call_id = recorded.conversation.phone_call_id;
        let mut writes = vec![
            self.data_update(
                key(keys::call(call_id), Some(keys::META)),
                &format!("SET {}", assignments.join(", ")),
                "attribute_exists(pk)",
                expression,
            )?,
            self.receipt_put(
                recorded.portal_id,
                &recorded.event_id,
                &recorded.conversation_uuid,
            )?,
        ];
        if let Some(entry) = recorded.conversation.entry {
            for answer in &recorded.answers {
                let item = answer_item(entry.questionnaire_id, recorded.portal_id, answer)?;
                writes.push(self.data_put(item, None)?);
            }
        }
        if writes.len() > TRANSACTION_LIMIT {
            return Err(StoreError::Backend(
                format!(
                    "an analysis with {} answers does not fit one transaction",
                    recorded.answers.len()
                )
                .into(),
            ));
        }
        self.transact(writes).await
    }
}

// ---- questionnaire scheduler -----------------------------------------------------------------

impl DynamoStore {
    /// Moves an open entry to its closed key, if the open item still holds it as read.
    async fn close_open_entry(
        &self,
        due: &DueEntry,
        condition: &str,
        expression: Expression,
        schedule: &Schedule,
    ) -> StoreResult<bool> {
        let closed = QuestionnaireClientEntry {
            next_try_at: None,
            ..due.entry.clone()
        };
        let writes = vec![
            self.data_delete(open_entry_key(due), condition, expression)?,
            self.data_put(entry_item(&closed, due.portal_id, schedule)?, None)?,
        ];
        match self.transact(writes).await {
            Ok(()) => Ok(true),
            Err(StoreError::ConditionFailed) => Ok(false),
            Err(other) => Err(other),
        }
    }

    async fn update_open_entry(
        &self,
        due: &DueEntry,
        update: &str,
        condition: &str,
        expression: Expression,
    ) -> StoreResult<bool> {
        let result = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(open_entry_key(due)))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(expression.names))
            .set_expression_attribute_values(Some(expression.values))
            .send()
            .await
            .map_err(classify);
        match result {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionFailed) => Ok(false),
            Err(other) => Err(other),
        }
    }
}

#[async_trait]
impl SchedulerStore for DynamoStore {
    async fn due_entries(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<DueEntry>> {
        let until = keys::due_until(now);
        let shards = (0..keys::DUE_SHARDS).map(|shard| {
            let query = self
                .client
                .query()
                .table_name(&self.tables.data)
                .index_name("gsi1")
                .key_condition_expression("gsi1pk = :shard AND gsi1sk <= :until")
                .expression_attribute_values(":shard", s(keys::due(shard)))
                .expression_attribute_values(":until", s(until.clone()));
            async move {
                let mut pages = query.into_paginator().send();
                let mut items = Vec::new();
                while items.len() < limit {
                    match pages.next().await {
                        Some(page) => {
                            items.extend(page.map_err(classify)?.items.unwrap_or_default())
                        }
                        None => break,
                    }
                }
                StoreResult::Ok(items)
            }
        });
        let mut due: Vec<(String, DueEntry)> = Vec::new();
        for item in futures::future::try_join_all(shards)
            .await?
            .into_iter()
            .flatten()
        {
            let at = match item.get("gsi1sk") {
                Some(AttributeValue::S(at)) => at.clone(),
                _ => String::new(),
            };
            due.push((at, due_entry_from_item(item)?));
        }
        due.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(due.into_iter().take(limit).map(|(_, due)| due).collect())
    }

    async fn call_targets(&self, due: &[DueEntry]) -> StoreResult<CallTargets> {
        let mut wanted: HashMap<(String, String), Item> = HashMap::new();
        for due in due {
            let client = (
                keys::portal(due.portal_id),
                keys::client(due.entry.client_id),
            );
            let questionnaire = (
                keys::questionnaire(due.entry.questionnaire_id),
                keys::META.to_string(),
            );
            for (pk, sk) in [client, questionnaire] {
                let item = key(pk.clone(), Some(&sk));
                wanted.entry((pk, sk)).or_insert(item);
            }
        }
        let mut targets = CallTargets::default();
        for mut item in self.batch_get_data(wanted.into_values().collect()).await? {
            if sk_of(&item) == keys::META {
                let questionnaire: QuestionnaireSummary = from_item(item)?;
                targets
                    .questionnaires
                    .insert(questionnaire.id, questionnaire);
            } else {
                // Call statistics do not address a call.
                item.remove(CALL_STATS);
                let client: Client = from_item(item)?;
                targets.clients.insert(client.id, client);
            }
        }
        Ok(targets)
    }

    async fn claim_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<bool> {
        let mut expression = Expression::default();
        let condition = entry_as_read(due, &mut expression)?;
        expression
            .name("#schedule", SCHEDULE)
            .name("#attempts", "attempts")
            .value(":attempt", n(claim.attempt))
            .value(
                ":pending",
                encode(&PendingAttempt {
                    attempt: claim.attempt,
                    lease_until: claim.lease_until,
                })?,
            )
            .value(":due", s(keys::due_at(claim.lease_until, due.entry.id)));
        let mut update =
            String::from("SET #schedule.#attempts = :attempt, #pending = :pending, gsi1sk = :due");
        if let Some(next) = claim.next_try_at {
            expression
                .name("#next", "nextTryAt")
                .value(":next", encode(&next)?);
            update.push_str(", #next = :next");
        }
        self.update_open_entry(due, &update, condition, expression)
            .await
    }

    async fn confirm_attempt(&self, due: &DueEntry, claim: &Claim) -> StoreResult<()> {
        let mut expression = Expression::default();
        expression
            .name("#id", "id")
            .name("#pending", PENDING)
            .name("#attempt", "attempt")
            .value(":id", n(due.entry.id))
            .value(":attempt", n(claim.attempt));
        let condition = "#id = :id AND #pending.#attempt = :attempt";
        // A condition failure means a pass confirmed this attempt already.
        match claim.next_try_at {
            Some(next) => {
                expression.value(":due", s(keys::due_at(next, due.entry.id)));
                self.update_open_entry(
                    due,
                    "SET gsi1sk = :due REMOVE #pending",
                    condition,
                    expression,
                )
                .await?;
            }
            None => {
                let schedule = Schedule {
                    attempts: claim.attempt,
                    ..due.schedule
                };
                self.close_open_entry(due, condition, expression, &schedule)
                    .await?;
            }
        }
        Ok(())
    }

    async fn close_entry(&self, due: &DueEntry) -> StoreResult<bool> {
        let mut expression = Expression::default();
        let condition = entry_as_read(due, &mut expression)?;
        self.close_open_entry(due, condition, expression, &due.schedule)
            .await
    }
}

// ---- request counting ---------------------------------------------------------------------

/// The DynamoDB client functions and `local-api` use: each request it sends (retries
/// included) counts towards the HTTP request being served, for that request's log line.
pub fn client_from(sdk: &aws_config::SdkConfig) -> DynamoClient {
    let config = aws_sdk_dynamodb::config::Builder::from(sdk)
        .interceptor(PerRequestCount)
        .build();
    DynamoClient::from_conf(config)
}

#[derive(Debug)]
struct PerRequestCount;

impl Intercept for PerRequestCount {
    fn name(&self) -> &'static str {
        "PerRequestCount"
    }

    fn read_before_transmit(
        &self,
        _context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), BoxError> {
        crate::trace::count_dynamo_request();
        Ok(())
    }
}

/// The DynamoDB operation a request calls (`GetItem`), from its `x-amz-target` header.
pub fn operation_name(request: &aws_sdk_dynamodb::config::http::HttpRequest) -> &str {
    request
        .headers()
        .get("x-amz-target")
        .and_then(|target| target.rsplit('.').next())
        .unwrap_or("unknown")
}

/// Counts DynamoDB requests by operation (`x-amz-target`), retries included, so tests and
/// benchmarks can hold every endpoint to its request budget.
#[derive(Debug, Clone, Default)]
pub struct RequestCounter {
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

impl RequestCounter {
    pub fn take(&self) -> HashMap<String, usize> {
        std::mem::take(&mut *self.counts.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Intercept for RequestCounter {
    fn name(&self) -> &'static str {
        "RequestCounter"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), BoxError> {
        let operation = operation_name(context.request()).to_string();
        *self
            .counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(operation)
            .or_default() += 1;
        Ok(())
    }
}
