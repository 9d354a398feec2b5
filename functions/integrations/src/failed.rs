//! `call.failed`: a failed attempt's outcome kept with its questionnaire entry.

use crate::events::CallFailed;
use shared::domain::{AttemptOutcome, Effect};
use shared::error::ApiError;
use shared::store::OutcomeReport;
use shared::store::optimistic::{self, LostRace, Round};

use crate::ended::delivery_with_entry;
use crate::{Delivered, IntegrationsState, repeated};

/// Keeps a failed attempt's outcome with the portal's entry it names and applies it: a busy
/// line is tried again sooner, an invalid number or a refusal ends the entry. A report naming
/// no entry of the portal is acknowledged and logged, and changes nothing.
pub(crate) async fn call_failed(
    state: &IntegrationsState,
    portal_id: i32,
    event: &CallFailed,
) -> Result<Delivered, ApiError> {
    let store = &state.store;
    let receipt = event.receipt();
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the entry");
    loop {
        rounds.start().await?;
        let (delivery, found) = delivery_with_entry(
            store.as_ref(),
            portal_id,
            (&event.event_id, &receipt),
            None,
            event.questionnaire_client_id,
        )
        .await?;
        if let Some(seen) = &delivery.receipt {
            return repeated(seen, &receipt, &delivery)
                .map(|_| Delivered::Outcome(None))
                .map_err(|_| {
                    ApiError::Conflict(
                        "This eventId was already delivered with another report.".into(),
                    )
                });
        }
        let entry = found.filter(|due| due.portal_id == portal_id);
        if entry.is_none() {
            tracing::warn!(
                portal_id,
                entry_id = event.questionnaire_client_id,
                "call.failed names no questionnaire entry of this portal"
            );
        }
        // The attempt being reported is still being handed over by its scheduler pass: its
        // confirmation would overwrite a changed next try, so wait for it.
        if entry
            .as_ref()
            .and_then(|due| due.pending)
            .is_some_and(|pending| event.attempt.is_none_or(|a| a == pending.attempt))
        {
            continue;
        }
        let outcome = AttemptOutcome {
            attempt: event
                .attempt
                .or(entry.as_ref().map(|due| due.schedule.attempts))
                .unwrap_or(1),
            outcome: event.outcome,
            at: event.start_date,
            detail: event.detail.clone(),
        };
        let effect = entry
            .as_ref()
            .map_or(Effect::Record, |due| due.effect_of(&outcome));
        let client_id = entry.as_ref().map(|due| due.entry.client_id);
        let report = OutcomeReport {
            portal_id,
            event_id: event.event_id.clone(),
            conversation_uuid: receipt.clone(),
            entry,
            outcome,
            effect,
        };
        if let Round::Done(()) = store.record_outcome(&report).await.or_lost()? {
            shared::metrics::alerts_opened(usize::from(report.effect.raises_alert()));
            tracing::info!(
                portal_id,
                entry_id = report.entry.as_ref().map(|due| due.entry.id),
                attempt = report.outcome.attempt,
                outcome = ?report.outcome.outcome,
                effect = ?report.effect,
                "call outcome recorded"
            );
            return Ok(Delivered::Outcome(client_id));
        }
    }
}
