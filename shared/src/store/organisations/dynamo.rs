//! An organisation's portals and clients, and fixing an unknown caller's call.

use crate::ids::{CallId, ClientId, OrganisationId, PortalId};
use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::domain::CountedCall;
use crate::records::{Client, PhoneCall, Portal, Timestamp};
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{encode, from_item, key, n, s};
use crate::store::dynamo::records::{CALL_STATS, client_from_item};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::limits::TRANSACTION_LIMIT;
use crate::store::{
    ClientPageRequest, FixLookup, FixRequest, FixTarget, OrganisationStore, PhoneCallReader,
    PortalStore, StoreError, StoreResult,
};

/// The names and values that set a record's `clientId` and `portalId` to the fixed call's
/// (`#client = :client, #portal = :portal`): the call and each of its requests move alike.
fn linked_to(call: &PhoneCall) -> Expression {
    let mut expression = Expression::default();
    expression
        .name("#client", "clientId")
        .name("#portal", "portalId")
        .value(":client", n(call.client_id))
        .value(":portal", n(call.portal_id));
    expression
}

#[async_trait]
impl OrganisationStore for DynamoStore {
    async fn organisation_of(&self, portal_id: PortalId) -> StoreResult<Option<OrganisationId>> {
        Ok(PortalStore::portal(self, portal_id)
            .await?
            .map(|portal| OrganisationId(portal.organisation_id)))
    }

    async fn organisation_clients(
        &self,
        organisation_id: OrganisationId,
        now: Timestamp,
    ) -> StoreResult<Vec<Client>> {
        let portals = self.organisation_portals(organisation_id.get()).await?;
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

    async fn fix_target(&self, fix: FixRequest, now: Timestamp) -> StoreResult<FixLookup> {
        let organisation_id = fix.organisation_id.get();
        let call_id = fix.call_id.get();
        let client_id = fix.client_id.get();
        let (portals, call) = futures::future::try_join(
            self.organisation_portals(organisation_id),
            PhoneCallReader::call_requests(self, CallId(call_id)),
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
            .map(|previous| (PortalId(previous.portal_id), ClientId(previous.id)));
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

        let mut expression = linked_to(&call);
        expression
            .name("#unknown", "isUnknown")
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
            let mut expression = linked_to(&call);
            expression.name("#byClient", "gsi2pk").value(
                ":byClient",
                s(keys::client_requests(call.portal_id, call.client_id)),
            );
            writes.push(self.data_update(
                key(keys::call(call.id), Some(&keys::request(request.id))),
                "SET #client = :client, #portal = :portal, #byClient = :byClient",
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
                key(
                    keys::portal(portal_id.get()),
                    Some(&keys::client(client_id.get())),
                ),
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
    pub(crate) async fn organisation_portals(&self, organisation_id: i32) -> StoreResult<Vec<i32>> {
        self.index_items("gsi1", keys::organisation(organisation_id))
            .await?
            .into_iter()
            .map(|item| from_item::<Portal>(item).map(|portal| portal.id))
            .collect()
    }
}
