//! The alerts routes: a portal's alerts (questionnaire entries that ended without reaching their
//! client, calls whose triage found an emergency or a concern), one alert with its attempts or
//! the caller's words and whom the service notified, and acknowledging one with its outcome.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use shared::audit::AccessNote;
use shared::auth::Caller;
use shared::domain::{AckOutcome, Alert, AlertReason, AlertStatus};
use shared::error::{ApiError, Problem, ReadingLimited};
use shared::extract::{Json, JsonResponse, Paged, PathId, Query};
use shared::ids::AlertId;
use shared::records::Role;
use shared::store::access_log::Action;
use shared::store::optimistic::{ROUNDS, Rounds};
use shared::store::{AlertFilter, AlertsRequest, PageRequest, StoredAlert};
use shared::validate;
use shared::wire::{IdCursor, PageLimit, RequiredProse};

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
        AlertReason::UnusualAccess => "unusual_access",
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct AlertQuery {
    /// `open` or `acknowledged`; without it, both.
    status: Option<AlertStatus>,
    /// `urgent`, `concern`, `exhausted`, `invalid_number`, `unusual_access` (admins only) or
    /// `test` (the daily alarm-chain tests); without it, every reason but `test`.
    reason: Option<AlertReason>,
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<PageLimit<MAX_PAGE>>,
    /// Where the page starts: after the alert with this id (the last of the previous page, as
    /// the `Link` header gives it).
    #[param(value_type = Option<i32>, minimum = 0)]
    cursor: Option<IdCursor>,
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
    Query(query): Query<AlertQuery>,
) -> Result<Response, ApiError> {
    let filter = AlertFilter {
        status: query.status,
        reason: query.reason,
        admin: caller.role == Role::Admin,
    };
    let limit = query.limit.map(PageLimit::get);
    let request = AlertsRequest {
        filter,
        page: PageRequest {
            after: query.cursor.map(|after| AlertId(after.get())),
            limit,
        },
    };
    let page = state.alerts.alerts(caller.portal_id, request).await?;
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
            filter.status.map(|status| match status {
                AlertStatus::Open => "open".to_string(),
                AlertStatus::Acknowledged => "acknowledged".to_string(),
            }),
        ),
        (
            "reason",
            filter.reason.map(|reason| reason_name(reason).to_string()),
        ),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|value| (name, value)))
    .collect();
    let next = page.next.map(|after| after.to_string());
    Ok(Paged::new(alerts, "/alerts", limit, next, &filters).into_response())
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
        ReadingLimited,
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get_alert(
    State(state): State<QuestionnairesState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
) -> Result<JsonResponse<AlertView>, ApiError> {
    let stored = visible_alert(&state, &caller, id).await?;
    access.by_caller(
        &caller,
        Action::ReadAlert,
        [stored.alert.client_id],
        stored.alert.phone_call_id,
    );
    Ok(JsonResponse::ok(stored.into()))
}

/// The caller's portal's alert `id`, if the caller may see it: an alert about an account is
/// its admins' only, and answers staff as a missing one.
async fn visible_alert(
    state: &QuestionnairesState,
    caller: &Caller,
    id: i32,
) -> Result<StoredAlert, ApiError> {
    state
        .alerts
        .alert(caller.portal_id, AlertId(id))
        .await?
        .filter(|stored| caller.role == Role::Admin || !stored.alert.is_for_admins())
        .ok_or(ApiError::NotFound("alert"))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"note": "Called her daughter; Greta is fine, her phone was off.", "outcome": "already_handled"}))]
pub(crate) struct AcknowledgeBody {
    /// What was done about the alert: kept with it, as care records ask. For a `false_alarm`,
    /// why it was one.
    #[schema(inline, required = true, nullable = false)]
    note: Option<RequiredProse<{ MAX_NOTE }>>,
    /// What was found: `helped`, `already_handled` or `false_alarm`. Required for an `urgent`
    /// alert, optional for the others.
    outcome: Option<AckOutcome>,
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
        ReadingLimited,
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
    let note = validate::required(body.note)
        .map(|note| Some(note.into_inner()))
        .map_err(|message| ApiError::field("note", message))?;
    let outcome = body.outcome;
    let now = state.authenticator.clock.now();
    // A step the scheduler writes meanwhile changes the version: read again and decide again.
    let mut rounds = Rounds::new(ROUNDS, "the alert");
    loop {
        rounds.start().await?;
        let stored = visible_alert(&state, &caller, id).await?;
        if stored.alert.status == AlertStatus::Acknowledged {
            return Err(ApiError::Conflict(format!(
                "Alert {id} was acknowledged already."
            )));
        }
        if stored.alert.reason == AlertReason::Urgent && outcome.is_none() {
            return Err(ApiError::field(
                "outcome",
                "is required for an urgent alert: helped, already_handled or false_alarm",
            ));
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
