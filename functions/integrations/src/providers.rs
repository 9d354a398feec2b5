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

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::routing::post;
use http::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use shared::audit::AccessNote;
use shared::error::{ApiError, Problem};
use shared::extract::{JsonBytes, JsonResponse, PathId, decode_json};
use shared::ids::PortalId;
use shared::provider_auth;
use shared::store::access_log::{Accessor, Action};
use shared::validate::{self, Validator};
use shared::webhook::{self, SignatureError};

use crate::IntegrationsState;
use crate::caller::{self, CallerQuery};
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

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

fn check_retell(
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

fn check_vapi(
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

fn check_elevenlabs(
    state: &IntegrationsState,
    portal_id: i32,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let secret = webhook::portal_header_secret(&state.webhook_master, portal_id);
    provider_auth::verify_secret_header(header(headers, "x-webhook-secret"), &secret)
        .map_err(|reason| refused("elevenlabs", portal_id, reason))
}

/// A string field as platforms send it: text without control characters.
fn text_field(v: &mut Validator, field: &str, value: &str) -> Option<String> {
    v.check(field, validate::text(value, validate::MAX_SHORT_TEXT))
        .flatten()
}

/// A caller's number as a platform gives it: a withheld one is no number (an unknown caller).
fn number(
    v: &mut Validator,
    field: &str,
    value: Option<&str>,
    state: &IntegrationsState,
) -> Option<String> {
    value
        .and_then(|raw| text_field(v, field, raw))
        .and_then(|raw| shared::phone::normalise(&raw, state.region).ok())
}

/// Retell's inbound-call webhook body.
#[derive(Debug, Deserialize)]
struct RetellInbound {
    event: String,
    call_inbound: RetellInboundCall,
}

#[derive(Debug, Deserialize)]
struct RetellInboundCall {
    from_number: String,
    to_number: String,
}

/// Retell's inbound-call webhook
///
/// The caller context in Retell's shape: `{"call_inbound": {"dynamic_variables": {...}}}`.
/// Signed with `x-retell-signature` by the workspace's API key (`RETELL_API_KEY`).
#[utoipa::path(
    post, path = "/integrations/voice/retell/{id}/inbound", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal the number belongs to."),
        ("x-retell-signature" = String, Header, description = "`v=<unix ms>,d=<hex HMAC-SHA256(raw body + ms)>` keyed with the Retell API key; within 5 minutes."),
    ),
    request_body(content = Object, example = json!({"event": "call_inbound", "call_inbound": {"agent_id": "agent_1", "from_number": "+46731110003", "to_number": "+4687001000"}})),
    responses(
        (status = 200, description = "The caller's context as Retell's dynamic variables (an unknown caller's when unknown or late).", body = Object, example = json!({"call_inbound": {"dynamic_variables": {"knownCaller": "true", "firstName": "Margareta", "language": "sv", "openRequests": "0", "questionnaireClientId": "", "questions": ""}}})),
        (status = 400, description = "A body that is not Retell's inbound webhook.", body = Problem),
        (status = 401, description = "A missing, stale or wrong signature.", body = Problem),
    )
)]
pub async fn retell_inbound(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_retell(&state, portal_id, &headers, &body)?;
    let inbound: RetellInbound = decode_json(&body)?;
    let mut v = Validator::new();
    let event = text_field(&mut v, "event", &inbound.event);
    if event.as_deref().is_some_and(|e| e != "call_inbound") {
        v.check::<()>("event", Err("must be call_inbound".into()));
    }
    let from = number(
        &mut v,
        "call_inbound.from_number",
        Some(&inbound.call_inbound.from_number),
        &state,
    );
    text_field(
        &mut v,
        "call_inbound.to_number",
        &inbound.call_inbound.to_number,
    );
    v.finish()?;
    // Retell has no call id before the call is answered.
    let query = CallerQuery {
        from_number: from,
        call_id: None,
    };
    let context = caller::context_in_time(&state, PortalId(portal_id), &query).await;
    Ok(JsonResponse::ok(
        json!({"call_inbound": {"dynamic_variables": context.variables}}),
    ))
}

/// Retell's custom-function request.
#[derive(Debug, Deserialize)]
struct RetellFunction {
    name: String,
    call: RetellCall,
    #[serde(default)]
    args: Map<String, Value>,
}

#[derive(Debug, Deserialize)]
struct RetellCall {
    call_id: String,
    #[serde(default)]
    from_number: Option<String>,
    #[serde(default)]
    to_number: Option<String>,
    #[serde(default)]
    direction: Option<String>,
}

/// Retell's custom functions
///
/// `record_request` and `report_emergency` as Retell custom functions (`{name, call, args}`),
/// answered with the sentence for the agent as a JSON string. Retell sends no id per function
/// call: a repeat is recognised by its name and arguments within the call.
#[utoipa::path(
    post, path = "/integrations/voice/retell/{id}/tools", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal of the call."),
        ("x-retell-signature" = String, Header, description = "As for the inbound webhook."),
    ),
    request_body(content = Object, example = json!({"name": "record_request", "call": {"call_id": "call_7f3a", "from_number": "+46731110003", "to_number": "+4687001000", "direction": "inbound"}, "args": {"request": "Ring my daughter Lena."}})),
    responses(
        (status = 200, description = "The sentence for the agent.", body = String, example = json!("I have written that down; the staff will see it.")),
        (status = 400, description = "An unknown function or arguments it does not take.", body = Problem),
        (status = 401, description = "A missing, stale or wrong signature.", body = Problem),
    )
)]
pub async fn retell_tool(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    access: AccessNote,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_retell(&state, portal_id, &headers, &body)?;
    let function: RetellFunction = decode_json(&body)?;
    let client_number = match function.call.direction.as_deref() {
        Some("outbound") => function.call.to_number.clone(),
        _ => function.call.from_number.clone(),
    };
    let tool_call_id = repeat_key(&function.name, &function.args);
    let request = ToolCallRequest {
        call_id: function.call.call_id,
        tool_call_id,
        name: function.name,
        arguments: function.args,
        from_number: client_number,
    };
    let result = carry_out(&state, portal_id, &access, request).await?;
    Ok(JsonResponse::ok(Value::String(result)))
}

/// The id of a tool call from a platform that sends none: its name and arguments, hashed. A
/// retry is the same call; the same request twice in one call is one request anyway.
fn repeat_key(name: &str, arguments: &Map<String, Value>) -> String {
    let call = format!("{name}\0{}", Value::Object(arguments.clone()));
    format!("args:{}", shared::auth::keyed_hash(b"tool call", &call))
}

/// Checks and carries out a tool call, noting the access; the sentence for the agent.
async fn carry_out(
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

/// Vapi's server message envelope.
#[derive(Debug, Deserialize)]
struct VapiEnvelope {
    message: VapiMessage,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VapiMessage {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    call: Option<VapiCall>,
    #[serde(default)]
    customer: Option<VapiCustomer>,
    #[serde(default)]
    tool_call_list: Option<Vec<Map<String, Value>>>,
}

#[derive(Debug, Deserialize)]
struct VapiCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    customer: Option<VapiCustomer>,
}

#[derive(Debug, Deserialize)]
struct VapiCustomer {
    #[serde(default)]
    number: Option<String>,
}

/// The assistant a Vapi number answers with (`?assistantId=` on the server URL).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VapiQuery {
    #[serde(default)]
    assistant_id: Option<String>,
}

/// Vapi's server URL
///
/// Vapi's server messages: `assistant-request` is answered with the assistant of the server
/// URL's `assistantId` query parameter and the caller's context as
/// `assistantOverrides.variableValues`; `tool-calls` carries out each call of the list and
/// answers `{"results": [{toolCallId, name, result}]}`; every other message type is
/// acknowledged with `{}`. Authenticated by an HMAC credential keyed with the portal's webhook
/// secret (`x-signature` of `"<x-timestamp>.<raw body>"`).
#[utoipa::path(
    post, path = "/integrations/voice/vapi/{id}", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal of the number."),
        ("assistantId" = Option<String>, Query, description = "The assistant to answer `assistant-request` with (required for it)."),
        ("x-signature" = String, Header, description = "Hex HMAC-SHA256 of `\"<x-timestamp>.<raw body>\"` keyed with the portal's webhook secret."),
        ("x-timestamp" = String, Header, description = "Unix seconds or milliseconds; within 5 minutes."),
    ),
    request_body(content = Object, example = json!({"message": {"type": "assistant-request", "call": {"id": "call-uuid", "customer": {"number": "+46731110003"}}}})),
    responses(
        (status = 200, description = "The answer in Vapi's shape for the message type.", body = Object, example = json!({"assistantId": "asst_care", "assistantOverrides": {"variableValues": {"knownCaller": "true", "firstName": "Margareta", "language": "sv", "openRequests": "0", "questionnaireClientId": "", "questions": ""}}})),
        (status = 400, description = "A body that is not a Vapi server message, an `assistant-request` without `assistantId`, or a tool call the tools do not take.", body = Problem),
        (status = 401, description = "A missing, stale or wrong signature.", body = Problem),
    )
)]
pub async fn vapi_message(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    query: Result<Query<VapiQuery>, QueryRejection>,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_vapi(&state, portal_id, &headers, &body)?;
    let Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let envelope: VapiEnvelope = decode_json(&body)?;
    let message = envelope.message;
    let mut v = Validator::new();
    let kind = text_field(&mut v, "message.type", &message.kind).unwrap_or_default();
    let call_id = message
        .call
        .as_ref()
        .and_then(|call| call.id.as_deref())
        .and_then(|id| text_field(&mut v, "message.call.id", id));
    let customer = message
        .call
        .as_ref()
        .and_then(|call| call.customer.as_ref())
        .or(message.customer.as_ref())
        .and_then(|customer| customer.number.as_deref());
    match kind.as_str() {
        "assistant-request" => {
            let from = number(&mut v, "message.call.customer.number", customer, &state);
            let assistant = query
                .assistant_id
                .as_deref()
                .and_then(|id| text_field(&mut v, "assistantId", id));
            if assistant.is_none() {
                v.check::<()>(
                    "assistantId",
                    Err("is required for assistant-request".into()),
                );
            }
            v.finish()?;
            let query = CallerQuery {
                from_number: from,
                call_id,
            };
            let context = caller::context_in_time(&state, PortalId(portal_id), &query).await;
            Ok(JsonResponse::ok(json!({
                "assistantId": assistant,
                "assistantOverrides": {"variableValues": context.variables},
            })))
        }
        "tool-calls" => {
            let calls = message.tool_call_list.unwrap_or_default();
            if call_id.is_none() {
                v.check::<()>("message.call.id", Err("is required for tool-calls".into()));
            }
            v.finish()?;
            let mut results = Vec::with_capacity(calls.len());
            for (i, entry) in calls.iter().enumerate() {
                let (id, name, arguments) = vapi_tool_call(entry, i)?;
                let request = ToolCallRequest {
                    call_id: call_id.clone().unwrap_or_default(),
                    tool_call_id: id.clone(),
                    name: name.clone(),
                    arguments,
                    from_number: customer.map(str::to_string),
                };
                let call = request.validated(state.region)?;
                let (result, _) = tools::carry_out(&state, PortalId(portal_id), &call).await?;
                results.push(json!({"toolCallId": id, "name": name, "result": result.result}));
            }
            Ok(JsonResponse::ok(json!({ "results": results })))
        }
        _ => {
            v.finish()?;
            Ok(JsonResponse::ok(json!({})))
        }
    }
}

/// One entry of Vapi's `toolCallList`: its id, function name and arguments, wherever this
/// version of Vapi put them (`arguments`, `parameters`, or `function.arguments` as an object or
/// a JSON string).
fn vapi_tool_call(
    entry: &Map<String, Value>,
    index: usize,
) -> Result<(String, String, Map<String, Value>), ApiError> {
    let at = |field: &str| format!("message.toolCallList[{index}].{field}");
    let function = entry.get("function").and_then(Value::as_object);
    let id = entry.get("id").and_then(Value::as_str);
    let name = entry
        .get("name")
        .or_else(|| function.and_then(|f| f.get("name")))
        .and_then(Value::as_str);
    let arguments = entry
        .get("arguments")
        .or_else(|| entry.get("parameters"))
        .or_else(|| function.and_then(|f| f.get("arguments").or_else(|| f.get("parameters"))));
    let arguments = match arguments {
        Some(Value::Object(map)) => Some(map.clone()),
        Some(Value::String(text)) => serde_json::from_str::<Map<String, Value>>(text).ok(),
        None => Some(Map::new()),
        Some(_) => None,
    };
    match (id, name, arguments) {
        (Some(id), Some(name), Some(arguments)) => {
            Ok((id.to_string(), name.to_string(), arguments))
        }
        (None, _, _) => Err(ApiError::field(at("id"), "is required")),
        (_, None, _) => Err(ApiError::field(at("name"), "is required")),
        _ => Err(ApiError::field(
            at("arguments"),
            "must be an object or a JSON object as text",
        )),
    }
}

/// ElevenLabs' conversation-initiation webhook body.
#[derive(Debug, Deserialize)]
struct ElevenLabsInbound {
    caller_id: String,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    called_number: Option<String>,
    #[serde(default)]
    call_sid: Option<String>,
}

/// ElevenLabs' conversation-initiation webhook
///
/// The caller context in ElevenLabs' shape: `{"type": "conversation_initiation_client_data",
/// "dynamic_variables": {...}}`, every variable in every answer (ElevenLabs requires all of
/// the agent's variables). Authenticated by the `X-Webhook-Secret` header the agent is
/// configured with (the portal's header secret).
#[utoipa::path(
    post, path = "/integrations/voice/elevenlabs/{id}/inbound", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal of the number."),
        ("X-Webhook-Secret" = String, Header, description = "The portal's header secret (`scripts/portal-secret.sh header <portal>`)."),
    ),
    request_body(content = Object, example = json!({"caller_id": "+46731110003", "agent_id": "agent_1", "called_number": "+4687001000", "call_sid": "CA123"})),
    responses(
        (status = 200, description = "The caller's context as ElevenLabs' dynamic variables.", body = Object, example = json!({"type": "conversation_initiation_client_data", "dynamic_variables": {"knownCaller": "false", "firstName": "", "language": "", "openRequests": "0", "questionnaireClientId": "", "questions": ""}})),
        (status = 400, description = "A body that is not ElevenLabs' initiation webhook.", body = Problem),
        (status = 401, description = "A missing or wrong secret header.", body = Problem),
    )
)]
pub async fn elevenlabs_inbound(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_elevenlabs(&state, portal_id, &headers)?;
    let inbound: ElevenLabsInbound = decode_json(&body)?;
    let mut v = Validator::new();
    let from = number(&mut v, "caller_id", Some(&inbound.caller_id), &state);
    for (field, value) in [
        ("agent_id", &inbound.agent_id),
        ("called_number", &inbound.called_number),
    ] {
        if let Some(value) = value {
            text_field(&mut v, field, value);
        }
    }
    let call_id = inbound
        .call_sid
        .as_deref()
        .and_then(|sid| text_field(&mut v, "call_sid", sid));
    v.finish()?;
    let query = CallerQuery {
        from_number: from,
        call_id,
    };
    let context = caller::context_in_time(&state, PortalId(portal_id), &query).await;
    Ok(JsonResponse::ok(json!({
        "type": "conversation_initiation_client_data",
        "dynamic_variables": context.variables,
    })))
}

/// The body of ElevenLabs' `record_request` server tool: the tool's parameters as the agent
/// filled them, with the conversation's id (and the caller's number) passed in from system
/// dynamic variables.
#[derive(Debug, Deserialize)]
struct ElevenLabsRecordRequest {
    conversation_id: String,
    #[serde(default)]
    caller_id: Option<String>,
    request: String,
}

/// The body of ElevenLabs' `report_emergency` server tool.
#[derive(Debug, Deserialize)]
struct ElevenLabsReportEmergency {
    conversation_id: String,
    #[serde(default)]
    caller_id: Option<String>,
    #[serde(default)]
    category: Option<String>,
    words: String,
}

async fn elevenlabs_tool(
    state: &IntegrationsState,
    portal_id: i32,
    access: &AccessNote,
    (conversation_id, caller_id): (String, Option<String>),
    name: &str,
    arguments: Map<String, Value>,
) -> Result<JsonResponse<Value>, ApiError> {
    let request = ToolCallRequest {
        call_id: conversation_id,
        tool_call_id: repeat_key(name, &arguments),
        name: name.to_string(),
        arguments,
        from_number: caller_id,
    };
    let result = carry_out(state, portal_id, access, request).await?;
    Ok(JsonResponse::ok(json!({ "result": result })))
}

/// ElevenLabs' server tool `record_request`
///
/// The body is the tool's parameters: `{"conversation_id": "{{system__conversation_id}}",
/// "caller_id": "{{system__caller_id}}", "request": "..."}`. Answered `{"result": "..."}`.
#[utoipa::path(
    post, path = "/integrations/voice/elevenlabs/{id}/record-request", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal of the call."),
        ("X-Webhook-Secret" = String, Header, description = "The portal's header secret."),
    ),
    request_body(content = Object, example = json!({"conversation_id": "conv_1", "caller_id": "+46731110003", "request": "Ring my daughter Lena."})),
    responses(
        (status = 200, description = "The sentence for the agent.", body = Object, example = json!({"result": "I have written that down; the staff will see it."})),
        (status = 400, description = "Parameters the tool does not take.", body = Problem),
        (status = 401, description = "A missing or wrong secret header.", body = Problem),
    )
)]
pub async fn elevenlabs_record_request(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    access: AccessNote,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_elevenlabs(&state, portal_id, &headers)?;
    let tool: ElevenLabsRecordRequest = decode_json(&body)?;
    let arguments = Map::from_iter([("request".to_string(), Value::String(tool.request))]);
    let call = (tool.conversation_id, tool.caller_id);
    elevenlabs_tool(
        &state,
        portal_id,
        &access,
        call,
        "record_request",
        arguments,
    )
    .await
}

/// ElevenLabs' server tool `report_emergency`
///
/// The body is the tool's parameters: `{"conversation_id", "caller_id", "category", "words"}`.
/// Answered `{"result": "..."}`.
#[utoipa::path(
    post, path = "/integrations/voice/elevenlabs/{id}/report-emergency", tag = "integrations",
    params(
        ("id" = i32, Path, minimum = 1, description = "The portal of the call."),
        ("X-Webhook-Secret" = String, Header, description = "The portal's header secret."),
    ),
    request_body(content = Object, example = json!({"conversation_id": "conv_1", "caller_id": "+46731110003", "category": "fall", "words": "I have fallen and cannot get up."})),
    responses(
        (status = 200, description = "The sentence for the agent.", body = Object, example = json!({"result": "I have alerted the staff. Someone will contact you as soon as possible. Stay on the line."})),
        (status = 400, description = "Parameters the tool does not take.", body = Problem),
        (status = 401, description = "A missing or wrong secret header.", body = Problem),
    )
)]
pub async fn elevenlabs_report_emergency(
    PathId(portal_id): PathId,
    State(state): State<IntegrationsState>,
    access: AccessNote,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<Value>, ApiError> {
    check_elevenlabs(&state, portal_id, &headers)?;
    let tool: ElevenLabsReportEmergency = decode_json(&body)?;
    let mut arguments = Map::from_iter([("words".to_string(), Value::String(tool.words))]);
    if let Some(category) = tool.category {
        arguments.insert("category".into(), Value::String(category));
    }
    let call = (tool.conversation_id, tool.caller_id);
    elevenlabs_tool(
        &state,
        portal_id,
        &access,
        call,
        "report_emergency",
        arguments,
    )
    .await
}
