//! The voice platform's intake: signed `call.ended` and `call.analyzed` deliveries become
//! phone calls, transcripts, client requests, client statistics and questionnaire answers, and
//! their triage opens an alert (an urgent one is escalated within the same request);
//! `call.failed` reports become attempt outcomes that set a questionnaire entry's next try.
//! Deliveries are idempotent by `eventId` and may arrive in any order.

mod call_alerts;
pub mod caller;
pub mod events;
pub mod providers;
pub mod second_opinion;
pub mod tools;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use http::{HeaderMap, StatusCode};
use serde::Serialize;

pub use call_alerts::urgency_model;
use call_alerts::{analysis_alert, call_alert, escalate_at_once, triaged};
use events::{CallAnalyzed, CallEnded, CallFailed, VoiceEvent};
use second_opinion::UrgencyModel;
use shared::audit::{AccessNote, AuditLog};
use shared::clock::Clock;
use shared::domain::{AttemptOutcome, CallOutcome, Delays, Effect, triage_call};
use shared::error::{ApiError, Problem};
use shared::escalation::Escalator;
use shared::extract::{JsonBytes, JsonResponse, decode_json};
use shared::ids::{EntryId, PortalId, QuestionnaireId};
use shared::notify::{SmsSender, SnsSms};
use shared::phone::DefaultRegion;
use shared::phone::MetadataLoad;
use shared::records::{Client, PhoneCall, TranscriptLine};
use shared::runtime::{Platform, Services};
use shared::store::access_log::{Accessor, Action};
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{
    Conversation, DeliveryState, DueEntry, EntryCompletion, EscalationStore, HeldAnalysis,
    IngestStore, LiveCallStore, Narrow, NewCall, OutcomeReport, RecordedAnalysis,
};
use shared::webhook::{self, SignatureError};

/// A questionnaire call shorter than this reached nobody who could answer (a hang-up, an
/// answering machine cut short): its entry is not completed, and keeps the back-off.
pub const MIN_CONTACT: chrono::TimeDelta = chrono::TimeDelta::seconds(15);

/// A delivery of at most 1 MiB: a 1,000-line transcript fits with room to spare.
pub const EVENT_BODY_LIMIT: usize = 1024 * 1024;
/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    voice_event,
    caller::inbound_call,
    tools::voice_tool,
    providers::retell::retell_inbound,
    providers::retell::retell_tool,
    providers::vapi::vapi_message,
    providers::elevenlabs::elevenlabs_inbound,
    providers::elevenlabs::elevenlabs_record_request,
    providers::elevenlabs::elevenlabs_report_emergency,
))]
pub struct ApiDoc;

pub const PORTAL_HEADER: &str = "x-portal-id";
pub const SIGNATURE_HEADER: &str = "x-signature";

#[derive(Clone)]
pub struct IntegrationsState {
    pub store: Arc<dyn IngestStore>,
    /// The caller context's reads.
    pub caller: Arc<dyn LiveCallStore>,
    /// How long the caller context may take before it answers as for an unknown caller
    /// (`CALLER_CONTEXT_DEADLINE_MS`).
    pub caller_deadline: std::time::Duration,
    pub clock: Arc<dyn Clock>,
    /// The master secret every portal's webhook secret is derived from.
    pub webhook_master: Arc<[u8]>,
    /// The Retell workspace's API key, which signs Retell's webhooks (`RETELL_API_KEY`); the
    /// Retell routes refuse everything without it.
    pub retell_api_key: Option<Arc<str>>,
    pub region: DefaultRegion,
    pub audit: AuditLog,
    /// Takes the first step of a call's alert as the call is stored.
    pub escalator: Escalator,
    /// The language model whose second opinion may raise a call to urgent
    /// (`TRIAGE_MODEL_ID`); off when `None`.
    pub urgency_model: Option<Arc<dyn UrgencyModel>>,
}

impl IntegrationsState {
    pub fn new<S>(
        services: &Services<S>,
        webhook_master: Arc<[u8]>,
        sms: Arc<dyn SmsSender>,
        delays: Delays,
    ) -> Self
    where
        S: ?Sized
            + Narrow<dyn IngestStore>
            + Narrow<dyn LiveCallStore>
            + Narrow<dyn EscalationStore>,
    {
        Self {
            store: services.store(),
            caller: services.store(),
            caller_deadline: caller::DEFAULT_DEADLINE,
            clock: services.clock.clone(),
            escalator: Escalator::new(services, sms, delays, Accessor::Triage),
            urgency_model: None,
            webhook_master,
            retell_api_key: None,
            // A delivery waits on DynamoDB for longer than the load takes, and the load would compete with it.
            region: services.phone_region(MetadataLoad::FirstUse),
            audit: services.audit(),
        }
    }

    /// The state on Lambda: the webhook master secret from the environment or Secrets Manager,
    /// alerts' SMS through SNS, the delays from the environment.
    pub async fn for_lambda(platform: &Platform) -> Result<Self, shared::store::BoxError> {
        let (master, retell) = futures::future::try_join(
            platform.secret("WEBHOOK_SECRET", "WEBHOOK_SECRET_ARN"),
            async {
                let configured = ["RETELL_API_KEY", "RETELL_API_KEY_ARN"]
                    .iter()
                    .any(|name| std::env::var(name).is_ok_and(|v| !v.is_empty()));
                match configured {
                    true => platform
                        .secret("RETELL_API_KEY", "RETELL_API_KEY_ARN")
                        .await
                        .map(Some),
                    false => Ok(None),
                }
            },
        )
        .await?;
        let delays = Delays::from_lookup(|name| std::env::var(name).ok())?;
        let sms = SnsSms::new(aws_sdk_sns::Client::new(&platform.sdk));
        let mut state = Self::new(&platform.services, master.into(), Arc::new(sms), delays);
        state.retell_api_key = retell.map(|key| String::from_utf8_lossy(&key).trim().into());
        if let Some(deadline) = caller::deadline_from(|name| std::env::var(name).ok())? {
            state.caller_deadline = deadline;
        }
        state.urgency_model = urgency_model(&platform.sdk, |name| std::env::var(name).ok());
        Ok(state)
    }
}

/// The function's Lambda router: its routes plus the shared layers.
pub fn router(state: IntegrationsState) -> Router {
    shared::runtime::finish(routes(state))
}

/// The bare routes, for `local-api` to merge with the other functions'.
pub fn routes(state: IntegrationsState) -> Router {
    let audit = state.audit.clone();
    let logged = Router::new()
        .route("/integrations/voice/events", post(voice_event))
        .route("/integrations/voice/tools", post(tools::voice_tool))
        .merge(providers::tool_routes());
    // The caller context logs its read itself, inside its deadline: the layer's fail-closed
    // 503 would drop a call, where an unknown caller's context keeps it.
    shared::audit::logged(logged, audit)
        .route("/integrations/voice/inbound", post(caller::inbound_call))
        .merge(providers::inbound_routes())
        .with_state(state)
}

/// The answer to a delivery: the call it concerns, `null` while an analysis waits for it.
#[derive(Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ingested {
    pub phone_call_id: Option<i32>,
}

impl Ingested {
    fn answer(phone_call_id: Option<i32>) -> JsonResponse<Self> {
        let status = if phone_call_id.is_some() {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        };
        JsonResponse::ok(Self { phone_call_id }).with_status(status)
    }
}

/// Checks the delivery's portal and signature before anything else is read; every failure is
/// the same 401, the reason goes to the log only.
pub(crate) fn authenticate(
    state: &IntegrationsState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<i32, ApiError> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let portal_id = header(PORTAL_HEADER)
        .and_then(|value| value.trim().parse::<i32>().ok())
        .filter(|id| *id > 0);
    let checked = portal_id
        .ok_or(SignatureError::Malformed)
        .and_then(|portal_id| {
            let secret = webhook::portal_webhook_secret(&state.webhook_master, portal_id);
            webhook::verify(header(SIGNATURE_HEADER), &secret, body, state.clock.now())
                .map(|()| portal_id)
        });
    checked.map_err(|reason| {
        tracing::warn!(portal_id, %reason, "voice event refused");
        ApiError::Unauthorized
    })
}

/// Receive a voice-platform event
///
/// Receives the voice platform's events: `call.ended` records the call with its transcript and
/// requests (and completes a questionnaire entry), `call.analyzed` adds the summary fields and
/// answers, `call.failed` reports an attempt that reached nobody and sets the entry's next try
/// by its outcome (busy: 30 minutes; no answer, voicemail, failed: the back-off; invalid
/// number and refusal: no more tries). No session: each delivery is signed with its portal's
/// webhook secret. A redelivery answers as the first delivery did and writes nothing.
#[utoipa::path(
    post, path = "/integrations/voice/events", tag = "integrations",
    params(
        ("X-Portal-Id" = i32, Header, minimum = 1, description = "The portal the delivery is for."),
        ("X-Signature" = String, Header, description = "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" keyed with the portal's webhook secret>`; several `v1` are allowed while a secret rotates; `t` within 5 minutes of now."),
    ),
    request_body = VoiceEvent,
    responses(
        (status = 200, description = "The call the delivery concerns (`null` for `call.failed`, which concerns none).", body = Ingested),
        (status = 202, description = "An analysis whose call has not ended yet: held, merged when it does (`phoneCallId` null).", body = Ingested),
        (status = 401, description = "A missing, malformed, stale or wrong signature, or an unknown portal (one answer for all).", body = Problem),
        (status = 409, description = "This `eventId` was delivered before for another conversation (or, for `call.failed`, with another report).", body = Problem),
    )
)]
async fn voice_event(
    State(state): State<IntegrationsState>,
    access: AccessNote,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes<EVENT_BODY_LIMIT>,
) -> Result<JsonResponse<Ingested>, ApiError> {
    let portal_id = authenticate(&state, &headers, &body)?;
    shared::domain::warm_triage();
    let delivered = match decode_json::<VoiceEvent>(&body)? {
        VoiceEvent::CallEnded(event) => {
            let event = event.validated(state.region)?;
            call_ended(&state, portal_id, &event).await?
        }
        VoiceEvent::CallAnalyzed(event) => {
            let event = event.validated()?;
            call_analyzed(&state, portal_id, &event).await?
        }
        VoiceEvent::CallFailed(event) => {
            let event = event.validated(state.region)?;
            call_failed(&state, portal_id, &event).await?
        }
    };
    if let Delivered::Wrote(Conversation {
        alert: Some(alert), ..
    }) = delivered
    {
        escalate_at_once(&state, portal_id, alert).await;
    }
    match delivered {
        Delivered::Outcome(client_id) => {
            if let Some(client_id) = client_id {
                access.record(
                    PortalId(portal_id),
                    Accessor::VoicePlatform,
                    Action::IngestCall,
                    [client_id],
                    [],
                );
            }
            Ok(Ingested::answer(None).with_status(StatusCode::OK))
        }
        Delivered::Wrote(conversation) => {
            access.record(
                PortalId(portal_id),
                Accessor::VoicePlatform,
                Action::IngestCall,
                [conversation.client_id],
                [conversation.phone_call_id],
            );
            Ok(Ingested::answer(Some(conversation.phone_call_id)))
        }
        Delivered::Unchanged(call_id) => Ok(Ingested::answer(call_id)),
    }
}

/// What a delivery did: wrote a client's call (logged as an access), or wrote nothing of one
/// (a redelivery, or an analysis held until its call arrives), answering with the call if any.
#[derive(Debug, Clone)]
enum Delivered {
    Wrote(Conversation),
    Unchanged(Option<i32>),
    /// A `call.failed` report: kept with the entry of this client (`None`: it named no entry
    /// of the portal, or was delivered before). Always 200, as no call is involved.
    Outcome(Option<i32>),
}

/// A delivery whose `eventId` was processed before: the same answer again, unless the id is
/// being reused for another conversation.
fn repeated(
    receipt: &str,
    conversation_uuid: &str,
    delivery: &DeliveryState,
) -> Result<Delivered, ApiError> {
    if receipt != conversation_uuid {
        return Err(ApiError::Conflict(
            "This eventId was already delivered for another conversation.".into(),
        ));
    }
    Ok(Delivered::Unchanged(
        delivery.conversation.as_ref().map(|c| c.phone_call_id),
    ))
}

async fn call_ended(
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
                .map(|variables| serde_json::Value::Object(variables.clone()).to_string()),
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
async fn delivery_with_entry(
    store: &dyn IngestStore,
    portal_id: i32,
    (event_id, conversation_uuid): (&str, &str),
    connected_uuid: Option<&str>,
    entry_id: Option<i32>,
) -> shared::store::StoreResult<(DeliveryState, Option<DueEntry>)> {
    futures::future::try_join(
        store.delivery_state(
            PortalId(portal_id),
            event_id,
            conversation_uuid,
            connected_uuid,
        ),
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

fn warn_unplaced_answers(answers: &[shared::store::GivenAnswer]) {
    if !answers.is_empty() {
        tracing::warn!(
            answers = answers.len(),
            "answers on a call that completed no questionnaire entry are not stored"
        );
    }
}

/// Keeps a failed attempt's outcome with the portal's entry it names and applies it: a busy
/// line is tried again sooner, an invalid number or a refusal ends the entry. A report naming
/// no entry of the portal is acknowledged and logged, and changes nothing.
async fn call_failed(
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

async fn call_analyzed(
    state: &IntegrationsState,
    portal_id: i32,
    event: &CallAnalyzed,
) -> Result<Delivered, ApiError> {
    let store = &state.store;
    let analysis = event.analysis();
    // A concurrent delivery recorded the conversation or the event meanwhile: read again.
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the conversation");
    loop {
        rounds.start().await?;
        let delivery = store
            .delivery_state(
                PortalId(portal_id),
                &event.event_id,
                &event.conversation_uuid,
                None,
            )
            .await?;
        if let Some(receipt) = &delivery.receipt {
            return repeated(receipt, &event.conversation_uuid, &delivery);
        }
        let result = match delivery.conversation {
            Some(conversation) => {
                let answers = match conversation.entry {
                    Some(entry) if !analysis.answers.is_empty() => {
                        let questions = store
                            .questions(QuestionnaireId(entry.questionnaire_id))
                            .await?;
                        analysis.answer_records(entry.entry_id, &questions)
                    }
                    Some(_) => Vec::new(),
                    None => {
                        warn_unplaced_answers(&analysis.answers);
                        Vec::new()
                    }
                };
                let alert = analysis_alert(state, portal_id, &conversation, &analysis).await?;
                let recorded = RecordedAnalysis {
                    portal_id,
                    event_id: event.event_id.clone(),
                    conversation_uuid: event.conversation_uuid.clone(),
                    conversation: conversation.clone(),
                    analysis: analysis.clone(),
                    answers,
                    alert,
                };
                store.apply_analysis(&recorded).await.map(|written| {
                    Delivered::Wrote(Conversation {
                        // Only an alert this analysis opened or raised is escalated now.
                        alert: written,
                        ..conversation
                    })
                })
            }
            None => {
                let held = HeldAnalysis {
                    event_id: event.event_id.clone(),
                    analysis: analysis.clone(),
                };
                store
                    .hold_analysis(PortalId(portal_id), &event.conversation_uuid, &held)
                    .await
                    .map(|()| Delivered::Unchanged(None))
            }
        };
        if let Round::Done(delivered) = result.or_lost()? {
            let phone_call_id = match delivered {
                Delivered::Wrote(ref conversation) => Some(conversation.phone_call_id),
                Delivered::Unchanged(call) => call,
                Delivered::Outcome(_) => None,
            };
            tracing::info!(
                portal_id,
                phone_call_id,
                answers = analysis.answers.len(),
                held = phone_call_id.is_none(),
                "call analysis received"
            );
            return Ok(delivered);
        }
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
