//! `call.ended`: a conversation becomes a phone call with its transcript, requests and
//! statistics, completes the questionnaire entry it names, merges what the agent wrote down
//! during the call, and opens the alert its triage asks for; in one transaction.

use crate::call_alerts::{call_alert, triaged};
use crate::events::CallEnded;
use shared::domain::{AttemptOutcome, CallOutcome, triage_call};
use shared::error::ApiError;
use shared::ids::{EntryId, PortalId, QuestionnaireId};
use shared::records::{Client, PhoneCall, TranscriptLine};
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{DeliveryKey, DeliveryState, DueEntry, EntryCompletion, IngestStore, NewCall};
use shared::wire::Variables;

use crate::{Delivered, IntegrationsState, MIN_CONTACT, repeated, tools};

pub(crate) async fn call_ended(
    state: &IntegrationsState,
    portal_id: i32,
    event: &CallEnded,
) -> Result<Delivered, ApiError> {
    let store = &state.store;
    let entry_id = event.questionnaire_client_id();
    // The delivery state, the entry or the live state changed since it was read (a concurrent
    // delivery of the same call, a tool call of the agent's): read again.
    let mut rounds = optimistic::Rounds::new(tools::LIVE_CALL_ROUNDS, "the conversation");
    loop {
        rounds.start().await?;
        let (delivery, entry) = delivery_with_entry(
            store.as_ref(),
            portal_id,
            (&event.event_id, &event.conversation_uuid),
            event.connected_to_conversation_uuid.as_deref(),
            entry_id,
        )
        .await?;
        if let Some(receipt) = &delivery.receipt {
            return repeated(receipt, &event.conversation_uuid, &delivery);
        }
        if let Some(conversation) = delivery.conversation {
            // The same conversation under another eventId: it is recorded once.
            return Ok(Delivered::Unchanged(Some(conversation.phone_call_id)));
        }
        let entry = completable_entry(portal_id, entry_id, entry);
        let (client_id, is_unknown) = match &entry {
            // The entry names its client; the number dialled is the one the scheduler chose.
            Some(due) => (due.entry.client_id, false),
            None => {
                let matches = store
                    .clients_by_number(PortalId(portal_id), event.client_number())
                    .await?;
                match client_for_number(&matches, event.client_number()) {
                    Some(client_id) => (client_id, false),
                    None => (0, true),
                }
            }
        };
        let mut call = PhoneCall {
            id: 0,
            start_date: event.start_date,
            end_date: Some(event.end_date),
            from_number: Some(event.from_number.clone()),
            to_number: Some(event.to_number.clone()),
            uuid: Some(uuid::Uuid::new_v4().to_string()),
            client_id,
            dynamic_variables: event
                .dynamic_variables
                .as_ref()
                .map(Variables::to_json_text),
            connected_to: delivery.connected_to.map(|c| c.phone_call_id),
            conversation_uuid: Some(event.conversation_uuid.clone()),
            is_unknown,
            portal_id,
            ..PhoneCall::default()
        };
        if let Some(held) = &delivery.held {
            held.analysis.apply(&mut call);
        }
        let completion = match entry {
            Some(entry) if event.end_date - event.start_date < MIN_CONTACT => {
                if let Some(held) = &delivery.held {
                    warn_unplaced_answers(&held.analysis.answers);
                }
                let seconds = (event.end_date - event.start_date).num_seconds();
                Some(EntryCompletion {
                    not_a_contact: Some(AttemptOutcome {
                        attempt: entry.schedule.attempts,
                        outcome: CallOutcome::NoAnswer,
                        at: event.start_date,
                        detail: Some(format!(
                            "call.ended after {seconds} s: too short to be a contact"
                        )),
                    }),
                    entry,
                    answers: Vec::new(),
                })
            }
            Some(entry) => {
                let answers = match &delivery.held {
                    Some(held) if !held.analysis.answers.is_empty() => {
                        let questions = store
                            .questions(QuestionnaireId(entry.entry.questionnaire_id))
                            .await?;
                        held.analysis.answer_records(entry.entry.id, &questions)
                    }
                    _ => Vec::new(),
                };
                Some(EntryCompletion {
                    entry,
                    answers,
                    not_a_contact: None,
                })
            }
            None => {
                if let Some(held) = &delivery.held {
                    warn_unplaced_answers(&held.analysis.answers);
                }
                None
            }
        };
        let lines: Vec<TranscriptLine> = event
            .transcript
            .iter()
            .map(|line| TranscriptLine {
                id: 0,
                created_at: line.created_at,
                by: line.by.clone(),
                message: line.message.clone(),
                phone_call_id: 0,
                category: line.category,
            })
            .collect();
        let new_requests = tools::with_live_requests(&event.requests, &delivery.live.live);
        let requests: Vec<&str> = new_requests.iter().map(|r| r.request.as_str()).collect();
        let finding = triaged(
            state,
            triage_call(&lines, &requests, call.summary.as_deref()),
            || {
                let said = lines
                    .iter()
                    .filter(|line| line.category == shared::records::TranscriptCategory::Caller)
                    .filter_map(|line| line.message.as_deref());
                said.chain(requests.iter().copied())
                    .chain(call.summary.as_deref())
                    .collect::<Vec<_>>()
                    .join("\n")
            },
        )
        .await;
        // An emergency the agent reported during the call already opened the call's alert:
        // the call takes it over (never a second one).
        let linked_alert = match delivery.live.live.alert {
            Some(live) => state
                .escalator
                .alerts
                .alert_to_step(PortalId(portal_id), live.alert_id)
                .await?
                .map(|stored| {
                    let mut alert = stored.alert;
                    if alert.client_id == 0 {
                        alert.client_id = client_id;
                    }
                    (stored.version, alert)
                }),
            None => None,
        };
        let alert = match linked_alert {
            Some(_) => None,
            None => call_alert(
                portal_id,
                client_id,
                Some(event.client_number()),
                finding,
                state.clock.now(),
            ),
        };
        let new = NewCall {
            portal_id,
            event_id: event.event_id.clone(),
            call,
            client_number: Some(event.client_number().to_string()),
            alert,
            live_version: delivery.live.version,
            linked_alert,
            lines,
            requests: new_requests,
            completion,
            held_event_id: delivery.held.as_ref().map(|held| held.event_id.clone()),
        };
        if let Round::Done(recorded) = store.record_call(&new).await.or_lost()? {
            shared::metrics::calls_ingested();
            // The triage's alert, and the alert of an entry that a call too short to be a
            // contact ended (the store raises it with the call).
            let entry_ended_with_alert = new
                .completion
                .as_ref()
                .and_then(|completion| {
                    let outcome = completion.not_a_contact.as_ref()?;
                    Some(completion.entry.effect_of(outcome).raises_alert())
                })
                .unwrap_or(false);
            shared::metrics::alerts_opened(
                usize::from(new.alert.is_some()) + usize::from(entry_ended_with_alert),
            );
            tracing::info!(
                portal_id,
                call_id = recorded.phone_call_id,
                alert = ?recorded.alert,
                lines = new.lines.len(),
                requests = new.requests.len(),
                is_unknown,
                entry_completed = new
                    .completion
                    .as_ref()
                    .and_then(EntryCompletion::completed)
                    .is_some(),
                not_a_contact = new
                    .completion
                    .as_ref()
                    .is_some_and(|c| c.not_a_contact.is_some()),
                analysis_merged = new.held_event_id.is_some(),
                "call recorded"
            );
            return Ok(Delivered::Wrote(recorded));
        }
    }
}

/// A delivery's state (for its `eventId` and conversation) and the questionnaire entry it
/// names, read concurrently.
pub(crate) async fn delivery_with_entry(
    store: &dyn IngestStore,
    portal_id: i32,
    (event_id, conversation_uuid): (&str, &str),
    connected_uuid: Option<&str>,
    entry_id: Option<i32>,
) -> shared::store::StoreResult<(DeliveryState, Option<DueEntry>)> {
    futures::future::try_join(
        store.delivery_state(DeliveryKey {
            portal_id: PortalId(portal_id),
            event_id,
            conversation_uuid,
            connected_uuid,
        }),
        async {
            match entry_id {
                Some(id) => store.entry_by_id(EntryId(id)).await,
                None => Ok(None),
            }
        },
    )
    .await
}

/// The entry a questionnaire call completes: one of this portal's entries that no call has
/// completed yet. Anything else is logged, and the call is recorded as an ordinary one.
fn completable_entry(
    portal_id: i32,
    entry_id: Option<i32>,
    found: Option<DueEntry>,
) -> Option<DueEntry> {
    let entry_id = entry_id?;
    match found {
        Some(due) if due.portal_id == portal_id && due.entry.phone_call_id.is_none() => Some(due),
        Some(due) if due.portal_id == portal_id => {
            tracing::warn!(
                portal_id,
                entry_id,
                "questionnaire entry already completed by another call"
            );
            None
        }
        _ => {
            tracing::warn!(
                portal_id,
                entry_id,
                "questionnaire entry not found in this portal"
            );
            None
        }
    }
}

/// The client a number belongs to: the one live client with it as `primaryNumber`, else the
/// one with it as `phone`. Several at the same level (a shared landline) is not a match:
/// the call stays unknown for staff to fix rather than going to the wrong person.
pub fn client_for_number(clients: &[Client], number: &str) -> Option<i32> {
    let only = |field: fn(&Client) -> Option<&str>| {
        let mut found = clients
            .iter()
            .filter(|client| !client.is_deleted && field(client) == Some(number));
        match (found.next(), found.next()) {
            (Some(client), None) => Some(Some(client.id)),
            (Some(_), Some(_)) => Some(None),
            _ => None,
        }
    };
    only(|c| c.primary_number.as_deref())
        .or_else(|| only(|c| c.phone.as_deref()))
        .flatten()
}

pub(crate) fn warn_unplaced_answers(answers: &[shared::store::GivenAnswer]) {
    if !answers.is_empty() {
        tracing::warn!(
            answers = answers.len(),
            "answers on a call that completed no questionnaire entry are not stored"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(id: i32, phone: Option<&str>, primary: Option<&str>) -> Client {
        Client {
            id,
            phone: phone.map(str::to_string),
            primary_number: primary.map(str::to_string),
            ..Client::default()
        }
    }

    #[test]
    fn a_number_belongs_to_the_one_client_holding_it_primary_numbers_first() {
        let number = "+46701234567";
        let alone = [client(1, Some(number), None)];
        assert_eq!(client_for_number(&alone, number), Some(1));
        let primary_wins = [client(1, Some(number), None), client(2, None, Some(number))];
        assert_eq!(client_for_number(&primary_wins, number), Some(2));
    }

    #[test]
    fn a_shared_number_or_a_deleted_client_is_no_match() {
        let number = "+4687001000";
        let couple = [client(1, Some(number), None), client(2, Some(number), None)];
        assert_eq!(client_for_number(&couple, number), None);
        let mut gone = client(3, Some(number), None);
        gone.is_deleted = true;
        assert_eq!(client_for_number(&[gone], number), None);
        assert_eq!(client_for_number(&[], number), None);
    }
}
