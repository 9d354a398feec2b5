//! The questionnaire endpoints: the system-wide definitions, one questionnaire with the entries
//! and answers of the caller's portal, inserting a question, starting it for clients, and the
//! alerts raised by entries that ended without reaching their client.

pub mod alerts;

use std::collections::HashSet;
use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http::{HeaderValue, StatusCode, header};
use serde::{Deserialize, Serialize};

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::domain::Schedule;
use shared::error::{ApiError, Problem};
use shared::extract::{Json, JsonResponse, PathId};
use shared::ids::QuestionnaireId;
use shared::records::{
    Question, QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Role, Timestamp,
};
use shared::runtime::Services;
use shared::store::access_log::Action;
use shared::store::{
    AddQuestionOutcome, AlertStore, EntriesStart, Narrow, NewEntry, NewQuestion, QuestionAdd,
    QuestionnaireRead, QuestionnaireStore, SessionReader, StartOutcome,
};
use shared::validate::{self, Validator, required};
use shared::wire::{Instant, Metadata, RequiredText};

const ONLY_ADMINS: &str =
    "Only an admin of the organisation that owns a questionnaire may add questions to it.";

/// The most clients one start request may name: one transaction holds them all.
pub const MAX_START_ENTRIES: usize = shared::store::limits::TRANSACTION_LIMIT;

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    list_questionnaires,
    get_questionnaire,
    add_question,
    start_for_clients,
    alerts::list_alerts,
    alerts::get_alert,
    alerts::acknowledge_alert
))]
pub struct ApiDoc;

#[derive(Clone, FromRef)]
pub struct QuestionnairesState {
    pub questionnaires: Arc<dyn QuestionnaireStore>,
    pub alerts: Arc<dyn AlertStore>,
    pub authenticator: Authenticator,
    pub audit: AuditLog,
}

impl QuestionnairesState {
    pub fn new<S>(services: &Services<S>) -> Self
    where
        S: ?Sized
            + Narrow<dyn QuestionnaireStore>
            + Narrow<dyn AlertStore>
            + Narrow<dyn SessionReader>,
    {
        Self {
            questionnaires: services.store(),
            alerts: services.store(),
            authenticator: services.authenticator(),
            audit: services.audit(),
        }
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: QuestionnairesState) -> Router {
    let audit = state.audit.clone();
    // Only the routes that show or change clients' entries are logged.
    let client_data = Router::new()
        .route("/questionnaires/{id}", get(get_questionnaire))
        .route(
            "/questionnaires/{id}/start-for-clients",
            post(start_for_clients),
        )
        .route("/alerts", get(alerts::list_alerts))
        .route("/alerts/{id}", get(alerts::get_alert))
        .route("/alerts/{id}/acknowledge", post(alerts::acknowledge_alert));
    shared::audit::logged(client_data, audit)
        .route("/questionnaires", get(list_questionnaires))
        .route("/questionnaires/{id}/questions", post(add_question))
        .with_state(state)
}

/// List the questionnaires
///
/// Every questionnaire available to the caller, by id: the shared templates and those of the
/// caller's organisation.
#[utoipa::path(
    get, path = "/questionnaires", tag = "questionnaires",
    responses((status = 200, description = "The templates and the caller's organisation's questionnaires, in list form.", body = Vec<QuestionnaireSummary>)),
    security(("bearer" = []))
)]
async fn list_questionnaires(
    State(state): State<QuestionnairesState>,
    caller: Caller,
) -> Result<JsonResponse<Vec<QuestionnaireSummary>>, ApiError> {
    let mut list = state
        .questionnaires
        .questionnaires(caller.organisation_id)
        .await?;
    list.sort_by_key(|q| q.id);
    Ok(JsonResponse::ok(list))
}

/// A questionnaire with its questions, entries and answers
///
/// The questionnaire with its questions by position, and only the caller's portal's client
/// entries (by id) and their answers (by entry, then question).
#[utoipa::path(
    get, path = "/questionnaires/{id}", tag = "questionnaires",
    params(("id" = i32, Path, minimum = 1, description = "The questionnaire.")),
    responses(
        (status = 200, description = "The questionnaire in detail form.", body = QuestionnaireDetail),
        (status = 404, description = "No such questionnaire, or one of another organisation.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn get_questionnaire(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
) -> Result<JsonResponse<QuestionnaireDetail>, ApiError> {
    let mut detail = state
        .questionnaires
        .questionnaire(QuestionnaireRead {
            id: QuestionnaireId(id),
            portal_id: caller.portal_id,
            viewer: caller.organisation_id,
        })
        .await?
        .ok_or(ApiError::NotFound("questionnaire"))?;
    detail.questions.sort_by_key(|q| (q.position, q.id));
    detail.clients.sort_by_key(|entry| entry.id);
    detail
        .answers
        .sort_by_key(|a| (a.questionnaire_call_id, a.question_id));
    // Answers come from these entries, so their clients are the entries' clients.
    access.by_caller(
        &caller,
        Action::ReadQuestionnaire,
        detail.clients.iter().map(|entry| entry.client_id),
        detail
            .clients
            .iter()
            .filter_map(|entry| entry.phone_call_id),
    );
    Ok(JsonResponse::ok(detail))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"position": 2, "prompt": "Did you sleep well?", "type": "yesno", "metadata": null}))]
struct QuestionBody {
    /// 1-based; at most one past the last question (a later position is 409).
    #[schema(required = true, nullable = false, minimum = 1)]
    position: Option<i32>,
    #[schema(required = true, nullable = false, inline)]
    prompt: Option<RequiredText<1000>>,
    /// The kind of answer the question expects (`yesno`, `text`, `scale`, ...).
    #[serde(rename = "type")]
    #[schema(required = true, nullable = false, inline)]
    kind: Option<RequiredText<50>>,
    /// Free text for the voice agent (choices, scale bounds), often JSON; when it is JSON,
    /// its strings are prose too.
    #[schema(inline)]
    metadata: Option<Metadata<10_000>>,
}

impl QuestionBody {
    fn question(self) -> Result<NewQuestion, ApiError> {
        let position = self
            .position
            .ok_or_else(|| "is required".to_string())
            .and_then(|p| {
                if p >= 1 {
                    Ok(p)
                } else {
                    Err("must be 1 or more".to_string())
                }
            })
            .map_err(|message| ApiError::field("position", message))?;
        let prompt = self
            .prompt
            .ok_or_else(|| ApiError::field("prompt", "is required"))?;
        let kind = self
            .kind
            .ok_or_else(|| ApiError::field("type", "is required"))?;
        Ok(NewQuestion {
            position,
            kind: kind.into_inner(),
            prompt: prompt.into_inner(),
            metadata: self.metadata.map(Metadata::into_inner),
        })
    }
}

/// Add a question to a questionnaire
///
/// Inserts a question at `position` (1-based, at most one past the last); the questions at
/// and after it move down by one, atomically. 201 with the question. Only an admin of the
/// organisation that owns the questionnaire may; templates are read-only.
#[utoipa::path(
    post, path = "/questionnaires/{id}/questions", tag = "questionnaires",
    params(("id" = i32, Path, minimum = 1, description = "The questionnaire.")),
    request_body = QuestionBody,
    responses(
        (status = 201, description = "The question as inserted.", body = Question,
            headers(("Location" = String, description = "The questionnaire the question belongs to."))),
        (status = 403, description = "The caller is not an admin, or the questionnaire is a shared template (read-only).", body = Problem),
        (status = 404, description = "No such questionnaire, or one of another organisation.", body = Problem),
        (status = 409, description = "The position is more than one past the last question, or the questionnaire is full.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn add_question(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    PathId(id): PathId,
    Json(body): Json<QuestionBody>,
) -> Result<Response, ApiError> {
    let question = body.question()?;
    let id = QuestionnaireId(id);
    if caller.role != Role::Admin {
        // A questionnaire staff cannot see answers as a missing one; one they can see, 403.
        return match state.questionnaires.questionnaire_owner(id).await? {
            Some(owner) if owner.visible_to(caller.organisation_id) => {
                Err(ApiError::Forbidden(ONLY_ADMINS))
            }
            _ => Err(ApiError::NotFound("questionnaire")),
        };
    }
    match state
        .questionnaires
        .add_question(QuestionAdd {
            questionnaire_id: id,
            editor: caller.organisation_id,
            question: &question,
        })
        .await?
    {
        AddQuestionOutcome::NoQuestionnaire => Err(ApiError::NotFound("questionnaire")),
        AddQuestionOutcome::Template => Err(ApiError::Forbidden(
            "Shared templates are read-only; questions are added to your organisation's own \
             questionnaires.",
        )),
        // The position is well-formed; only the questionnaire's current length rules it out.
        AddQuestionOutcome::PositionOutOfRange { max } => Err(ApiError::Conflict(format!(
            "position must be from 1 to {max} (one past the last question)."
        ))),
        AddQuestionOutcome::Full { max_questions } => Err(ApiError::Conflict(format!(
            "The questionnaire already has {max_questions} questions, the most it may hold."
        ))),
        AddQuestionOutcome::Added(added) => {
            // Questions are read through their questionnaire.
            let location = HeaderValue::from_str(&format!("/questionnaires/{}", id.get()))
                .map_err(ApiError::internal)?;
            let mut response = JsonResponse::ok(added)
                .with_status(StatusCode::CREATED)
                .into_response();
            response.headers_mut().insert(header::LOCATION, location);
            Ok(response)
        }
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "clientId": 1, "startDate": "2027-06-01T09:00:00Z",
    "interval": 2, "retries": 3, "intervalBackOffMultiplier": 1.5
}))]
struct StartBody {
    #[schema(required = true, nullable = false, minimum = 1)]
    client_id: Option<i32>,
    /// Redundant with the path: 0 or absent stand for the path's questionnaire, which is the
    /// only other value accepted.
    #[schema(minimum = 0, maximum = 0)]
    questionnaire_id: Option<i32>,
    /// The first try.
    #[schema(required = true, nullable = false, value_type = Option<String>, format = DateTime)]
    start_date: Option<Instant>,
    /// Days between tries, before back-off.
    #[schema(required = true, nullable = false, minimum = 0, maximum = 365)]
    interval: Option<i32>,
    /// Tries at most.
    #[schema(required = true, nullable = false, minimum = 1, maximum = 10)]
    retries: Option<i32>,
    /// After try n, the next waits `interval * multiplier^(n-1)` days.
    #[schema(required = true, nullable = false, minimum = 1.0, maximum = 10.0)]
    interval_back_off_multiplier: Option<f64>,
}

/// The body of a start: one schedule per client.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
struct StartBatch(Vec<StartBody>);

impl utoipa::PartialSchema for StartBatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ArrayBuilder::new()
            .items(utoipa::openapi::Ref::from_schema_name("StartBody"))
            .min_items(Some(1))
            .max_items(Some(MAX_START_ENTRIES))
            .into()
    }
}

impl utoipa::ToSchema for StartBatch {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        schemas.push(("StartBody".into(), StartBody::schema()));
    }
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    value: Option<T>,
    low: T,
    high: T,
) -> Result<T, String> {
    let value = required(value)?;
    if value >= low && value <= high {
        Ok(value)
    } else {
        Err(format!("must be from {low} to {high}"))
    }
}

/// How far in the past a first try may be: a batch prepared last week still starts, at once.
pub const START_AT_MOST_AGO: chrono::Duration = chrono::Duration::days(7);

/// How far ahead a first try may be: a yearly check-up planned well ahead, not a typo's
/// year 20260.
pub const START_AT_MOST_AHEAD: chrono::Duration = chrono::Duration::days(3 * 365);

/// `startDate` inside the window around `now`.
fn start_in_window(start: Option<Instant>, now: Timestamp) -> Result<Timestamp, String> {
    let start = required(start)?.get();
    let (earliest, latest) = (now - START_AT_MOST_AGO, now + START_AT_MOST_AHEAD);
    if start < earliest || start > latest {
        let write = |t: Timestamp| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        return Err(format!(
            "must be from {} to {} (at most 7 days ago and 3 years ahead)",
            write(earliest),
            write(latest)
        ));
    }
    Ok(start)
}

/// Checks the whole batch before anything is written; every failing field is reported with
/// its index (`[2].retries`).
fn new_entries(
    questionnaire_id: i32,
    body: Vec<StartBody>,
    now: Timestamp,
) -> Result<Vec<NewEntry>, ApiError> {
    if body.is_empty() || body.len() > MAX_START_ENTRIES {
        return Err(ApiError::field(
            "$",
            format!("must list 1 to {MAX_START_ENTRIES} clients"),
        ));
    }
    let mut validator = Validator::new();
    let mut seen = HashSet::new();
    let mut entries = Vec::with_capacity(body.len());
    for (i, start) in body.into_iter().enumerate() {
        let field = |name: &str| format!("[{i}].{name}");
        let client_id = validator.check(&field("clientId"), validate::id(start.client_id));
        // A client listed twice is started once, with its first listing's schedule (as an
        // import takes a national id listed twice once).
        if client_id.is_some_and(|id| !seen.insert(id)) {
            continue;
        }
        validator.check(
            &field("questionnaireId"),
            match start.questionnaire_id {
                None | Some(0) => Ok(()),
                Some(id) if id == questionnaire_id => Ok(()),
                Some(_) => Err(format!("must be {questionnaire_id} (the path's) or 0")),
            },
        );
        let start_date =
            validator.check(&field("startDate"), start_in_window(start.start_date, now));
        let interval = validator.check(&field("interval"), in_range(start.interval, 0, 365));
        let retries = validator.check(&field("retries"), in_range(start.retries, 1, 10));
        let multiplier = validator.check(
            &field("intervalBackOffMultiplier"),
            in_range(start.interval_back_off_multiplier, 1.0, 10.0),
        );
        if let (
            Some(client_id),
            Some(start_date),
            Some(interval),
            Some(retries),
            Some(multiplier),
        ) = (client_id, start_date, interval, retries, multiplier)
        {
            entries.push(NewEntry {
                client_id,
                start_date,
                schedule: Schedule {
                    interval,
                    retries,
                    multiplier,
                    attempts: 0,
                },
            });
        }
    }
    validator.finish()?;
    Ok(entries)
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartResult {
    pub created: Vec<QuestionnaireClientEntry>,
    pub already_scheduled: Vec<QuestionnaireClientEntry>,
}

/// Start a questionnaire for clients
///
/// Opens one entry per client (first try at `startDate`) unless the client already has an
/// open entry for this questionnaire; all in one transaction, or nothing.
#[utoipa::path(
    post, path = "/questionnaires/{id}/start-for-clients", tag = "questionnaires",
    params(("id" = i32, Path, minimum = 1, description = "The questionnaire to start.")),
    request_body(content = StartBatch, description = "1 to 100 clients of the caller's portal, each with its schedule. A client listed twice is started once, with its first listing."),
    responses(
        (status = 200, description = "The entries opened, and the clients that already had an open entry for this questionnaire.", body = StartResult),
        (status = 404, description = "No such questionnaire (or one of another organisation), or a client that is not the caller's portal's (nothing is started).", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn start_for_clients(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    Json(StartBatch(body)): Json<StartBatch>,
) -> Result<JsonResponse<StartResult>, ApiError> {
    let now = state.authenticator.clock.now();
    let entries = new_entries(id, body, now)?;
    match state
        .questionnaires
        .start_entries(EntriesStart {
            questionnaire_id: QuestionnaireId(id),
            portal_id: caller.portal_id,
            viewer: caller.organisation_id,
            entries: &entries,
            now,
        })
        .await?
    {
        StartOutcome::NoQuestionnaire => Err(ApiError::NotFound("questionnaire")),
        StartOutcome::UnknownClients(_) => Err(ApiError::NotFound("client")),
        StartOutcome::Started {
            created,
            already_scheduled,
        } => {
            access.by_caller(
                &caller,
                Action::StartQuestionnaire,
                created
                    .iter()
                    .chain(&already_scheduled)
                    .map(|entry| entry.client_id),
                [],
            );
            Ok(JsonResponse::ok(StartResult {
                created,
                already_scheduled,
            }))
        }
    }
}
