//! The alert a call's triage opens: the finding with the model's second opinion, the alert
//! itself, what an analysis does to the call's alert, and the first escalation step taken
//! within the delivery.

use std::sync::Arc;

use shared::domain::{Alert, CallFinding, CallOrigin, triage_call};
use shared::error::ApiError;
use shared::ids::PortalId;
use shared::store::{AlertWrite, CallAlert, Conversation};

use crate::IntegrationsState;
use crate::second_opinion::{self, UrgencyModel};

/// The Bedrock model of `TRIAGE_MODEL_ID`, when it is set (and not empty).
pub fn urgency_model(
    sdk: &aws_config::SdkConfig,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<Arc<dyn UrgencyModel>> {
    let model = shared::bedrock::Converse::from_lookup(sdk, "TRIAGE_MODEL_ID", lookup)?;
    Some(Arc::new(model))
}

/// The triage's finding, with the model's second opinion when one is configured.
pub(crate) async fn triaged(
    state: &IntegrationsState,
    found: Option<CallFinding>,
    text: impl FnOnce() -> String,
) -> Option<CallFinding> {
    match &state.urgency_model {
        Some(model) => second_opinion::second_opinion(model.as_ref(), &text(), found).await,
        None => found,
    }
}

/// The first step of the alert a delivery has just opened or raised: its SMS leave within the
/// request. A failure here loses nothing: the alert is stored and due, and the scheduler's
/// next pass takes the step.
pub(crate) async fn escalate_at_once(state: &IntegrationsState, portal_id: i32, alert: CallAlert) {
    let now = state.clock.now();
    match state
        .escalator
        .step_now(PortalId(portal_id), alert.alert_id, now)
        .await
    {
        Ok(step) => tracing::info!(
            portal_id,
            alert = alert.alert_id.get(),
            reason = ?alert.reason,
            sent = step.map_or(0, |s| s.sent),
            failed = step.map_or(0, |s| s.failed),
            "alert opened by the call's triage"
        ),
        Err(error) => tracing::warn!(
            portal_id,
            alert = alert.alert_id.get(),
            error = %shared::error::error_chain(&error),
            "alert stored; its first step is left to the scheduler"
        ),
    }
}

/// The alert a call's triage raises, without its id and call id (the store gives both).
pub(crate) fn call_alert(
    portal_id: i32,
    client_id: i32,
    client_number: Option<&str>,
    finding: Option<CallFinding>,
    now: shared::records::Timestamp,
) -> Option<Alert> {
    finding.map(|finding| {
        Alert::of_call(
            CallOrigin {
                portal_id,
                client_id,
                phone_call_id: 0,
                client_number: client_number.map(str::to_string),
            },
            finding,
            now,
        )
    })
}

/// What an analysis does to its call's alert: opens one when the call has none and the triage
/// of the summary and analysis finds something; raises a concern alert to urgent when it finds
/// an emergency; otherwise nothing (never a second alert).
pub(crate) async fn analysis_alert(
    state: &IntegrationsState,
    portal_id: i32,
    conversation: &Conversation,
    analysis: &shared::store::Analysis,
) -> Result<Option<AlertWrite>, ApiError> {
    let text: Vec<&str> = [
        &analysis.summary,
        &analysis.purpose,
        &analysis.satisfaction_reason,
    ]
    .into_iter()
    .filter_map(|field| field.as_deref())
    .collect();
    let text = text.join(". ");
    let found = triaged(state, triage_call(&[], &[], Some(&text)), || text.clone()).await;
    let Some(finding) = found else {
        return Ok(None);
    };
    let now = state.clock.now();
    match conversation.alert {
        None => Ok(call_alert(
            portal_id,
            conversation.client_id,
            conversation.client_number.as_deref(),
            Some(finding),
            now,
        )
        .map(AlertWrite::Open)),
        Some(existing) if finding.outranks(existing.reason) => {
            let stored = state
                .escalator
                .alerts
                .alert_to_step(PortalId(portal_id), existing.alert_id)
                .await?;
            Ok(stored.map(|stored| AlertWrite::RaiseTo {
                version: stored.version,
                alert: stored.alert.raised_to(finding, now),
            }))
        }
        Some(_) => Ok(None),
    }
}
