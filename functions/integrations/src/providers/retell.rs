//! Retell's inbound-call webhook and custom functions.

use axum::extract::State;
use http::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use shared::audit::AccessNote;
use shared::error::{ApiError, Problem};
use shared::extract::{JsonBytes, JsonResponse, PathId, decode_json};
use shared::ids::PortalId;

use crate::IntegrationsState;
use crate::answers::BadSignature;
use crate::caller::{self, CallerQuery};
use crate::tools::ToolCallRequest;

use super::{Field, carry_out, check_retell, number, repeat_key};

/// Retell's inbound-call webhook body.
#[derive(Debug, Deserialize)]
struct RetellInbound {
    event: RetellEvent,
    call_inbound: RetellInboundCall,
}

/// The one event this webhook takes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RetellEvent {
    CallInbound,
}

#[derive(Debug, Deserialize)]
struct RetellInboundCall {
    from_number: Field,
    /// Parsed, so that a broken integration is refused; the portal is the path's.
    #[serde(rename = "to_number")]
    _to_number: Field,
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
        BadSignature,
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
    let RetellEvent::CallInbound = inbound.event;
    let from = number(Some(&inbound.call_inbound.from_number), &state);
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
        BadSignature,
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
