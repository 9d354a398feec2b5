//! Vapi's server URL: `assistant-request`, `tool-calls`, and every other message acknowledged.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use http::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use shared::error::{ApiError, Problem};
use shared::extract::{JsonBytes, JsonResponse, PathId, decode_json};
use shared::ids::PortalId;

use crate::IntegrationsState;
use crate::answers::BadSignature;
use crate::caller::{self, CallerQuery};
use crate::tools::{self, ToolCallRequest};

use super::{Field, check_vapi, number};

/// Vapi's server message envelope.
#[derive(Debug, Deserialize)]
struct VapiEnvelope {
    message: VapiMessage,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VapiMessage {
    #[serde(rename = "type")]
    kind: Field,
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
    id: Option<Field>,
    #[serde(default)]
    customer: Option<VapiCustomer>,
}

#[derive(Debug, Deserialize)]
struct VapiCustomer {
    #[serde(default)]
    number: Option<Field>,
}

/// The assistant a Vapi number answers with (`?assistantId=` on the server URL).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VapiQuery {
    #[serde(default)]
    assistant_id: Option<Field>,
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
        BadSignature,
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
    let call_id = message
        .call
        .as_ref()
        .and_then(|call| call.id.clone())
        .and_then(Field::into_option);
    let customer = message
        .call
        .as_ref()
        .and_then(|call| call.customer.as_ref())
        .or(message.customer.as_ref())
        .and_then(|customer| customer.number.as_ref());
    match message.kind.as_str() {
        "assistant-request" => {
            let from = number(customer, &state);
            let assistant = query
                .assistant_id
                .and_then(Field::into_option)
                .ok_or_else(|| {
                    ApiError::field("assistantId", "is required for assistant-request")
                })?;
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
            let call_id = call_id
                .ok_or_else(|| ApiError::field("message.call.id", "is required for tool-calls"))?;
            let mut results = Vec::with_capacity(calls.len());
            for (i, entry) in calls.iter().enumerate() {
                let (id, name, arguments) = vapi_tool_call(entry, i)?;
                let request = ToolCallRequest {
                    call_id: call_id.clone(),
                    tool_call_id: id.clone(),
                    name: name.clone(),
                    arguments,
                    from_number: customer.map(|number| number.as_str().to_string()),
                };
                let call = request.validated(state.region)?;
                let (result, _) = tools::carry_out(&state, PortalId(portal_id), &call).await?;
                results.push(json!({"toolCallId": id, "name": name, "result": result.result}));
            }
            Ok(JsonResponse::ok(json!({ "results": results })))
        }
        _ => Ok(JsonResponse::ok(json!({}))),
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
