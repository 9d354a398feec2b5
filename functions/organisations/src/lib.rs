//! The organisation endpoints: suggesting which client of the caller's organisation an
//! unknown caller is, from what the call's summary and number say, and linking the call to the
//! client staff chose.

pub mod rerank;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{FromRef, State};
use axum::routing::post;
use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use matcher::index::{CallFacts, ClientIndex};
use matcher::score::{Ranked, SUGGESTION_THRESHOLD, rank};
use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::clock::Clock;
use shared::error::{ApiError, Problem, ReadingLimited};
use shared::extract::{Json, JsonResponse};
use shared::ids::{CallId, ClientId, OrganisationId};
use shared::phone::MetadataLoad;
use shared::phone::{self, DefaultRegion};
use shared::records::{PhoneCall, Timestamp};
use shared::runtime::{Platform, Services};
use shared::store::access_log::Action;
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{FixLookup, FixRequest, Narrow, OrganisationStore, SessionReader, StoreResult};
use shared::validate::{self, Validator};
use shared::wire::{PhoneText, Text};

use crate::rerank::Reranker;

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(suggest_unknown_client, fix_unknown_client))]
pub struct ApiDoc;

/// Candidates an answer lists at most.
pub const MAX_CANDIDATES: usize = 5;

pub use shared::store::limits::MAX_FIX_REQUESTS;

/// How long an organisation's client index is reused before it is built again: a client
/// added or changed appears in suggestions within this time.
pub const INDEX_TTL: TimeDelta = TimeDelta::seconds(60);

/// Client indexes by organisation, built on first use and rebuilt once older than the TTL.
#[derive(Default)]
pub struct IndexCache {
    entries: Mutex<HashMap<OrganisationId, (Timestamp, Arc<ClientIndex>)>>,
}

impl IndexCache {
    async fn get(
        &self,
        store: &dyn OrganisationStore,
        organisation_id: OrganisationId,
        now: Timestamp,
    ) -> StoreResult<Arc<ClientIndex>> {
        let cached = self
            .entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&organisation_id)
            .filter(|(built, _)| now - *built < INDEX_TTL && *built <= now)
            .map(|(_, index)| index.clone());
        if let Some(index) = cached {
            return Ok(index);
        }
        let clients = store.organisation_clients(organisation_id, now).await?;
        let index = Arc::new(shared::matching::client_index(&clients, now));
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(organisation_id, (now, index.clone()));
        Ok(index)
    }
}

#[derive(Clone, FromRef)]
pub struct OrganisationsState {
    pub organisations: Arc<dyn OrganisationStore>,
    pub authenticator: Authenticator,
    pub clock: Arc<dyn Clock>,
    pub indexes: Arc<IndexCache>,
    pub region: DefaultRegion,
    /// The language model that re-ranks the best candidates, when `SUGGEST_MODEL_ID` is set.
    pub reranker: Option<Arc<dyn Reranker>>,
    pub audit: AuditLog,
}

impl OrganisationsState {
    pub fn new<S>(services: &Services<S>, reranker: Option<Arc<dyn Reranker>>) -> Self
    where
        S: ?Sized + Narrow<dyn OrganisationStore> + Narrow<dyn SessionReader>,
    {
        Self {
            organisations: services.store(),
            authenticator: services.authenticator(),
            clock: services.clock.clone(),
            indexes: Arc::default(),
            // The suggestion waits on DynamoDB for longer than the load takes, and the load would compete with it.
            region: services.phone_region(MetadataLoad::FirstUse),
            reranker,
            audit: services.audit(),
        }
    }

    /// The state on Lambda: with the Bedrock re-ranker when `SUGGEST_MODEL_ID` is set.
    pub fn for_lambda(platform: &Platform) -> Self {
        let reranker = bedrock_reranker(&platform.sdk, |name| std::env::var(name).ok());
        Self::new(&platform.services, reranker)
    }
}

/// The Bedrock re-ranker of `SUGGEST_MODEL_ID`, when it is set (and not empty).
pub fn bedrock_reranker(
    sdk: &aws_config::SdkConfig,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<Arc<dyn Reranker>> {
    let model = shared::bedrock::Converse::from_lookup(sdk, "SUGGEST_MODEL_ID", lookup)?;
    Some(Arc::new(model))
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: OrganisationsState) -> Router {
    let routes = Router::new()
        .route(
            "/organisations/suggest-unknown-client",
            post(suggest_unknown_client),
        )
        .route(
            "/organisations/fix-unknown-client",
            post(fix_unknown_client),
        );
    shared::audit::logged_with_state(routes, state)
}

/// One ranked client in an answer.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub client_id: i32,
    pub portal_id: i32,
    pub name: String,
    /// 0-100: how often a suggestion at this confidence is right.
    pub confidence: i32,
    pub reason: String,
}

impl From<Ranked> for Candidate {
    fn from(ranked: Ranked) -> Self {
        Self {
            client_id: ranked.client_id,
            portal_id: ranked.portal_id,
            name: ranked.name,
            confidence: ranked.confidence,
            reason: ranked.reason,
        }
    }
}

/// The suggested client, with every ranked candidate (itself first).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(example = json!({
    "clientId": 3, "portalId": 1, "name": "Gunnel Andersson", "confidence": 91,
    "reason": "The caller said her name (Gunnel Andersson) and her street (Storgatan 5).",
    "candidates": [
        {"clientId": 3, "portalId": 1, "name": "Gunnel Andersson", "confidence": 91,
         "reason": "The caller said her name (Gunnel Andersson) and her street (Storgatan 5)."},
        {"clientId": 7, "portalId": 2, "name": "Gunnar Andersson", "confidence": 22,
         "reason": "A similar name (Gunnar Andersson)."}
    ]
}))]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    #[serde(flatten)]
    pub client: Candidate,
    pub candidates: Vec<Candidate>,
}

/// The body of a suggestion request: a phone call record, of which `summary` and
/// `fromNumber` are read. Missing fields take their defaults, unknown ones are refused.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct UnknownCall(PhoneCall);

/// The phone call record's schema as a request (every field optional), with the rule that
/// `summary` or `fromNumber` has something to match.
impl utoipa::PartialSchema for UnknownCall {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use shared::records::TranscriptLine;
        let mut call = serde_json::to_value(PhoneCall::schema()).expect("a schema is JSON");
        // Lines are optional field by field too, so the record's strict line schema won't do.
        let mut line = serde_json::to_value(TranscriptLine::schema()).expect("a schema is JSON");
        // The limits `check_call_text` holds the text to.
        let limit = |schema: &mut serde_json::Value, field: &str, kind: TextKind| {
            if let Some(property) = schema["properties"].get_mut(field) {
                property["pattern"] = kind.pattern().into();
                property["maxLength"] = kind.max_chars().into();
            }
        };
        for (field, _, kind) in call_texts(&PhoneCall::default()) {
            limit(&mut call, field, kind);
        }
        for (field, _, kind) in line_texts(&TranscriptLine::default()) {
            limit(&mut line, field, kind);
        }
        call["properties"]["transcript"]["items"] = line;
        // A number that is not one is a field error (`suggest_unknown_client`).
        call["properties"]["fromNumber"]["format"] = "phone".into();
        let said = |field: &str| {
            let mut text = serde_json::json!({"type": "string", "pattern": shared::openapi::SAID});
            if field == "fromNumber" {
                text["format"] = "phone".into();
            }
            serde_json::json!({
                "type": "object",
                "required": [field],
                "properties": {field: text},
            })
        };
        let call = serde_json::json!({
            "allOf": [call, {"anyOf": [said("summary"), said("fromNumber")]}],
            "description": "A phone call record; `summary` and `fromNumber` are what is \
                matched, and at least one of them must have text.",
            "example": {
            "id": 1002, "startDate": "2026-11-20T09:02:00Z",
            "fromNumber": "+46709998877", "toNumber": "+4687001000",
            "summary": "Gunnel Andersson from Storgatan 5 asked about tomorrow's visit.",
            },
        });
        serde_json::from_value(call).expect("a well-formed schema")
    }
}

impl utoipa::ToSchema for UnknownCall {}

/// The two limits an ingested call's text is held to, and so a call to match.
#[derive(Debug, Clone, Copy)]
enum TextKind {
    /// Numbers, names and ids: one line, up to 200 characters.
    Short,
    /// Summaries, reasons and transcript lines: line breaks allowed, up to 20,000 characters.
    Prose,
}

type ShortText = Text<{ shared::wire::MAX_SHORT_TEXT }>;
type CallProse = shared::wire::Prose<{ shared::wire::MAX_PROSE }>;

impl TextKind {
    fn max_chars(self) -> usize {
        match self {
            Self::Short => shared::wire::MAX_SHORT_TEXT,
            Self::Prose => shared::wire::MAX_PROSE,
        }
    }

    fn pattern(self) -> &'static str {
        match self {
            Self::Short => shared::openapi::TEXT,
            Self::Prose => shared::openapi::PROSE,
        }
    }

    fn check(self, value: &str) -> Result<Option<String>, String> {
        match self {
            Self::Short => ShortText::parse(value).map(ShortText::into_option),
            Self::Prose => CallProse::parse(value).map(CallProse::into_option),
        }
    }
}

/// The text fields of a call record with their kind: one list for the check and the schema.
fn call_texts(call: &PhoneCall) -> [(&'static str, &Option<String>, TextKind); 10] {
    use TextKind::{Prose, Short};
    [
        ("fromNumber", &call.from_number, Short),
        ("toNumber", &call.to_number, Short),
        ("name", &call.name, Short),
        ("uuid", &call.uuid, Short),
        ("conversationUuid", &call.conversation_uuid, Short),
        ("summary", &call.summary, Prose),
        ("purpose", &call.purpose, Prose),
        ("confidenceReason", &call.confidence_reason, Prose),
        ("satisfactionReason", &call.satisfaction_reason, Prose),
        ("dynamicVariables", &call.dynamic_variables, Prose),
    ]
}

/// The text fields of a transcript line with their kind.
fn line_texts(
    line: &shared::records::TranscriptLine,
) -> [(&'static str, &Option<String>, TextKind); 2] {
    [
        ("by", &line.by, TextKind::Short),
        ("message", &line.message, TextKind::Prose),
    ]
}

/// The text of a call to match, held to the limits of an ingested call. Fields the matcher
/// does not read are checked too, so no bad input passes unnoticed.
fn check_call_text(call: &PhoneCall) -> Result<(), ApiError> {
    let mut validator = Validator::new();
    for (field, value, kind) in call_texts(call) {
        if let Some(value) = value {
            validator.check(field, kind.check(value));
        }
    }
    for (i, line) in call.transcript.iter().flatten().enumerate() {
        for (field, value, kind) in line_texts(line) {
            if let Some(value) = value {
                validator.check(&format!("transcript[{i}].{field}"), kind.check(value));
            }
        }
    }
    validator.finish()
}

/// Suggest the client behind an unknown call
///
/// Suggests the client behind an unknown call among the clients of the caller's organisation.
#[utoipa::path(
    post, path = "/organisations/suggest-unknown-client", tag = "organisations",
    request_body = UnknownCall,
    responses(
        (status = 200, description = "The most likely client of the caller's organisation, with the ranked candidates.", body = Suggestion),
        (status = 404, description = "No client reaches the suggestion threshold; `candidates` in the problem ranks the closest (possibly none).", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn suggest_unknown_client(
    State(state): State<OrganisationsState>,
    caller: Caller,
    access: AccessNote,
    Json(UnknownCall(call)): Json<UnknownCall>,
) -> Result<JsonResponse<Suggestion>, ApiError> {
    check_call_text(&call)?;
    let present = |text: &Option<String>| text.as_deref().is_some_and(|t| !t.trim().is_empty());
    if !present(&call.summary) && !present(&call.from_number) {
        return Err(ApiError::field(
            "summary",
            "summary or fromNumber is required: there is nothing to match otherwise",
        ));
    }
    if let Some(number) = call.from_number.as_deref().filter(|n| !n.trim().is_empty()) {
        phone::normalise(number, state.region)
            .map_err(|reason| ApiError::field("fromNumber", reason))?;
    }
    let organisation_id = state
        .organisations
        .organisation_of(caller.portal_id)
        .await?
        .ok_or(ApiError::NotFound("organisation"))?;
    let now = state.clock.now();
    let index = state
        .indexes
        .get(state.organisations.as_ref(), organisation_id, now)
        .await?;
    let facts = CallFacts::of(
        call.summary.as_deref().unwrap_or_default(),
        call.from_number.as_deref(),
        now.date_naive(),
    );
    let mut ranked = rank(&index, &facts, MAX_CANDIDATES);
    if let Some(reranker) = &state.reranker {
        let summary = call.summary.as_deref().unwrap_or_default();
        ranked = rerank::rerank(reranker.as_ref(), summary, ranked).await;
    }
    let candidates: Vec<Candidate> = ranked.into_iter().map(Candidate::from).collect();
    // Shown whether or not one reaches the threshold (a 404 lists them too).
    access.by_caller(
        &caller,
        Action::SuggestClient,
        candidates.iter().map(|candidate| candidate.client_id),
        [],
    );
    match candidates.first() {
        Some(best) if best.confidence >= SUGGESTION_THRESHOLD => Ok(JsonResponse::ok(Suggestion {
            client: best.clone(),
            candidates,
        })),
        _ => Err(ApiError::NoSuggestion {
            candidates: serde_json::to_value(&candidates).map_err(ApiError::internal)?,
        }),
    }
}

/// `POST /organisations/fix-unknown-client`: the call to link, the client it belongs to, and
/// optionally the number to keep as the client's primary one (often the caller's number).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"phoneCallId": 1002, "clientId": 3, "primaryNumber": "+46709998877"}))]
struct FixBody {
    #[schema(required = true, nullable = false, minimum = 1)]
    phone_call_id: Option<i32>,
    /// A client of any portal of the caller's organisation.
    #[schema(required = true, nullable = false, minimum = 1)]
    client_id: Option<i32>,
    /// Kept as the client's primary number, in E.164; absent or null leaves it. Read as text
    /// and parsed by the handler, so that a bad number is named beside missing ids.
    #[schema(value_type = Option<PhoneText>, inline)]
    primary_number: Option<Text<40>>,
}

/// Link an unknown call to a client
///
/// Links an unknown (or wrongly linked) call of the caller's portal to a client of the caller's
/// organisation.
#[utoipa::path(
    post, path = "/organisations/fix-unknown-client", tag = "organisations",
    request_body = FixBody,
    responses(
        (status = 200, description = "The call as linked: `clientId`, `portalId` of the client, `isUnknown` false; its client requests move with it.", body = PhoneCall),
        (status = 403, description = "`primaryNumber` was given for a client of another portal of the organisation; nothing was written.", body = Problem),
        (status = 404, description = "No such call in the caller's portal, or no such live client in the caller's organisation.", body = Problem),
        (status = 409, description = "The call has more client requests than one transaction can move.", body = Problem),
        ReadingLimited,
    ),
    security(("bearer" = []))
)]
async fn fix_unknown_client(
    State(state): State<OrganisationsState>,
    caller: Caller,
    access: AccessNote,
    Json(body): Json<FixBody>,
) -> Result<JsonResponse<PhoneCall>, ApiError> {
    // Every field's problem in one answer, as the interface's other bodies give them.
    let mut validator = Validator::new();
    let call_id = validator.check("phoneCallId", validate::id(body.phone_call_id));
    let client_id = validator.check("clientId", validate::id(body.client_id));
    let primary_number = body.primary_number.and_then(|number| {
        let number = PhoneText::parse(number.as_str()).and_then(|n| n.e164(state.region));
        validator.check("primaryNumber", number)
    });
    validator.finish()?;
    let (call_id, client_id) = call_id
        .zip(client_id)
        .map(|(call, client)| (CallId(call), ClientId(client)))
        .ok_or_else(|| ApiError::internal("ids passed validation but are missing"))?;
    let organisation_id = state
        .organisations
        .organisation_of(caller.portal_id)
        .await?
        .ok_or(ApiError::NotFound("phone call"))?;
    let fix = FixRequest {
        organisation_id,
        call_id,
        client_id,
    };
    // The call or a client may change between the read and the write: read again.
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the phone call");
    loop {
        rounds.start().await?;
        let now = state.clock.now();
        let target = match state.organisations.fix_target(fix, now).await? {
            FixLookup::NoCall => return Err(ApiError::NotFound("phone call")),
            FixLookup::NoClient => return Err(ApiError::NotFound("client")),
            FixLookup::Found(target) => target,
        };
        // Fixing takes a call of the caller's own portal: another portal's call answers as a
        // missing one. The client may be of any portal of the organisation (the call moves
        // there), but only a client of the caller's own portal may get a new primary number.
        if target.call.portal_id != caller.portal_id {
            return Err(ApiError::NotFound("phone call"));
        }
        let touched = [target.client.id]
            .into_iter()
            .chain(target.previous_client.map(|(_, client)| client.get()));
        access.by_caller(&caller, Action::FixCall, touched, [call_id.get()]);
        if primary_number.is_some() && target.client.portal_id != caller.portal_id {
            return Err(ApiError::Forbidden(
                "primaryNumber can only be set on a client of your own portal.",
            ));
        }
        if target.requests.len() > MAX_FIX_REQUESTS {
            return Err(ApiError::Conflict(format!(
                "The call has {} client requests; at most {MAX_FIX_REQUESTS} can be moved in one \
                 transaction.",
                target.requests.len()
            )));
        }
        let fixed = state
            .organisations
            .fix_call(&target, primary_number.as_deref())
            .await;
        if let Round::Done(()) = fixed.or_lost()? {
            return Ok(JsonResponse::ok(target.fixed_call()));
        }
    }
}
