//! The alerts routes: a portal's alerts (questionnaire entries that ended without reaching their
//! client, calls whose triage found an emergency or a concern), one alert with its attempts or
//! the caller's words and whom the service notified, and acknowledging one with its outcome.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use shared::audit::AccessNote;
use shared::auth::Caller;
use shared::domain::{AckOutcome, Alert, AlertReason, AlertStatus};
use shared::error::{ApiError, Problem};
use shared::extract::{Json, JsonResponse, Paged, PathId};
use shared::ids::AlertId;
use shared::store::access_log::Action;
use shared::store::optimistic::{ROUNDS, Rounds};
use shared::store::{AlertFilter, StoredAlert};
use shared::validate::{self, Validator, required};

use crate::QuestionnairesState;

/// The longest page of alerts.
pub const MAX_PAGE: usize = 1000;
/// The longest acknowledgement note, in characters.
pub const MAX_NOTE: usize = 2000;

/// An alert as staff read it: the stored alert with its client's name.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertView {
    #[serde(flatten)]
    pub alert: Alert,
    /// `null` when the client was deleted since.
    pub client_name: Option<String>,
}

impl From<StoredAlert> for AlertView {
    fn from(stored: StoredAlert) -> Self {
        Self {
            alert: stored.alert,
            client_name: stored.client_name,
        }
    }
}

impl AlertView {
    /// The alert as a list shows it: without the caller's words, which only the alert's own
    /// page (one access-logged read of its call) shows.
    fn listed(stored: StoredAlert) -> Self {
        let mut view = Self::from(stored);
        view.alert.words = None;
        view
    }
}

/// The wire name of a reason, as the query and the `Link` header carry it.
fn reason_name(reason: AlertReason) -> &'static str {
    match reason {
        AlertReason::Exhausted => "exhausted",
        AlertReason::InvalidNumber => "invalid_number",
        AlertReason::Urgent => "urgent",
        AlertReason::Concern => "concern",
        AlertReason::Test => "test",
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct AlertQuery {
    /// `open` or `acknowledged`; without it, both.
    #[param(value_type = Option<AlertStatus>)]
    status: Option<String>,
    /// `urgent`, `concern`, `exhausted`, `invalid_number` or `test` (the daily alarm-chain
    /// tests); without it, every reason but `test`.
    #[param(value_type = Option<AlertReason>)]
    reason: Option<String>,
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<String>,
    /// Where the page starts: after the alert with this id (the last of the previous page, as
    /// the `Link` header gives it).
    #[param(value_type = Option<i32>, minimum = 0)]
    cursor: Option<String>,
}

struct AlertPageRequest {
    filter: AlertFilter,
    limit: Option<usize>,
    after: Option<AlertId>,
}

fn page_request(query: AlertQuery) -> Result<AlertPageRequest, ApiError> {
    let mut validator = Validator::new();
    let status = query.status.and_then(|status| {
        validator.check(
            "status",
            match status.as_str() {
                "open" => Ok(AlertStatus::Open),
                "acknowledged" => Ok(AlertStatus::Acknowledged),
                _ => Err("must be open or acknowledged".to_string()),
            },
        )
    });
    let reason = query.reason.and_then(|reason| {
        validator.check(
            "reason",
            [
                AlertReason::Urgent,
                AlertReason::Concern,
                AlertReason::Exhausted,
                AlertReason::InvalidNumber,
                AlertReason::Test,
            ]
            .into_iter()
            .find(|known| reason_name(*known) == reason)
            .ok_or_else(|| {
                "must be urgent, concern, exhausted, invalid_number or test".to_string()
            }),
        )
    });
    let limit = query
        .limit
        .and_then(|limit| validator.check("limit", validate::page_limit(&limit, MAX_PAGE)));
    let after = query
        .cursor
        .and_then(|cursor| validator.check("cursor", validate::id_cursor(&cursor, "an alert")));
    validator.finish()?;
    Ok(AlertPageRequest {
        filter: AlertFilter { status, reason },
        limit,
        after: after.map(AlertId),
    })
}

/// List the portal's alerts
///
/// The caller's portal's alerts by id (the oldest first: an open alert waits longest at the
/// top), optionally only `open` or `acknowledged` ones, or only those of one reason
/// (`?reason=urgent`). A list never shows the caller's words of a call's alert. With `?limit=N` one page, and a
/// `Link: <...>; rel="next"` header while more follow.
#[utoipa::path(
    get, path = "/alerts", tag = "alerts",
    params(AlertQuery),
    responses(
        (status = 200, description = "The alerts, by id. With `limit`, a `Link: <...>; rel=\"next\"` header names the next page while more follow.",
            body = Vec<AlertView>,
            headers(("Link" = String, description = "The next page, when `limit` was given and more alerts follow."))),
        (status = 400, description = "A query parameter is not one of the allowed values.", body = Problem),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list_alerts(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    query: Result<Query<AlertQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let request = page_request(query)?;
    let page = state
        .alerts
        .alerts(
            caller.portal_id,
            request.filter,
            request.after,
            request.limit,
        )
        .await?;
    access.by_caller(
        &caller,
        Action::ListAlerts,
        page.alerts.iter().map(|stored| stored.alert.client_id),
        [],
    );
    let alerts: Vec<AlertView> = page.alerts.into_iter().map(AlertView::listed).collect();
    let filters: Vec<(&str, String)> = [
        (
            "status",
            request.filter.status.map(|status| match status {
                AlertStatus::Open => "open".to_string(),
                AlertStatus::Acknowledged => "acknowledged".to_string(),
            }),
        ),
        (
            "reason",
            request
                .filter
                .reason
                .map(|reason| reason_name(reason).to_string()),
        ),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|value| (name, value)))
    .collect();
    let next = page.next.map(|after| after.to_string());
    Ok(Paged::new(alerts, "/alerts", request.limit, next, &filters).into_response())
}

/// One alert
///
/// The alert with its client, every attempt with its outcome (an entry's alert) or the call, its
/// category and the caller's words that raised it (a call's alert), where the escalation stands
/// and whom the service notified and when. Another portal's alert is 404, as a missing one.
#[utoipa::path(
    get, path = "/alerts/{id}", tag = "alerts",
    params(("id" = i32, Path, minimum = 1, description = "The alert.")),
    responses(
        (status = 200, description = "The alert.", body = AlertView),
        (status = 404, description = "No such alert in the caller's portal.", body = Problem),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_alert(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
) -> Result<JsonResponse<AlertView>, ApiError> {
    let stored = state
        .alerts
        .alert(caller.portal_id, AlertId(id))
        .await?
        .ok_or(ApiError::NotFound("alert"))?;
    access.by_caller(
        &caller,
        Action::ReadAlert,
        [stored.alert.client_id],
        stored.alert.phone_call_id,
    );
    Ok(JsonResponse::ok(stored.into()))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"note": "Called her daughter; Greta is fine, her phone was off.", "outcome": "already_handled"}))]
pub(crate) struct AcknowledgeBody {
    /// What was done about the alert: kept with it, as care records ask. For a `false_alarm`,
    /// why it was one.
    #[schema(
        required = true,
        nullable = false,
        min_length = 1,
        max_length = 2000,
        format = "prose"
    )]
    note: Option<String>,
    /// What was found: `helped`, `already_handled` or `false_alarm`. Required for an `urgent`
    /// alert, optional for the others.
    #[schema(value_type = Option<AckOutcome>)]
    outcome: Option<String>,
}

/// The acknowledgement's outcome as sent, if it is one of the three.
fn outcome(text: &str) -> Result<AckOutcome, String> {
    match text {
        "helped" => Ok(AckOutcome::Helped),
        "already_handled" => Ok(AckOutcome::AlreadyHandled),
        "false_alarm" => Ok(AckOutcome::FalseAlarm),
        _ => Err("must be helped, already_handled or false_alarm".into()),
    }
}

/// Acknowledge an alert
///
/// Stops the escalation: no more contacts are messaged. Records who acknowledged it, when, the
/// note and the outcome (required for an `urgent` alert). Once only: a second acknowledgement
/// is 409.
#[utoipa::path(
    post, path = "/alerts/{id}/acknowledge", tag = "alerts",
    params(("id" = i32, Path, minimum = 1, description = "The alert.")),
    request_body = AcknowledgeBody,
    responses(
        (status = 200, description = "The acknowledged alert.", body = AlertView),
        (status = 400, description = "The note is missing, blank, too long or holds control characters, or the outcome is unknown, or missing for an urgent alert.", body = Problem),
        (status = 404, description = "No such alert in the caller's portal.", body = Problem),
        (status = 409, description = "The alert was acknowledged already.", body = Problem),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn acknowledge_alert(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    Json(body): Json<AcknowledgeBody>,
) -> Result<JsonResponse<AlertView>, ApiError> {
    let mut validator = Validator::new();
    let note = validator.check(
        "note",
        required(body.note).and_then(|note| {
            validate::prose(&note, MAX_NOTE)?.ok_or_else(|| "must not be blank".to_string())
        }),
    );
    let outcome = body
        .outcome
        .and_then(|text| validator.check("outcome", outcome(&text)));
    validator.finish()?;
    let now = state.authenticator.clock.now();
    // A step the scheduler writes meanwhile changes the version: read again and decide again.
    let mut rounds = Rounds::new(ROUNDS, "the alert");
    loop {
        rounds.start().await?;
        let stored = state
            .alerts
            .alert(caller.portal_id, AlertId(id))
            .await?
            .ok_or(ApiError::NotFound("alert"))?;
        if stored.alert.status == AlertStatus::Acknowledged {
            return Err(ApiError::Conflict(format!(
                "Alert {id} was acknowledged already."
            )));
        }
        if stored.alert.reason == AlertReason::Urgent && outcome.is_none() {
            let mut validator = Validator::new();
            validator.check::<()>(
                "outcome",
                Err(
                    "is required for an urgent alert: helped, already_handled or false_alarm"
                        .into(),
                ),
            );
            validator.finish()?;
        }
        let acknowledged =
            stored
                .alert
                .acknowledged(caller.account_id.get(), note.clone(), outcome, now);
        if state
            .alerts
            .replace_alert(stored.version, &acknowledged)
            .await?
        {
            shared::metrics::alerts_acknowledged();
            shared::metrics::alert_acknowledgement_seconds(now - stored.alert.created_at);
            access.by_caller(
                &caller,
                Action::AcknowledgeAlert,
                [acknowledged.client_id],
                [],
            );
            return Ok(JsonResponse::ok(AlertView {
                alert: acknowledged,
                client_name: stored.client_name,
            }));
        }
    }
}
