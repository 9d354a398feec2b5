//! Portals, their import guard and client import.

use crate::ids::PortalId;
use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};

use crate::domain::CallStats;
use crate::domain::SourcedEvent;
use crate::fixture::counters;
use crate::records::{Client, Portal};
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::items::{
    Item, data_keys, from_item, key, sk_of, to_item, ttl_attribute, version_guard,
};
use crate::store::dynamo::records::{client_item, national_id_claim};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::limits::TRANSACTION_LIMIT;
use crate::store::optimistic::{self, LostRace, Round};
use crate::store::{
    ImportContext, ImportGuard, ImportGuardSave, Imported, PortalStore, StoreError, StoreResult,
};

/// Rounds an import may lose to concurrent imports of the same national ids.
const IMPORT_ROUNDS: u32 = 5;

/// Clients per import transaction: each is two items, the client and its national-id claim.
pub(crate) const IMPORT_CLIENTS_PER_TRANSACTION: usize = TRANSACTION_LIMIT / 2;

pub(crate) fn claimed_client_id(item: &Item) -> StoreResult<i32> {
    match item.get("clientId") {
        Some(AttributeValue::N(id)) => id
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("clientId {id:?}"))),
        other => Err(StoreError::Corrupt(format!("clientId {other:?}"))),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ImportGuardItem {
    /// Named apart from the per-portal timestamps guard items held before failures were
    /// counted per source address; such an item reads as no failures (it expired a day later).
    #[serde(default)]
    sourced_failures: Vec<SourcedEvent>,
    version: u64,
}

impl DynamoStore {
    /// The national ids among `national_ids` the portal has claimed, with their clients.
    pub(crate) async fn national_id_claims(
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
}

#[async_trait]
impl PortalStore for DynamoStore {
    async fn portal(&self, id: PortalId) -> StoreResult<Option<Portal>> {
        let id = id.get();
        self.get_data(keys::portal(id), keys::META)
            .await?
            .map(from_item)
            .transpose()
    }

    async fn import_context(&self, portal_id: PortalId) -> StoreResult<ImportContext> {
        let portal_id = portal_id.get();
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
                    failures: stored.sourced_failures,
                    version: stored.version,
                };
            }
        }
        Ok(context)
    }

    async fn save_import_guard(&self, save: ImportGuardSave<'_>) -> StoreResult<()> {
        let guard = save.guard;
        let mut keys = data_keys(
            keys::portal(save.portal_id.get()),
            keys::IMPORT_GUARD.into(),
            None,
        );
        // Kept a day past the newest failure; DynamoDB's TTL removes it after that.
        if let Some(newest) = guard.failures.iter().map(|failure| failure.at).max() {
            keys.extend([ttl_attribute(newest + chrono::Duration::days(1))]);
        }
        let item = to_item(
            &ImportGuardItem {
                sourced_failures: guard.failures.clone(),
                version: guard.version,
            },
            keys,
        )?;
        let (condition, values) = version_guard(save.read_version);
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
        portal_id: PortalId,
        national_ids: &[String],
    ) -> StoreResult<Vec<Imported>> {
        let portal_id = portal_id.get();
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
            let mut rounds = optimistic::Rounds::new(IMPORT_ROUNDS, "the portal's national ids");
            loop {
                rounds.start().await?;
                let mut left = Vec::new();
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
                    // DynamoDB reports a race with a concurrent transaction on the same claims
                    // either way.
                    match self.transact(writes).await.or_lost_transaction()? {
                        Round::Done(()) => {
                            created.extend(chunk.iter().map(|(id, nid)| ((*nid).clone(), *id)))
                        }
                        Round::Lost => {
                            let ids: Vec<String> =
                                chunk.iter().map(|(_, nid)| (*nid).clone()).collect();
                            let found = self.national_id_claims(portal_id, &ids).await?;
                            left.extend(
                                chunk
                                    .iter()
                                    .filter(|(_, nid)| !found.contains_key(*nid))
                                    .copied(),
                            );
                            claims.extend(found);
                        }
                    }
                }
                pending = left;
                if pending.is_empty() {
                    break;
                }
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
