//! The in-memory store's side of this capability.

use async_trait::async_trait;

use crate::domain::Schedule;
use crate::fixture::Seed;
use crate::records::{PhoneCall, QuestionnaireDetail};
use crate::store::memory::{MemoryStore, StoredEntry};
use crate::store::{SeedWriter, StoreResult};

#[async_trait]
impl SeedWriter for MemoryStore {
    async fn write_seed(&self, seed: &Seed) -> StoreResult<()> {
        let mut state = self.lock();
        for portal in &seed.portals {
            state.portals.insert(portal.id, portal.clone());
        }
        for account in &seed.accounts {
            state
                .accounts_by_phone
                .insert(account.phone_number.clone(), account.clone());
        }
        for client in &seed.clients {
            state.clients.insert(client.id, client.clone());
        }
        for call in &seed.phone_calls {
            let lines = call.transcript.clone().unwrap_or_default();
            state.lines.insert(call.id, lines);
            state.calls.insert(
                call.id,
                PhoneCall {
                    transcript: None,
                    ..call.clone()
                },
            );
        }
        for request in &seed.client_requests {
            state
                .requests
                .entry(request.phone_call_id)
                .or_default()
                .push(request.clone());
        }
        for detail in &seed.contact_details {
            state.contact_details.insert(detail.id, detail.clone());
        }
        for questionnaire in &seed.questionnaires {
            for entry in &questionnaire.clients {
                let portal_id = state
                    .clients
                    .get(&entry.client_id)
                    .map_or(0, |client| client.portal_id);
                state.entries.insert(
                    entry.id,
                    StoredEntry {
                        entry: entry.clone(),
                        portal_id,
                        schedule: Schedule::defaults_of(questionnaire),
                        pending: None,
                        outcomes: Vec::new(),
                        ended: None,
                        report_due: None,
                    },
                );
            }
            state.questionnaires.insert(
                questionnaire.id,
                QuestionnaireDetail {
                    clients: Vec::new(),
                    ..questionnaire.clone()
                },
            );
        }
        state.questionnaire_owners.extend(
            seed.questionnaire_owners
                .iter()
                .map(|(id, owner)| (*id, *owner)),
        );
        for (kind, top) in seed.counter_floors() {
            let counter = state.counters.entry(kind).or_insert(0);
            *counter = (*counter).max(top);
        }
        Ok(())
    }
}
