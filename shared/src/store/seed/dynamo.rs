//! A fixture as items of the data table, in the layout described in `store::dynamo`.

use std::collections::HashMap;

use async_trait::async_trait;

use crate::domain::{CallStats, Schedule};
use crate::fixture::Seed;
use crate::store::dynamo::errors::classify;
use crate::store::dynamo::items::{Item, data_keys, n, padded, to_item};
use crate::store::dynamo::records::ACCOUNT_ORGANISATION;
use crate::store::dynamo::records::QUESTIONNAIRE_OWNER;
use crate::store::dynamo::records::entry_item;
use crate::store::dynamo::records::{answer_item, call_items, request_item};
use crate::store::dynamo::records::{client_item, national_id_claim};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::{SeedWriter, StoreError, StoreResult};

/// Every item a fixture becomes, in the layout described at the top of this module.
pub(crate) fn seed_items(seed: &Seed) -> StoreResult<Vec<Item>> {
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
    let organisation_of: HashMap<i32, i32> = seed
        .portals
        .iter()
        .map(|portal| (portal.id, portal.organisation_id))
        .collect();
    for account in &seed.accounts {
        let mut keys = data_keys(
            keys::account(&account.phone_number),
            keys::META.into(),
            None,
        );
        let organisation = organisation_of
            .get(&account.portal_id)
            .copied()
            .unwrap_or(0);
        keys.insert(ACCOUNT_ORGANISATION.into(), n(organisation));
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
        let list = Some((keys::QUESTIONNAIRES.to_string(), padded(questionnaire.id)));
        let mut keys = data_keys(pk.clone(), keys::META.into(), list);
        if let Some(owner) = seed.questionnaire_owners.get(&questionnaire.id) {
            keys.insert(QUESTIONNAIRE_OWNER.into(), n(owner.get()));
        }
        items.push(to_item(&questionnaire.summary(), keys)?);
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
                .counter_update(kind)
                .update_expression("SET #v = :floor")
                .condition_expression("attribute_not_exists(#v) OR #v < :floor")
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
