//! The voice platforms' own shapes of the caller context and the tools, each checked with the
//! platform's documented signature or secret and answered in the platform's shape; behind
//! them the canonical handlers of `caller` and `tools` do the work. Pages followed:
//! - Retell: https://docs.retellai.com/features/inbound-call-webhook (inbound webhook, 10 s),
//!   https://docs.retellai.com/build/custom-function (custom functions: `{name, call, args}`),
//!   https://docs.retellai.com/features/secure-webhook (`x-retell-signature`).
//! - Vapi: https://docs.vapi.ai/server-url/events (`assistant-request`, 7.5 s end to end;
//!   `tool-calls` answered `{"results": [{toolCallId, name, result}]}`),
//!   https://docs.vapi.ai/server-url/server-authentication (HMAC credential).
//! - ElevenLabs: https://elevenlabs.io/docs/agents-platform/customization/personalization/twilio-personalization
//!   (conversation-initiation webhook: every dynamic variable in every answer) and
//!   https://elevenlabs.io/docs/agents-platform/customization/tools/server-tools (server tools:
//!   the body is the tool's parameters, no envelope).

pub mod elevenlabs;
pub mod retell;
pub mod vapi;

use elevenlabs::{elevenlabs_inbound, elevenlabs_record_request, elevenlabs_report_emergency};
use retell::{retell_inbound, retell_tool};
use vapi::vapi_message;

use axum::Router;
use axum::routing::post;
use http::HeaderMap;
use serde_json::{Map, Value};

use shared::audit::AccessNote;
use shared::error::ApiError;
use shared::ids::PortalId;
use shared::provider_auth;
use shared::store::access_log::{Accessor, Action};
use shared::webhook::{self, SignatureError};
use shared::wire::Text;

use crate::IntegrationsState;
use crate::tools::{self, ToolCall, ToolCallRequest};

/// The routes that answer before the agent speaks (no access-log layer: they log their own
/// read inside their deadline, see `caller`).
pub fn inbound_routes() -> Router<IntegrationsState> {
    Router::new()
        .route(
            "/integrations/voice/retell/{id}/inbound",
            post(retell_inbound),
        )
        .route(
            "/integrations/voice/elevenlabs/{id}/inbound",
            post(elevenlabs_inbound),
        )
        .route("/integrations/voice/vapi/{id}", post(vapi_message))
}

/// The tool routes (behind the access-log layer, as the canonical one).
pub fn tool_routes() -> Router<IntegrationsState> {
    Router::new()
        .route("/integrations/voice/retell/{id}/tools", post(retell_tool))
        .route(
            "/integrations/voice/elevenlabs/{id}/record-request",
            post(elevenlabs_record_request),
        )
        .route(
            "/integrations/voice/elevenlabs/{id}/report-emergency",
            post(elevenlabs_report_emergency),
        )
}

fn refused(provider: &str, portal_id: i32, reason: SignatureError) -> ApiError {
    tracing::warn!(portal_id, provider, %reason, "voice platform request refused");
    ApiError::Unauthorized
}

pub(crate) fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

pub(crate) fn check_retell(
    state: &IntegrationsState,
    portal_id: i32,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), ApiError> {
    let Some(key) = &state.retell_api_key else {
        return Err(refused("retell", portal_id, SignatureError::Mismatch));
    };
    provider_auth::verify_retell(
        header(headers, "x-retell-signature"),
        key,
        body,
        state.clock.now(),
    )
    .map_err(|reason| refused("retell", portal_id, reason))
}

pub(crate) fn check_vapi(
    state: &IntegrationsState,
    portal_id: i32,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), ApiError> {
    let secret = webhook::portal_webhook_secret(&state.webhook_master, portal_id);
    provider_auth::verify_vapi(
        header(headers, "x-signature"),
        header(headers, "x-timestamp"),
        &secret,
        body,
        state.clock.now(),
    )
    .map_err(|reason| refused("vapi", portal_id, reason))
}

pub(crate) fn check_elevenlabs(
    state: &IntegrationsState,
    portal_id: i32,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let secret = webhook::portal_header_secret(&state.webhook_master, portal_id);
    provider_auth::verify_secret_header(header(headers, "x-webhook-secret"), &secret)
        .map_err(|reason| refused("elevenlabs", portal_id, reason))
}

/// A string field as platforms send it: single-line text.
pub(crate) type Field = Text<{ shared::wire::MAX_SHORT_TEXT }>;

/// A caller's number as a platform gives it: a withheld or blank one is no number (an unknown
/// caller).
pub(crate) fn number(value: Option<&Field>, state: &IntegrationsState) -> Option<String> {
    value
        .map(Field::as_str)
        .filter(|raw| !raw.is_empty())
        .and_then(|raw| shared::phone::normalise(raw, state.region).ok())
}

/// The id of a tool call from a platform that sends none: its name and arguments, hashed. A
/// retry is the same call; the same request twice in one call is one request anyway.
pub(crate) fn repeat_key(name: &str, arguments: &Map<String, Value>) -> String {
    let call = format!("{name}\0{}", Value::Object(arguments.clone()));
    format!("args:{}", shared::auth::keyed_hash(b"tool call", &call))
}

/// Checks and carries out a tool call, noting the access; the sentence for the agent.
pub(crate) async fn carry_out(
    state: &IntegrationsState,
    portal_id: i32,
    access: &AccessNote,
    request: ToolCallRequest,
) -> Result<String, ApiError> {
    let call: ToolCall = request.validated(state.region)?;
    let (result, client_id) = tools::carry_out(state, PortalId(portal_id), &call).await?;
    access.record(
        PortalId(portal_id),
        Accessor::VoicePlatform,
        Action::ToolCall,
        [client_id],
        [],
    );
    Ok(result.result)
}
