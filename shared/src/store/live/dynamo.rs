//! The caller context's reads on DynamoDB: a count on the requests' client index, and the
//! client's open entry under each questionnaire in one batch.

use async_trait::async_trait;
use aws_sdk_dynamodb::types::Select;

use crate::ids::{ClientId, PortalId};
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::items::{key, pk_of, s};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::ingest::OPEN_REQUEST;
use crate::store::live::CallerStore;
use crate::store::questionnaires::dynamo::due_entry_from_item;
use crate::store::{DueEntry, StoreResult};

#[async_trait]
impl CallerStore for DynamoStore {
    async fn open_request_count(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<usize> {
        let mut count = 0usize;
        let mut pages = self
            .client
            .query()
            .table_name(&self.tables.data)
            .index_name("gsi2")
            .key_condition_expression("gsi2pk = :client")
            .filter_expression("#status = :open")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(
                ":client",
                s(keys::client_requests(portal_id.get(), client_id.get())),
            )
            .expression_attribute_values(":open", s(OPEN_REQUEST))
            .select(Select::Count)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(classify)?;
            count += usize::try_from(page.count()).unwrap_or(0);
        }
        Ok(count)
    }

    async fn open_entries(
        &self,
        portal_id: PortalId,
        client_id: ClientId,
    ) -> StoreResult<Vec<DueEntry>> {
        // A client has at most one open entry per questionnaire, under a key that names both:
        // the questionnaires' list (one Query), then every such key in one batch.
        let questionnaires = self
            .query_all(
                Some("gsi1"),
                "gsi1pk = :list",
                vec![(":list", s("QUESTIONNAIRES"))],
            )
            .await?;
        let open = keys::open_entry(client_id.get());
        let wanted = questionnaires
            .iter()
            .filter_map(|item| keys::questionnaire_id(pk_of(item)))
            .map(|id| key(keys::questionnaire_portal(id, portal_id.get()), Some(&open)))
            .collect::<Vec<_>>();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        self.batch_get_data(wanted)
            .await?
            .into_iter()
            .map(due_entry_from_item)
            .collect()
    }
}
