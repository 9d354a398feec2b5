//! Clients of one portal: pages of live clients, updates, and the item a client is stored as.

use crate::ids::{ClientId, PortalId};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::records::{Client, Timestamp};
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::items::{Item, key, s};
use crate::store::dynamo::operations::updated_item;
use crate::store::dynamo::records::client_from_item;
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::{ClientPage, ClientPageRequest, ClientStore, ClientUpdate, StoreResult};

/// Items read beyond a client page, so that deleted clients rarely cost a second Query.
pub(crate) const PAGE_SLACK: usize = 16;

impl DynamoStore {
    /// A consistent Query of the portal's clients from key `from` on, deleted ones filtered
    /// out by DynamoDB, and only those also matching `condition` (over `#n`-style names and
    /// `:v` values the caller adds) when given.
    pub(crate) fn live_clients_query(
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
    pub(crate) async fn client_items(
        &self,
        portal_id: i32,
        page: ClientPageRequest,
    ) -> StoreResult<Vec<Item>> {
        let from = keys::client(page.after.map_or(0, |after| after.get().saturating_add(1)));
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
    async fn has_client(&self, portal_id: PortalId, client_id: ClientId) -> StoreResult<bool> {
        let out = self
            .client
            .get_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(
                keys::portal(portal_id.get()),
                Some(&keys::client(client_id.get())),
            )))
            .projection_expression("pk")
            .send()
            .await
            .map_err(classify)?;
        Ok(out.item.is_some())
    }

    async fn clients(
        &self,
        portal_id: PortalId,
        page: ClientPageRequest,
        now: Timestamp,
    ) -> StoreResult<ClientPage> {
        let mut items = self.client_items(portal_id.get(), page).await?;
        let more = page.limit.is_some_and(|limit| items.len() > limit);
        if let Some(limit) = page.limit {
            items.truncate(limit);
        }
        let clients = items
            .into_iter()
            .map(|item| client_from_item(item, now))
            .collect::<StoreResult<Vec<_>>>()?;
        let next_after = if more {
            clients.last().map(|client| ClientId(client.id))
        } else {
            None
        };
        Ok(ClientPage {
            clients,
            next_after,
        })
    }

    async fn update_client(&self, update: &ClientUpdate) -> StoreResult<Option<Client>> {
        let portal_id = update.portal_id.get();
        let client_id = update.client_id.get();
        let item_key = key(keys::portal(portal_id), Some(&keys::client(client_id)));
        if update.changes.is_empty() {
            let item = self
                .get_data(keys::portal(portal_id), &keys::client(client_id))
                .await?;
            return item
                .filter(|item| !matches!(item.get("isDeleted"), Some(AttributeValue::Bool(true))))
                .map(|item| client_from_item(item, update.now))
                .transpose();
        }
        // Only the named attributes are written, so concurrent changes of other fields (or of
        // the call history) survive.
        let mut write = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(item_key))
            .condition_expression("attribute_exists(pk) AND isDeleted = :false")
            .expression_attribute_values(":false", AttributeValue::Bool(false))
            .return_values(ReturnValue::AllNew);
        let mut assignments = Vec::with_capacity(update.changes.len());
        for (i, (field, value)) in update.changes.iter().enumerate() {
            assignments.push(format!("#f{i} = :v{i}"));
            write = write
                .expression_attribute_names(format!("#f{i}"), field.attribute())
                .expression_attribute_values(
                    format!(":v{i}"),
                    value.clone().map_or(AttributeValue::Null(true), s),
                );
        }
        updated_item(write.update_expression(format!("SET {}", assignments.join(", "))))
            .await?
            .map(|item| client_from_item(item, update.now))
            .transpose()
    }
}
