//! The agent's tools during a live call: `record_request` writes a request down for staff
//! now (the call's `call.ended` then carries it once), `report_emergency` opens the call's
//! urgent alert at once (the same alert the triage of `call.ended` would open, never a
//! second). Idempotent on the platform's tool-call id; each answer is a sentence the agent
//! can say.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use shared::domain::{Alert, AlertCategory, AlertReason, CallFinding, CallOrigin, MAX_WORDS};
use shared::error::ApiError;
use shared::ids::PortalId;
use shared::phone::{self, DefaultRegion};
use shared::store::live::{AnsweredTool, LiveRequest, LiveState, ToolWrite};
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{AlertWrite, CallAlert};
use shared::validate::Validator;
use shared::wire::{Parse, PhoneText, RequiredProse, RequiredText, Text};

use axum::extract::State;
use http::HeaderMap;
use shared::audit::AccessNote;
use shared::error::Problem;
use shared::extract::{JsonBytes, JsonResponse, decode_json};
use shared::store::NewRequest;
use shared::store::access_log::{Accessor, Action};

use crate::answers::UnsignedPortal;
use crate::call_alerts::escalate_at_once;
use crate::{IntegrationsState, authenticate, events};

/// Rounds a tool call (or the `call.ended` it races) may lose before it answers 503: a
/// conversation's live state is written by each of its tool calls, and an agent may call
/// several at once (Vapi sends parallel calls); 16 lets 16 writers at once all succeed, as
/// each round lets at least one through.
pub const LIVE_CALL_ROUNDS: u32 = 16;

/// The most requests one conversation's tools may write down, and the most tool calls it may
/// make: a conversation's live state is one item (DynamoDB's 400 KB), and no call has
/// more. An emergency report is taken up to the second bound, past the first.
pub const MAX_LIVE_REQUESTS: usize = 100;
pub const MAX_TOOL_CALLS: usize = 1_000;

/// The longest request the agent may write down: a sentence or two.
const MAX_REQUEST: usize = 2_000;

/// An id a platform gives: of a call, of a tool call, of a tool.
type PlatformId = RequiredText<{ shared::wire::MAX_SHORT_TEXT }>;
/// What the agent wrote down: a request, the caller's words.
type ToolText = RequiredProse<MAX_REQUEST>;

/// A tool call as the platform sends it (the canonical shape; the provider routes translate
/// theirs into it).
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "callId": "conv-7f3a", "toolCallId": "tool-1", "name": "report_emergency",
    "arguments": {"category": "fall", "words": "I've fallen in the hall and can't get up"},
    "fromNumber": "+46731110003"
}))]
pub struct ToolCallRequest {
    /// The platform's id of the conversation: the `conversationUuid` its `call.ended` will
    /// carry.
    #[schema(value_type = PlatformId, inline)]
    pub call_id: String,
    /// The platform's id of this tool call: a repeat with the same id is answered as the first
    /// was and writes nothing.
    #[schema(value_type = PlatformId, inline)]
    pub tool_call_id: String,
    /// `record_request` or `report_emergency`.
    #[schema(value_type = PlatformId, inline)]
    pub name: String,
    /// `record_request`: `{"request": "..."}`. `report_emergency`: `{"category": "fall",
    /// "words": "..."}`, the category one of the urgent alert categories (any other is
    /// recorded as `other_emergency`: an emergency is never refused for its label).
    #[schema(value_type = Object)]
    pub arguments: Map<String, Value>,
    /// The client's side of the call, when the platform knows it: names the client of an
    /// emergency reported before the call is recorded.
    #[serde(default)]
    #[schema(value_type = Option<PhoneText>, inline)]
    pub from_number: Option<String>,
}

/// What the agent asked for, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Tool {
    RecordRequest {
        request: String,
    },
    ReportEmergency {
        category: AlertCategory,
        words: String,
    },
}

impl Tool {
    /// The tool's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            Tool::RecordRequest { .. } => "record_request",
            Tool::ReportEmergency { .. } => "report_emergency",
        }
    }
}

/// A tool call parsed at the edge.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub call_id: String,
    pub tool_call_id: String,
    pub tool: Tool,
    pub from_number: Option<String>,
}

impl ToolCallRequest {
    /// The call with every field checked, each failing one reported by its path.
    pub fn validated(self, region: DefaultRegion) -> Result<ToolCall, ApiError> {
        let mut v = Validator::new();
        let id = |value: &str| PlatformId::parse(value).map(PlatformId::into_string);
        let call_id = v.check("callId", id(&self.call_id));
        let tool_call_id = v.check("toolCallId", id(&self.tool_call_id));
        // The arguments are the platform's free object: each one the tool takes is parsed here.
        let text = |v: &mut Validator, field: &str| {
            let value = self.arguments.get(field);
            v.check(
                &format!("arguments.{field}"),
                match value {
                    Some(Value::String(text)) => ToolText::parse(text).map(ToolText::into_string),
                    Some(_) => Err("must be a string".to_string()),
                    None => Err("is required".to_string()),
                },
            )
        };
        let tool = match self.name.as_str() {
            "record_request" => {
                text(&mut v, "request").map(|request| Tool::RecordRequest { request })
            }
            "report_emergency" => {
                // A name outside the list is an emergency all the same; text that is no name
                // (a number, control characters, kilobytes) is a broken integration: 400.
                let category = match self.arguments.get("category") {
                    None | Some(Value::Null) => Some(AlertCategory::OtherEmergency),
                    Some(Value::String(name)) => v
                        .check("arguments.category", Text::<200>::parse(name))
                        .map(|name| emergency_category(name.as_str())),
                    Some(_) => v.check("arguments.category", Err("must be a string".into())),
                }
                .unwrap_or(AlertCategory::OtherEmergency);
                text(&mut v, "words").map(|words| Tool::ReportEmergency {
                    category,
                    words: words.chars().take(MAX_WORDS).collect(),
                })
            }
            _ => {
                v.check::<()>(
                    "name",
                    Err("must be record_request or report_emergency".to_string()),
                );
                None
            }
        };
        let from_number = match &self.from_number {
            // A withheld or unparsable number names no client; text that is no number at all
            // is a broken integration.
            Some(raw) => v
                .check("fromNumber", Text::<40>::parse(raw))
                .and_then(Text::into_option)
                .and_then(|number| phone::normalise(&number, region).ok()),
            None => None,
        };
        v.finish()?;
        match (call_id, tool_call_id, tool) {
            (Some(call_id), Some(tool_call_id), Some(tool)) => Ok(ToolCall {
                call_id,
                tool_call_id,
                tool,
                from_number,
            }),
            _ => Err(ApiError::internal("a checked tool call lacks a field")),
        }
    }
}

/// The urgent category of this name; any other name (a concern category, a typo) is an
/// emergency all the same.
fn emergency_category(name: &str) -> AlertCategory {
    serde_json::from_value::<AlertCategory>(Value::String(name.trim().to_ascii_lowercase()))
        .ok()
        .filter(|category| category.is_urgent())
        .unwrap_or(AlertCategory::OtherEmergency)
}

/// The key under which two wordings of a request are the same request: its letters and
/// digits, lowercased.
pub fn same_request_key(request: &str) -> String {
    request
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The answer to a tool call: a short sentence the agent can say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub tool_call_id: String,
    pub result: String,
}

const NOTED: &str = "I have written that down; the staff will see it.";
const ALERTED: &str =
    "I have alerted the staff. Someone will contact you as soon as possible. Stay on the line.";
const ALREADY_ALERTED: &str =
    "The staff have already been alerted. Someone will contact you as soon as possible.";

/// Carries out one tool call (or repeats the answer of an earlier one with the same id) and
/// returns the answer with the client it concerned, if known.
pub async fn carry_out(
    state: &IntegrationsState,
    portal_id: PortalId,
    call: &ToolCall,
) -> Result<(ToolResult, i32), ApiError> {
    let mut rounds = optimistic::Rounds::new(LIVE_CALL_ROUNDS, "the live call");
    loop {
        rounds.start().await?;
        let read = state.caller.live_state(portal_id, &call.call_id).await?;
        let client_id = read.conversation.as_ref().map_or(0, |c| c.client_id);
        if let Some(result) = read.live.answer_of(&call.tool_call_id) {
            return Ok((answer(call, result), client_id));
        }
        let full = read.live.answered.len() >= MAX_TOOL_CALLS
            || (matches!(call.tool, Tool::RecordRequest { .. })
                && read.live.requests.len() >= MAX_LIVE_REQUESTS);
        if full {
            return Err(ApiError::Conflict(format!(
                "This call has reached its limit of {MAX_LIVE_REQUESTS} requests written down \
                 and {MAX_TOOL_CALLS} tool calls."
            )));
        }
        let now = state.clock.now();
        let (result, alert, late_request, client_id) = match &call.tool {
            Tool::RecordRequest { request } => {
                let late = read.conversation.is_some().then(|| (request.clone(), now));
                (NOTED, None, late, client_id)
            }
            Tool::ReportEmergency { category, words } => {
                let (alert, client_id) =
                    emergency_alert(state, portal_id, call, &read, *category, words).await?;
                let result = if alert.is_some() {
                    ALERTED
                } else {
                    ALREADY_ALERTED
                };
                (result, alert, None, client_id)
            }
        };
        let mut live = read.live.clone();
        if let Tool::RecordRequest { request } = &call.tool {
            live.requests.push(LiveRequest {
                tool_call_id: call.tool_call_id.clone(),
                request: request.clone(),
                at: now,
            });
        }
        live.answered.push(AnsweredTool {
            tool_call_id: call.tool_call_id.clone(),
            result: result.to_string(),
        });
        let write = ToolWrite {
            portal_id,
            call_id: call.call_id.clone(),
            read,
            live,
            alert,
            late_request,
        };
        if let Round::Done(written) = state.caller.record_tool_call(&write).await.or_lost()? {
            tracing::info!(
                portal_id = portal_id.get(),
                tool = call.tool.name(),
                alert = ?written,
                recorded = write.read.conversation.is_some(),
                "tool call carried out"
            );
            if let Some(alert) = written {
                let opened = matches!(write.alert, Some(AlertWrite::Open(_)));
                shared::metrics::alerts_opened(usize::from(opened));
                escalate_at_once(state, portal_id.get(), alert).await;
            }
            return Ok((answer(call, result), client_id));
        }
    }
}

fn answer(call: &ToolCall, result: &str) -> ToolResult {
    ToolResult {
        tool_call_id: call.tool_call_id.clone(),
        result: result.to_string(),
    }
}

/// What an emergency report does to the call's alert: nothing when an urgent one exists (from
/// an earlier report or the recorded call's triage); raises the recorded call's concern alert;
/// otherwise opens one, for the client of the recorded call or of the number.
async fn emergency_alert(
    state: &IntegrationsState,
    portal_id: PortalId,
    call: &ToolCall,
    read: &LiveState,
    category: AlertCategory,
    words: &str,
) -> Result<(Option<AlertWrite>, i32), ApiError> {
    let finding = CallFinding {
        reason: AlertReason::Urgent,
        category,
        words: words.to_string(),
    };
    let now = state.clock.now();
    let existing: Option<CallAlert> = read
        .live
        .alert
        .or(read.conversation.as_ref().and_then(|c| c.alert));
    if let Some(conversation) = &read.conversation {
        let client_id = conversation.client_id;
        return match existing {
            Some(alert) if !finding.outranks(alert.reason) => Ok((None, client_id)),
            Some(alert) => {
                let stored = state
                    .escalator
                    .alerts
                    .alert_to_step(portal_id, alert.alert_id)
                    .await?;
                Ok((
                    stored.map(|stored| AlertWrite::RaiseTo {
                        version: stored.version,
                        alert: stored.alert.raised_to(finding, now),
                    }),
                    client_id,
                ))
            }
            None => {
                let origin = CallOrigin {
                    portal_id: portal_id.get(),
                    client_id,
                    phone_call_id: conversation.phone_call_id,
                    client_number: conversation.client_number.clone(),
                };
                Ok((
                    Some(AlertWrite::Open(Alert::of_call(origin, finding, now))),
                    client_id,
                ))
            }
        };
    }
    if existing.is_some() {
        return Ok((None, 0));
    }
    let client_id = match &call.from_number {
        Some(number) => {
            let clients = state.store.clients_by_number(portal_id, number).await?;
            crate::client_for_number(&clients, number).unwrap_or(0)
        }
        None => 0,
    };
    let origin = CallOrigin {
        portal_id: portal_id.get(),
        client_id,
        phone_call_id: 0,
        client_number: call.from_number.clone(),
    };
    // Not recorded yet: the call's `call.ended` links its id.
    let alert = Alert {
        phone_call_id: None,
        ..Alert::of_call(origin, finding, now)
    };
    Ok((Some(AlertWrite::Open(alert)), client_id))
}

/// Carry out a tool the agent calls during a live call
///
/// `record_request` writes a client request down for staff now: it is listed with the call's
/// requests once `call.ended` stores the call, after those the event brings itself, and not
/// again when `call.ended` brings the same words. `report_emergency` opens the call's urgent
/// alert at once and sends its first SMS within this request, as the triage of `call.ended`
/// would; that call then takes the alert over (never a second one). A repeated `toolCallId`
/// is answered as the first time and writes nothing. The answer is a sentence the agent can
/// say. Signed as the events are.
#[utoipa::path(
    post, path = "/integrations/voice/tools", tag = "integrations",
    params(
        ("X-Portal-Id" = i32, Header, minimum = 1, description = "The portal the call is for."),
        ("X-Signature" = String, Header, description = "As for `/integrations/voice/events`."),
    ),
    request_body = ToolCallRequest,
    responses(
        (status = 200, description = "Carried out (or carried out before, for a repeated `toolCallId`).", body = ToolResult),
        (status = 400, description = "An unknown tool, or arguments that are not what the tool takes.", body = Problem),
        (status = 409, description = "The call has reached its limit of 100 requests written down (or 1,000 tool calls).", body = Problem),
        UnsignedPortal,
    )
)]
pub async fn voice_tool(
    State(state): State<IntegrationsState>,
    access: AccessNote,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<ToolResult>, ApiError> {
    let portal_id = authenticate(&state, &headers, &body)?;
    let call = decode_json::<ToolCallRequest>(&body)?.validated(state.region)?;
    let (result, client_id) = carry_out(&state, PortalId(portal_id), &call).await?;
    access.record(
        PortalId(portal_id),
        Accessor::VoicePlatform,
        Action::ToolCall,
        [client_id],
        [],
    );
    Ok(JsonResponse::ok(result))
}

/// The requests of a call: those `call.ended` brings, in its order, then those the agent wrote
/// down during the call that it does not bring (the same words, ignoring case, spaces and
/// punctuation, are one request).
pub(crate) fn with_live_requests(
    raised: &[events::IncomingRequest],
    live: &shared::store::live::LiveCall,
) -> Vec<NewRequest> {
    let mut requests: Vec<NewRequest> = raised
        .iter()
        .map(|raised| NewRequest {
            line_index: Some(raised.transcript_line_index),
            request: raised.request.clone(),
            at: None,
        })
        .collect();
    for written in &live.requests {
        let key = same_request_key(&written.request);
        if !requests.iter().any(|r| same_request_key(&r.request) == key) {
            requests.push(NewRequest {
                line_index: None,
                request: written.request.clone(),
                at: Some(written.at),
            });
        }
    }
    requests
}
