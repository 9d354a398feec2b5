//! ElevenLabs' conversation-initiation webhook and server tools.

use axum::extract::State;
use http::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use shared::audit::AccessNote;
use shared::error::{ApiError, Problem};
use shared::extract::{JsonBytes, JsonResponse, PathId, decode_json};
use shared::ids::PortalId;

use crate::IntegrationsState;
use crate::answers::BadSecret;
use crate::caller::{self, CallerQuery};
use crate::tools::ToolCallRequest;

use super::{Field, carry_out, check_elevenlabs, number, repeat_key};

/// ElevenLabs' conversation-initiation webhook body.
#[derive(Debug, Deserialize)]
struct ElevenLabsInbound {
    caller_id: Field,
    /// Parsed, so that a broken integration is refused; the portal is the path's.
    #[serde(default, rename = "agent_id")]
    _agent_id: Option<Field>,
    #[serde(default, rename = "called_number")]
    _called_number: Option<Field>,
    #[serde(default)]
    call_sid: Option<Field>,
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
        BadSecret,
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
    let from = number(Some(&inbound.caller_id), &state);
    let call_id = inbound.call_sid.and_then(Field::into_option);
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
        BadSecret,
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
        BadSecret,
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
