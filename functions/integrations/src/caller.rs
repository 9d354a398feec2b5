//! The caller context: who is calling, told to the voice agent before it answers. Always
//! answers, and in time: a slow or failing store gives the context of an unknown caller.

use std::time::Duration;

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use shared::error::ApiError;
use shared::ids::{ClientId, PortalId, QuestionnaireId};
use shared::phone::{self, DefaultRegion};
use shared::records::{Client, Timestamp};
use shared::store::access_log::{Access, Accessor, Action};
use shared::store::{DueEntry, StoreError};
use shared::wire::{RequiredText, Text};

use axum::extract::State;
use http::HeaderMap;
use shared::error::Problem;
use shared::extract::{JsonBytes, JsonResponse, decode_json};

use crate::answers::UnsignedPortal;
use crate::{IntegrationsState, authenticate, client_for_number};

/// How long the handler may take before it answers with the unknown caller's context, unless
/// `CALLER_CONTEXT_DEADLINE_MS` says otherwise: well inside the shortest platform timeout
/// that matters here (Vapi's 7.5 s end to end, Telnyx's 1.5 s), leaving room for a cold start.
pub const DEFAULT_DEADLINE: Duration = Duration::from_millis(800);

/// `CALLER_CONTEXT_DEADLINE_MS` from `lookup`: `None` when unset; an error when it is not a
/// whole number of milliseconds from 50 to 10,000 (the longest any platform waits).
pub fn deadline_from(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Duration>, shared::store::BoxError> {
    let Some(raw) = lookup("CALLER_CONTEXT_DEADLINE_MS") else {
        return Ok(None);
    };
    match raw.trim().parse::<u64>() {
        Ok(ms) if (50..=10_000).contains(&ms) => Ok(Some(Duration::from_millis(ms))),
        _ => Err(format!(
            "CALLER_CONTEXT_DEADLINE_MS must be milliseconds from 50 to 10000, not {raw:?}"
        )
        .into()),
    }
}

/// An entry whose next try is at most this far ahead is offered to an inbound call: the
/// client who rings in the morning can answer the questionnaire due at noon.
pub const ENTRY_AHEAD: TimeDelta = TimeDelta::hours(12);

/// The platform's question before an inbound call is answered.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"fromNumber": "+46731110003", "toNumber": "+4687001000", "callId": "conv-7f3a"}))]
pub struct InboundCall {
    /// The caller's number, E.164 or national (the portal's region); anything else (a
    /// withheld caller id: "anonymous", "unknown") is an unknown caller.
    #[schema(inline)]
    pub from_number: Text<40>,
    /// The portal's number that was called.
    #[schema(inline)]
    pub to_number: Text<40>,
    /// The platform's id of the conversation: the `conversationUuid` its `call.ended` will
    /// carry.
    #[schema(inline)]
    pub call_id: RequiredText<200>,
}

impl InboundCall {
    /// What the context is looked up by. A `fromNumber` that is no phone number is an unknown
    /// caller, not an error: a 4xx here could drop the call of an elderly person. Text that no
    /// platform sends (control characters, kilobytes, a blank `callId`) was refused with the
    /// body.
    pub fn query(self, region: DefaultRegion) -> CallerQuery {
        CallerQuery {
            from_number: self
                .from_number
                .into_option()
                .and_then(|number| phone::normalise(&number, region).ok()),
            call_id: Some(self.call_id.into_inner()),
        }
    }
}

/// A caller-context request as parsed, from any platform's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerQuery {
    /// The caller's number in E.164; `None` when withheld or not a number.
    pub from_number: Option<String>,
    /// The platform's id of the conversation, when it has one before the call is answered.
    pub call_id: Option<String>,
}

/// What the agent is told, as string-valued variables (every platform's dynamic variables are
/// strings, and ElevenLabs wants every variable in every answer: an unknown caller gets them
/// all, empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallerVariables {
    /// `"true"` when the number is one known client's of this portal, else `"false"`.
    pub known_caller: String,
    /// The client's first name (the first word of their name); empty when unknown.
    pub first_name: String,
    /// The language to greet in, when the client's record has one.
    pub language: String,
    /// How many of the client's requests nobody has answered yet (`"0"` when unknown).
    pub open_requests: String,
    /// The questionnaire entry this call may answer: pass it back in the call's dynamic
    /// variables and `call.ended` completes it, as an outbound call's does.
    pub questionnaire_client_id: String,
    /// That entry's questions, one per line, in order.
    pub questions: String,
}

/// The answer: the variables for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"variables": {
    "knownCaller": "true", "firstName": "Margareta", "language": "sv", "openRequests": "1",
    "questionnaireClientId": "41", "questions": "Hur har du sovit i natt?\nHar du ätit frukost?"
}}))]
pub struct CallerContext {
    pub variables: CallerVariables,
}

impl CallerContext {
    /// The fixed context of a caller the service does not know (or cannot look up in time):
    /// nothing about anyone.
    pub fn unknown() -> Self {
        Self {
            variables: CallerVariables {
                known_caller: "false".into(),
                first_name: String::new(),
                language: String::new(),
                open_requests: "0".into(),
                questionnaire_client_id: String::new(),
                questions: String::new(),
            },
        }
    }

    fn known(client: &Client, open_requests: usize, entry: Option<(i32, Vec<String>)>) -> Self {
        let first_name = client
            .name
            .as_deref()
            .and_then(|name| name.split_whitespace().next())
            .unwrap_or_default();
        let (entry_id, questions) = entry.unzip();
        Self {
            variables: CallerVariables {
                known_caller: "true".into(),
                first_name: first_name.to_owned(),
                language: client.language.clone().unwrap_or_default(),
                open_requests: open_requests.to_string(),
                questionnaire_client_id: entry_id.map(|id| id.to_string()).unwrap_or_default(),
                questions: questions.map(|q| q.join("\n")).unwrap_or_default(),
            },
        }
    }
}

/// The context for `call`, within the state's deadline; on a timeout or a store error, the
/// unknown caller's, with the reason logged.
pub async fn context_in_time(
    state: &IntegrationsState,
    portal_id: PortalId,
    call: &CallerQuery,
) -> CallerContext {
    match tokio::time::timeout(state.caller_deadline, context(state, portal_id, call)).await {
        Ok(Ok(context)) => context,
        Ok(Err(error)) => {
            tracing::warn!(portal_id = portal_id.get(), error = %error, call_id = call.call_id.as_deref(),
                "caller context failed; answered as an unknown caller");
            CallerContext::unknown()
        }
        Err(_) => {
            tracing::warn!(
                portal_id = portal_id.get(),
                deadline_ms = state.caller_deadline.as_millis(),
                call_id = call.call_id.as_deref(),
                "caller context timed out; answered as an unknown caller"
            );
            CallerContext::unknown()
        }
    }
}

/// The entry an inbound call now may answer: open, not being dialled by a scheduler pass, due
/// within `ENTRY_AHEAD`; the soonest.
fn waiting_entry(entries: Vec<DueEntry>, now: Timestamp) -> Option<DueEntry> {
    entries
        .into_iter()
        .filter(|due| due.pending.is_none())
        .filter(|due| {
            due.entry
                .next_try_at
                .is_some_and(|next| next <= now + ENTRY_AHEAD)
        })
        .min_by_key(|due| (due.entry.next_try_at, due.entry.id))
}

async fn context(
    state: &IntegrationsState,
    portal_id: PortalId,
    call: &CallerQuery,
) -> Result<CallerContext, StoreError> {
    let Some(number) = call.from_number.as_deref() else {
        return Ok(CallerContext::unknown());
    };
    let clients = state.store.clients_by_number(portal_id, number).await?;
    let Some(client) =
        client_for_number(&clients, number).and_then(|id| clients.into_iter().find(|c| c.id == id))
    else {
        return Ok(CallerContext::unknown());
    };
    let now = state.clock.now();
    let (open_requests, entries) = futures::future::try_join(
        state
            .caller
            .open_request_count(portal_id, ClientId(client.id)),
        state.caller.open_entries(portal_id, ClientId(client.id)),
    )
    .await?;
    let entry = match waiting_entry(entries, now) {
        Some(due) => {
            let mut questions = state
                .store
                .questions(QuestionnaireId(due.entry.questionnaire_id))
                .await?;
            questions.sort_by_key(|q| (q.position, q.id));
            let prompts = questions.into_iter().filter_map(|q| q.prompt).collect();
            Some((due.entry.id, prompts))
        }
        None => None,
    };
    // The agent hears about the client only once the access is logged: logged first, told
    // after (fail-closed, like every other read of a client).
    let access = Access {
        portal_id,
        accessor: Accessor::VoicePlatform,
        action: Action::CallerContext,
        client_ids: vec![client.id],
        call_ids: Vec::new(),
    };
    let records = access.records(now, 200, &shared::trace::current());
    shared::audit::append(state.audit.log.as_ref(), &records).await?;
    Ok(CallerContext::known(&client, open_requests, entry))
}

/// Tell the agent who is calling
///
/// Asked by the voice platform before it answers an inbound call: whether the number is a
/// known client of the portal (a number shared by two clients is not), their first name, the
/// language to greet in, how many of their requests are open, and a questionnaire entry due
/// within 12 hours with its questions, all as string variables. An unknown caller, a withheld
/// number, or a store that does not answer within the deadline (default 800 ms) gets the
/// unknown caller's context, never an error. Signed as the events are. Each known caller's
/// answer is a read of the client in the access log (accessor: the voice platform).
#[utoipa::path(
    post, path = "/integrations/voice/inbound", tag = "integrations",
    params(
        ("X-Portal-Id" = i32, Header, minimum = 1, description = "The portal the call is for."),
        ("X-Signature" = String, Header, description = "As for `/integrations/voice/events`."),
    ),
    request_body = InboundCall,
    responses(
        (status = 200, description = "The caller's context; the unknown caller's when the number is not one client's, or the lookup did not finish in time.", body = CallerContext),
        (status = 400, description = "A body that is not the JSON described, or a blank `callId`.", body = Problem),
        UnsignedPortal,
    )
)]
pub async fn inbound_call(
    State(state): State<IntegrationsState>,
    headers: HeaderMap,
    JsonBytes(body): JsonBytes,
) -> Result<JsonResponse<CallerContext>, ApiError> {
    let portal_id = authenticate(&state, &headers, &body)?;
    let query = decode_json::<InboundCall>(&body)?.query(state.region);
    let context = context_in_time(&state, PortalId(portal_id), &query).await;
    Ok(JsonResponse::ok(context))
}
