//! The voice platform's intake: signed `call.ended` and `call.analyzed` deliveries become
//! phone calls, transcripts, client requests, client statistics and questionnaire answers, and
//! their triage opens an alert (an urgent one is escalated within the same request);
//! `call.failed` reports become attempt outcomes that set a questionnaire entry's next try.
//! Deliveries are idempotent by `eventId` and may arrive in any order.

mod analyzed;
pub mod answers;
mod call_alerts;
pub mod caller;
mod ended;
pub mod events;
mod failed;
pub mod providers;
pub mod second_opinion;
pub mod tools;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use http::{HeaderMap, StatusCode};
use serde::Serialize;

use analyzed::call_analyzed;
use call_alerts::escalate_at_once;
pub use call_alerts::urgency_model;
use ended::call_ended;
pub use ended::client_for_number;
use events::VoiceEvent;
use failed::call_failed;
use second_opinion::UrgencyModel;
use shared::audit::{AccessNote, AuditLog};
use shared::clock::Clock;
use shared::domain::Delays;
use shared::error::{ApiError, Problem};
use shared::escalation::Escalator;
use shared::extract::{JsonBytes, JsonResponse};
use shared::ids::PortalId;
use shared::notify::{SmsSender, SnsSms};
use shared::phone::DefaultRegion;
use shared::phone::MetadataLoad;
use shared::runtime::{Platform, Services};
use shared::store::access_log::{Accessor, Action};
use shared::store::{
    Conversation, DeliveryState, EscalationStore, IngestStore, LiveCallStore, Narrow,
};
use shared::webhook::{self, SignatureError};

use crate::answers::UnsignedPortal;

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

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
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
        UnsignedPortal,
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
    let delivered = match VoiceEvent::decode(&body, state.region)? {
        VoiceEvent::CallEnded(event) => call_ended(&state, portal_id, &event).await?,
        VoiceEvent::CallAnalyzed(event) => call_analyzed(&state, portal_id, &event).await?,
        VoiceEvent::CallFailed(event) => call_failed(&state, portal_id, &event).await?,
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
