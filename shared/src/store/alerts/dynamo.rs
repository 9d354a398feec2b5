//! Alerts as items of their portal's partition (`ALERT#{id}`), with a `version` for
//! conditional steps and, while a step is due, a place in `gsi1`'s `ESCALATION` partition.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::TransactWriteItem;

use crate::domain::{Alert, AlertReason, AlertStatus};
use crate::fixture::counters;
use crate::ids::{AlertId, PortalId};
use crate::records::{Client, ContactDetail, Timestamp};
use crate::store::alerts::AlertsRequest;
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::items::{
    Item, data_keys, encode, from_item, key, n, s, ttl_attribute, version_of,
};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::optimistic::LostRace;
use crate::store::{
    AlertPage, AlertStore, ContactDetailStore, EscalationStore, PageRequest, StoreError,
    StoreResult, StoredAlert,
};

/// How long a day's alarm-chain test marker is kept: past any retry of its pass.
const CHAIN_TEST_MARKER_DAYS: i64 = 35;

fn alert_item(alert: &Alert, version: u64) -> StoreResult<Item> {
    let due = match (alert.status, alert.next_step_at) {
        (AlertStatus::Open, Some(at)) => {
            Some((keys::ESCALATION.to_string(), keys::due_at(at, alert.id)))
        }
        _ => None,
    };
    let mut item = crate::store::dynamo::items::to_item(
        alert,
        data_keys(keys::portal(alert.portal_id), keys::alert(alert.id), due),
    )?;
    item.insert("version".into(), n(version));
    Ok(item)
}

fn alert_from_item(mut item: Item) -> StoreResult<(Alert, u64)> {
    let version = version_of(&item)?;
    item.remove("version");
    Ok((from_item(item)?, version))
}

impl DynamoStore {
    /// The put that raises `alert` inside the transaction that ends its entry: at most once
    /// per entry.
    pub(crate) fn alert_raise(&self, alert: &Alert) -> StoreResult<TransactWriteItem> {
        self.data_put(alert_item(alert, 1)?, Some("attribute_not_exists(pk)"))
    }

    /// Opens `alert` under a new id together with `guard`'s write, which fails its condition
    /// when what raises the alert has raised one already: `None` then, and nothing is written.
    pub(crate) async fn open_alert_once(
        &self,
        alert: &Alert,
        guard: impl FnOnce(&Alert) -> StoreResult<TransactWriteItem>,
    ) -> StoreResult<Option<StoredAlert>> {
        let id = self.reserve_ids(counters::ALERT, 1).await?;
        let alert = Alert {
            id,
            ..alert.clone()
        };
        let writes = vec![guard(&alert)?, self.alert_raise(&alert)?];
        match self.transact(writes).await {
            Ok(()) => Ok(Some(StoredAlert {
                alert,
                version: 1,
                client_name: None,
            })),
            Err(StoreError::ConditionFailed) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The put that replaces `alert` inside a transaction, if it is still at `version`.
    pub(crate) fn alert_put_at(
        &self,
        version: u64,
        alert: &Alert,
    ) -> StoreResult<TransactWriteItem> {
        let mut expression = crate::store::dynamo::expression::Expression::default();
        expression.value(":v", n(version));
        let (names, values) = expression.into_parts();
        aws_sdk_dynamodb::types::Put::builder()
            .table_name(&self.tables.data)
            .set_item(Some(alert_item(alert, version + 1)?))
            .condition_expression("version = :v")
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .build()
            .map(crate::store::dynamo::operations::txn_put)
            .map_err(crate::store::dynamo::errors::build_error)
    }

    async fn put_alert_at(&self, version: u64, alert: &Alert) -> StoreResult<bool> {
        let result = self
            .client
            .put_item()
            .table_name(&self.tables.data)
            .set_item(Some(alert_item(alert, version + 1)?))
            .condition_expression("version = :v")
            .expression_attribute_values(":v", n(version))
            .send()
            .await
            .map_err(classify);
        result.applied()
    }

    /// The names of the clients of `alerts`, read in one batch.
    async fn with_client_names(&self, alerts: Vec<(Alert, u64)>) -> StoreResult<Vec<StoredAlert>> {
        let clients: std::collections::BTreeSet<(i32, i32)> = alerts
            .iter()
            .map(|(alert, _)| (alert.portal_id, alert.client_id))
            .collect();
        let wanted: Vec<Item> = clients
            .into_iter()
            .map(|(portal, client)| key(keys::portal(portal), Some(&keys::client(client))))
            .collect();
        let mut names = std::collections::HashMap::new();
        for mut item in self.batch_get_data(wanted).await? {
            item.remove(crate::store::dynamo::records::CALL_STATS);
            let client: Client = from_item(item)?;
            if !client.is_deleted {
                names.insert(client.id, client.name);
            }
        }
        Ok(alerts
            .into_iter()
            .map(|(alert, version)| StoredAlert {
                client_name: names.get(&alert.client_id).cloned().flatten(),
                alert,
                version,
            })
            .collect())
    }
}

#[async_trait]
impl AlertStore for DynamoStore {
    async fn alerts(&self, portal_id: PortalId, request: AlertsRequest) -> StoreResult<AlertPage> {
        let AlertsRequest { filter, page } = request;
        let PageRequest { after, limit } = page;
        let from = after.map_or(keys::alert(0), |after| {
            keys::alert(after.get().saturating_add(1))
        });
        let mut query = self
            .client
            .query()
            .table_name(&self.tables.data)
            .key_condition_expression("pk = :pk AND sk BETWEEN :from AND :to")
            .expression_attribute_values(":pk", s(keys::portal(portal_id.get())))
            .expression_attribute_values(":from", s(from))
            .expression_attribute_values(":to", s(keys::ALERTS_END))
            .consistent_read(true);
        let mut conditions = Vec::new();
        if let Some(status) = filter.status {
            conditions.push("#status = :status");
            query = query
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":status", encode(&status)?);
        }
        // Without a reason, every reason but the alarm-chain tests' (`AlertFilter::admits`).
        conditions.push(match filter.reason {
            Some(_) => "#reason = :reason",
            None => "#reason <> :reason",
        });
        query = query
            .expression_attribute_names("#reason", "reason")
            .expression_attribute_values(
                ":reason",
                encode(&filter.reason.unwrap_or(AlertReason::Test))?,
            );
        if !filter.admin {
            conditions.push("#reason <> :for_admins");
            query = query
                .expression_attribute_values(":for_admins", encode(&AlertReason::UnusualAccess)?);
        }
        query = query.filter_expression(conditions.join(" AND "));
        let mut pages = query.into_paginator().send();
        let mut found = Vec::new();
        // One more than a page tells whether another follows.
        let wanted = limit.map_or(usize::MAX, |limit| limit + 1);
        while found.len() < wanted {
            match pages.next().await {
                Some(page) => {
                    for item in page.map_err(classify)?.items.unwrap_or_default() {
                        found.push(alert_from_item(item)?);
                    }
                }
                None => break,
            }
        }
        let next = match limit {
            Some(limit) if found.len() > limit => {
                found.truncate(limit);
                found.last().map(|(alert, _)| AlertId(alert.id))
            }
            _ => None,
        };
        Ok(AlertPage {
            alerts: self.with_client_names(found).await?,
            next,
        })
    }

    async fn alert(&self, portal_id: PortalId, id: AlertId) -> StoreResult<Option<StoredAlert>> {
        let Some(item) = self
            .get_data(keys::portal(portal_id.get()), &keys::alert(id.get()))
            .await?
        else {
            return Ok(None);
        };
        let found = self.with_client_names(vec![alert_from_item(item)?]).await?;
        Ok(found.into_iter().next())
    }

    async fn replace_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool> {
        self.put_alert_at(version, alert).await
    }
}

#[async_trait]
impl EscalationStore for DynamoStore {
    async fn due_alerts(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<StoredAlert>> {
        let query = self.index_query("gsi1", keys::ESCALATION.into(), Some(keys::due_until(now)));
        let mut pages = query.into_paginator().send();
        let mut keys_found: Vec<Item> = Vec::new();
        while keys_found.len() < limit {
            match pages.next().await {
                Some(page) => keys_found.extend(
                    page.map_err(classify)?
                        .items
                        .unwrap_or_default()
                        .iter()
                        .map(crate::store::dynamo::items::item_key),
                ),
                None => break,
            }
        }
        keys_found.truncate(limit);
        // The index is eventually consistent and a step is conditional on the version, so the
        // alerts are read again, consistently.
        let mut alerts = Vec::with_capacity(keys_found.len());
        for item in self.batch_get_data(keys_found).await? {
            let (alert, version) = alert_from_item(item)?;
            if alert.is_due(now) {
                alerts.push((alert, version));
            }
        }
        alerts.sort_by_key(|(alert, _)| (alert.next_step_at, alert.id));
        self.with_client_names(alerts).await
    }

    async fn escalating_alerts(&self, limit: usize) -> StoreResult<Vec<Alert>> {
        // The index holds whole items (projection ALL): no second read.
        let query = self.index_query("gsi1", keys::ESCALATION.into(), None);
        let mut pages = query.into_paginator().send();
        let mut alerts = Vec::new();
        while alerts.len() < limit {
            let Some(page) = pages.next().await else {
                break;
            };
            for item in page.map_err(classify)?.items.unwrap_or_default() {
                let (alert, _) = alert_from_item(item)?;
                if alert.status == AlertStatus::Open && alert.next_step_at.is_some() {
                    alerts.push(alert);
                }
            }
        }
        alerts.truncate(limit);
        Ok(alerts)
    }

    async fn alert_to_step(
        &self,
        portal_id: PortalId,
        id: AlertId,
    ) -> StoreResult<Option<StoredAlert>> {
        AlertStore::alert(self, portal_id, id).await
    }

    async fn escalation_contacts(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>> {
        self.contact_details(portal_id).await
    }

    async fn step_alert(&self, version: u64, alert: &Alert) -> StoreResult<bool> {
        self.put_alert_at(version, alert).await
    }

    async fn open_test_alert(
        &self,
        alert: &Alert,
        day: chrono::NaiveDate,
    ) -> StoreResult<Option<StoredAlert>> {
        self.open_alert_once(alert, |alert| {
            let mut marker = key(keys::portal(alert.portal_id), Some(&keys::chain_test(day)));
            let (name, value) =
                ttl_attribute(alert.created_at + chrono::TimeDelta::days(CHAIN_TEST_MARKER_DAYS));
            marker.insert(name, value);
            marker.insert("alertId".into(), n(alert.id));
            self.data_put(marker, Some("attribute_not_exists(pk)"))
        })
        .await
    }
}
