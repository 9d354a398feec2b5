//! Sessions and one-time passwords in the auth table.

use crate::ids::{AccountId, OrganisationId, PortalId};
use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, ReturnValue, Update};
use serde::{Deserialize, Serialize};

use crate::records::{Account, Role, Timestamp};
use crate::source::SourceNetwork;
use crate::store::dynamo::errors::{build_error, classify};
use crate::store::dynamo::items::{
    Item, attribute, from_item, key, n, s, to_item, ttl_attribute, version_guard,
};
use crate::store::dynamo::operations::{txn_delete, txn_put, txn_update};
use crate::store::dynamo::records::ACCOUNT_ORGANISATION;
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::limits::TRANSACTION_LIMIT;
use crate::store::optimistic::{self, LostRace, Round};
use crate::store::{
    AuthStore, CodeSend, OtpLogin, OtpRequest, OtpSave, SendLog, Session, SessionReader,
    StaffAccount, StoreError, StoreResult,
};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionItem {
    account_id: AccountId,
    /// Absent on sessions from before the access log.
    #[serde(default)]
    account_name: String,
    portal_id: PortalId,
    /// Absent on sessions from before roles: no organisation's questionnaires, staff rights.
    #[serde(default)]
    organisation_id: OrganisationId,
    #[serde(default)]
    role: Role,
    created_at: Timestamp,
    last_seen_at: Timestamp,
    expires_at: Timestamp,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OtpItem {
    request_id: String,
    /// Absent on codes from before known networks: such a login makes no network known.
    #[serde(default = "unknown_network")]
    source: SourceNetwork,
    code_hash: String,
    expires_at: Timestamp,
    attempts: u32,
    used: bool,
}

fn unknown_network() -> SourceNetwork {
    SourceNetwork::Unknown
}

#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SendLogItem {
    /// Named apart from the plain send times logs held before sends were counted per source
    /// address; such a log reads as empty (it expired within the hour).
    #[serde(default)]
    sourced_sends: Vec<CodeSend>,
    #[serde(default)]
    pending: std::collections::BTreeMap<SourceNetwork, String>,
    version: u64,
}

/// validate-otp adds a request id to this string set with `ADD`, which needs no read and
/// creates the set; request-otp's next write leaves it out again.
const VALIDATED: &str = "validated";
/// A known network is a top-level attribute `known <network>` holding the time it is known
/// until: validate-otp can `SET` it without the map a nested path would need to exist first.
const KNOWN_PREFIX: &str = "known ";

/// The send log from its item: the record, the validated set and the known networks.
fn send_log_from(mut item: Item) -> StoreResult<SendLog> {
    let validated = match item.remove(VALIDATED) {
        Some(AttributeValue::Ss(ids)) => ids.into_iter().collect(),
        _ => Default::default(),
    };
    let known_names: Vec<String> = item
        .keys()
        .filter(|name| name.starts_with(KNOWN_PREFIX))
        .cloned()
        .collect();
    let mut known = std::collections::BTreeMap::new();
    for name in known_names {
        let network: SourceNetwork = name[KNOWN_PREFIX.len()..]
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
        let until = match item.remove(&name) {
            Some(AttributeValue::S(text)) => text
                .parse::<Timestamp>()
                .map_err(|e| StoreError::Corrupt(format!("{name}: {e}")))?,
            other => return Err(StoreError::Corrupt(format!("{name}: {other:?}"))),
        };
        known.insert(network, until);
    }
    let stored: SendLogItem = from_item(item)?;
    Ok(SendLog {
        sends: stored.sourced_sends,
        pending: stored.pending,
        validated,
        known,
        version: stored.version,
    })
}

fn known_attribute(network: &SourceNetwork) -> String {
    format!("{KNOWN_PREFIX}{network}")
}

/// An account item as a login reads it: the account, and its portal's organisation.
fn staff_account_from(mut item: Item) -> StoreResult<StaffAccount> {
    let organisation_id = attribute(&mut item, ACCOUNT_ORGANISATION)?.unwrap_or_default();
    Ok(StaffAccount {
        account: from_item(item)?,
        organisation_id: OrganisationId(organisation_id),
    })
}

pub(crate) fn otp_request_from(phone_number: &str, item: Item) -> StoreResult<OtpRequest> {
    let otp: OtpItem = from_item(item)?;
    Ok(OtpRequest {
        phone_number: phone_number.to_string(),
        request_id: otp.request_id,
        source: otp.source,
        code_hash: otp.code_hash,
        expires_at: otp.expires_at,
        attempts: otp.attempts,
        used: otp.used,
    })
}

pub(crate) const OTP_OPEN: &str = "requestId = :rid AND used = :false AND attempts < :max";

pub(crate) fn otp_open_values(
    request_id: &str,
    max_attempts: u32,
) -> HashMap<String, AttributeValue> {
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
                    account_name: stored.account_name,
                    portal_id: stored.portal_id,
                    organisation_id: stored.organisation_id,
                    role: stored.role,
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
        let log = log.map(send_log_from).transpose()?.unwrap_or_default();
        Ok((
            account
                .map(|item| staff_account_from(item).map(|staff| staff.account))
                .transpose()?,
            log,
        ))
    }

    async fn save_otp(&self, save: OtpSave<'_>) -> StoreResult<()> {
        let OtpSave {
            request,
            replaces,
            log,
            read_version,
        } = save;
        let phone = &request.phone_number;
        let mut log_keys = key(keys::otp_sends(phone), None);
        // The log lives as long as its newest send counts, or a network stays known.
        let sends_count_until = log
            .sends
            .iter()
            .map(|send| send.at)
            .max()
            .unwrap_or(request.expires_at)
            + chrono::Duration::hours(1);
        let lives_until = log
            .known
            .values()
            .copied()
            .fold(sends_count_until, Timestamp::max);
        log_keys.extend([ttl_attribute(lives_until)]);
        log_keys.extend(
            log.known
                .iter()
                .map(|(network, until)| (known_attribute(network), s(until.to_rfc3339()))),
        );
        let log_item = to_item(
            &SendLogItem {
                sourced_sends: log.sends.clone(),
                pending: log.pending.clone(),
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
        let mut otp_keys = key(keys::otp(phone, &request.request_id), None);
        otp_keys.extend([ttl_attribute(
            request.expires_at + chrono::Duration::hours(1),
        )]);
        let otp_item = to_item(
            &OtpItem {
                request_id: request.request_id.clone(),
                source: request.source,
                code_hash: request.code_hash.clone(),
                expires_at: request.expires_at,
                attempts: request.attempts,
                used: request.used,
            },
            otp_keys,
        )?;
        let mut writes = vec![
            txn_put(guarded_log.build().map_err(build_error)?),
            txn_put(self.auth_put(otp_item)),
        ];
        if let Some(replaced) = replaces {
            writes.push(txn_delete(
                Delete::builder()
                    .table_name(&self.tables.auth)
                    .set_key(Some(key(keys::otp(phone, replaced), None)))
                    .build()
                    .map_err(build_error)?,
            ));
        }
        self.transact(writes).await
    }

    async fn otp_and_account(
        &self,
        phone_number: &str,
        request_id: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<StaffAccount>)> {
        let (account, otp) = self
            .batch_get(
                key(keys::account(phone_number), Some(keys::META)),
                key(keys::otp(phone_number, request_id), None),
            )
            .await?;
        Ok((
            otp.map(|item| otp_request_from(phone_number, item))
                .transpose()?,
            account.map(staff_account_from).transpose()?,
        ))
    }

    async fn record_failed_attempt(&self, otp: &OtpRequest, max_attempts: u32) -> StoreResult<u32> {
        let mut values = otp_open_values(&otp.request_id, max_attempts);
        values.insert(":one".into(), n(1));
        let out = self
            .client
            .update_item()
            .table_name(&self.tables.auth)
            .set_key(Some(key(
                keys::otp(&otp.phone_number, &otp.request_id),
                None,
            )))
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

    async fn consume_otp(&self, login: OtpLogin<'_>) -> StoreResult<()> {
        let OtpLogin {
            otp,
            max_attempts,
            session,
            known_until,
        } = login;
        let phone_number = &otp.phone_number;
        let request_id = &otp.request_id;
        let mut values = otp_open_values(request_id, max_attempts);
        values.insert(":true".into(), AttributeValue::Bool(true));
        let mark_used = Update::builder()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::otp(phone_number, request_id), None)))
            .update_expression("SET used = :true")
            .condition_expression(OTP_OPEN)
            .set_expression_attribute_values(Some(values))
            .build()
            .map_err(build_error)?;
        // The version moves, so a request-otp that read the log before this login reads it
        // again and sees the code validated.
        let mut log_update = Update::builder()
            .table_name(&self.tables.auth)
            .set_key(Some(key(keys::otp_sends(phone_number), None)))
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":rid", AttributeValue::Ss(vec![request_id.clone()]))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ttl", n(known_until.timestamp()));
        log_update = if otp.source.is_known() {
            log_update
                .update_expression(format!(
                    "ADD {VALIDATED} :rid, version :one SET #ttl = :ttl, #known = :until"
                ))
                .expression_attribute_names("#known", known_attribute(&otp.source))
                .expression_attribute_values(":until", s(known_until.to_rfc3339()))
        } else {
            log_update.update_expression(format!(
                "ADD {VALIDATED} :rid, version :one SET #ttl = :ttl"
            ))
        };
        let mark_validated = log_update.build().map_err(build_error)?;
        let mut session_keys = key(keys::session(&session.token_hash), None);
        session_keys.extend([ttl_attribute(session.expires_at)]);
        let session_item = to_item(
            &SessionItem {
                account_id: session.account_id,
                account_name: session.account_name.clone(),
                portal_id: session.portal_id,
                organisation_id: session.organisation_id,
                role: session.role,
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
            .set_key(Some(key(
                keys::account_sessions(session.account_id.get()),
                None,
            )))
            .update_expression("ADD hashes :h, version :one SET #ttl = :ttl")
            .expression_attribute_names("#ttl", "ttl")
            .expression_attribute_values(":h", AttributeValue::Ss(vec![session.token_hash.clone()]))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ttl", n(session.expires_at.timestamp()))
            .build()
            .map_err(build_error)?;
        self.transact(vec![
            txn_update(mark_used),
            txn_update(mark_validated),
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

    async fn delete_all_sessions(&self, account_id: AccountId) -> StoreResult<usize> {
        let account_id = account_id.get();
        let index_key = key(keys::account_sessions(account_id), None);
        // A login adds a session between the read and the delete: read the index again.
        let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the account's sessions");
        loop {
            rounds.start().await?;
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
            if let Round::Done(()) = result.or_lost()? {
                return Ok(hashes.len());
            }
        }
    }
}
