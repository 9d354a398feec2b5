//! The access-log endpoints, for a portal's admins: a client's log extract (Patient Data Act
//! ch. 8 § 5), the portal's log filtered by time, account and client, and its documented
//! reviews. Staff get 403; every request here is itself logged.

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use http::StatusCode;
use serde::{Deserialize, Serialize};

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::error::{ApiError, NotAdmin, Problem, ReadingLimited};
use shared::extract::{Json, JsonResponse, Paged, PathId, Query};
use shared::ids::ClientId;
use shared::records::Role;
use shared::runtime::Services;
use shared::store::access_log::{
    AccessRecord, Accessor, Action, LogQuery, Outcome, Page, Review, sort_time,
};
use shared::store::{AccessLogReader, ClientStore, Narrow, SessionReader};
use shared::wire::{IdParam, Instant, LogCursor, PageLimit, RequiredProse};

/// The largest page a client may ask for.
pub const MAX_PAGE: usize = 1000;
/// The largest sample one review draws.
pub const MAX_SAMPLE: u32 = 100;
/// A review's conclusion: prose of at most 4,000 characters (utoipa's derive reads a literal
/// bound only).
type Conclusion = RequiredProse<4000>;

const ADMINS_ONLY: &str = "Only an admin of the portal may read its access log.";

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(client_extract, portal_log, record_review, list_reviews))]
pub struct ApiDoc;

#[derive(Clone, FromRef)]
pub struct AccessLogState {
    pub log: Arc<dyn AccessLogReader>,
    pub clients: Arc<dyn ClientStore>,
    pub authenticator: Authenticator,
    pub audit: AuditLog,
}

impl AccessLogState {
    pub fn new<S>(services: &Services<S>) -> Self
    where
        S: ?Sized
            + Narrow<dyn AccessLogReader>
            + Narrow<dyn ClientStore>
            + Narrow<dyn SessionReader>,
    {
        Self {
            log: services.store(),
            clients: services.store(),
            authenticator: services.authenticator(),
            audit: services.audit(),
        }
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: AccessLogState) -> Router {
    let routes = Router::new()
        .route("/access-log", get(portal_log))
        .route("/access-log/clients/{id}", get(client_extract))
        .route("/access-log/reviews", get(list_reviews).post(record_review));
    shared::audit::logged_with_state(routes, state)
}

/// Lets admins through; anyone else's attempt is noted as a denial (with the client, when it
/// is one of the caller's portal's) and answered 403.
fn admin_only(
    caller: &Caller,
    access: &AccessNote,
    action: Action,
    clients: &[i32],
) -> Result<(), ApiError> {
    if caller.role == Role::Admin {
        return Ok(());
    }
    access.by_caller(caller, action, clients.iter().copied(), []);
    Err(ApiError::Forbidden(ADMINS_ONLY))
}

/// `limit` and `cursor`, as every list here takes them.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PageParams {
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<PageLimit<MAX_PAGE>>,
    /// Where the page starts, as the `Link` header of the previous page gives it.
    #[param(value_type = Option<Cursor>, inline)]
    cursor: Option<LogCursor>,
}

/// The filters of `GET /access-log`, with paging.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LogParams {
    /// Records at or after this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    from: Option<Instant>,
    /// Records before this time (RFC 3339); after `from` when both are given.
    #[param(value_type = Option<String>, format = DateTime)]
    to: Option<Instant>,
    /// Only this account's accesses.
    #[param(value_type = Option<i32>, minimum = 1)]
    account_id: Option<IdParam>,
    /// Only accesses to this client; each record then lists only this client.
    #[param(value_type = Option<i32>, minimum = 1)]
    client_id: Option<IdParam>,
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<PageLimit<MAX_PAGE>>,
    /// Where the page starts, as the `Link` header of the previous page gives it.
    #[param(value_type = Option<Cursor>, inline)]
    cursor: Option<LogCursor>,
}

/// Where a page starts: the id of the last record (`time#trace#part`) or review (`time#uuid`)
/// of the previous page, as its `Link` header gives it. A schema only: the query carries the
/// cursor as text, and `parse_cursor` checks it.
struct Cursor;

impl utoipa::PartialSchema for Cursor {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(shared::openapi::LOG_CURSOR))
            .examples(["2026-11-23T09:15:02.123456Z#JTHoQiSfIAMEM9w=#0"])
            .into()
    }
}

impl utoipa::ToSchema for Cursor {}

/// The page's answer: the items, and a `Link` to the next page (with the same filters).
fn paged<T: Serialize>(
    page: Page<T>,
    limit: Option<usize>,
    path: &str,
    filters: &[(&str, String)],
) -> Result<Response, ApiError> {
    Ok(Paged::new(page.items, path, limit, page.next, filters).into_response())
}

/// `limit` and `cursor` as every list here checks them: the page size and the id to start
/// after.
fn page_params(params: PageParams) -> LogQuery {
    LogQuery {
        limit: params.limit.map(PageLimit::get),
        before: params.cursor.map(LogCursor::into_inner),
        ..LogQuery::default()
    }
}

/// `to` after `from`, when both are given.
fn ordered(from: Option<Instant>, to: Option<Instant>) -> Result<(), ApiError> {
    match (from, to) {
        (Some(from), Some(to)) if from >= to => Err(ApiError::field("to", "must be after from")),
        _ => Ok(()),
    }
}

/// One access to a client, as the client may see it: when, in which portal (unit), what, and
/// by whom.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "at": "2026-11-23T09:15:02.123456Z", "portalId": 1, "action": "call.read",
    "accessor": {"kind": "account", "accountId": 1, "name": "Karin Berg"}, "outcome": "allowed"
}))]
pub struct ClientAccess {
    pub at: DateTime<Utc>,
    pub portal_id: i32,
    pub action: Action,
    pub accessor: Accessor,
    pub outcome: Outcome,
}

impl From<AccessRecord> for ClientAccess {
    fn from(record: AccessRecord) -> Self {
        Self {
            at: record.at,
            portal_id: record.portal_id,
            action: record.action,
            accessor: record.accessor,
            outcome: record.outcome,
        }
    }
}

/// A client's access extract
///
/// Every access to a client of the caller's portal, from any portal of the organisation,
/// newest first: the extract a client may ask for.
///
/// Admins of the portal.
#[utoipa::path(
    get, path = "/access-log/clients/{id}", tag = "access log",
    params(("id" = i32, Path, minimum = 1, description = "The client."), PageParams),
    responses(
        (status = 200, description = "The client's accesses, newest first. With `limit`, a `Link: <...>; rel=\"next\"` header names the next page while more follow.",
            body = Vec<ClientAccess>,
            headers(("Link" = String, description = "The next page, when `limit` was given and more accesses follow."))),
        NotAdmin,
        (status = 404, description = "No client with this id in the caller's portal.", body = Problem),
        ReadingLimited,
    ),
    security(("bearer" = []))
)]
async fn client_extract(
    State(state): State<AccessLogState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    Query(params): Query<PageParams>,
) -> Result<Response, ApiError> {
    let query = page_params(params);
    let exists = state
        .clients
        .has_client(caller.portal_id, ClientId(id))
        .await?;
    let known: &[i32] = if exists { &[id] } else { &[] };
    admin_only(&caller, &access, Action::ReadClientLog, known)?;
    if !exists {
        return Err(ApiError::NotFound("client"));
    }
    let page = state.log.client_log(ClientId(id), None, &query).await?;
    access.by_caller(&caller, Action::ReadClientLog, [id], []);
    let page = Page {
        items: page.items.into_iter().map(ClientAccess::from).collect(),
        next: page.next,
    };
    paged(page, query.limit, &format!("/access-log/clients/{id}"), &[])
}

/// The portal's access log
///
/// The accesses made in the caller's portal, newest first, by time, account and client.
///
/// Admins of the portal; staff get 403, and the attempt is itself recorded. Pages with
/// `?limit=N` and a `Link` header.
#[utoipa::path(
    get, path = "/access-log", tag = "access log",
    params(LogParams),
    responses(
        (status = 200, description = "The portal's access records, newest first. With `limit`, a `Link: <...>; rel=\"next\"` header names the next page (same filters) while more follow.",
            body = Vec<AccessRecord>,
            headers(("Link" = String, description = "The next page, when `limit` was given and more records follow."))),
        NotAdmin,
    ),
    security(("bearer" = []))
)]
async fn portal_log(
    State(state): State<AccessLogState>,
    caller: Caller,
    access: AccessNote,
    Query(params): Query<LogParams>,
) -> Result<Response, ApiError> {
    ordered(params.from, params.to)?;
    let (from, to) = (params.from.map(Instant::get), params.to.map(Instant::get));
    let account_id = params.account_id.map(IdParam::get);
    let client_id = params.client_id.map(IdParam::get);
    let limit = params.limit.map(PageLimit::get);
    let before = params.cursor.map(LogCursor::into_inner);
    // The filter's client is recorded only when it is the caller's portal's: anyone may type
    // any id, and must not put entries into another organisation's client's extract.
    let clients: Vec<i32> = match client_id {
        Some(client)
            if state
                .clients
                .has_client(caller.portal_id, ClientId(client))
                .await? =>
        {
            vec![client]
        }
        _ => Vec::new(),
    };
    admin_only(&caller, &access, Action::ReadLog, &clients)?;
    let query = LogQuery {
        from,
        to,
        account_id,
        before,
        limit,
    };
    let page = match client_id {
        Some(client) => {
            state
                .log
                .client_log(ClientId(client), Some(caller.portal_id), &query)
                .await?
        }
        None => state.log.portal_log(caller.portal_id, &query).await?,
    };
    access.by_caller(&caller, Action::ReadLog, clients, []);
    let filters: Vec<(&str, String)> = [
        ("from", from.map(sort_time)),
        ("to", to.map(sort_time)),
        ("accountId", account_id.map(|id| id.to_string())),
        ("clientId", client_id.map(|id| id.to_string())),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|value| (name, value)))
    .collect();
    paged(page, limit, "/access-log", &filters)
}

/// `POST /access-log/reviews`: the period reviewed, how many records to draw, and what the
/// reviewer concluded.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "from": "2026-11-01T00:00:00Z", "to": "2026-12-01T00:00:00Z", "sampleSize": 20,
    "conclusion": "Every sampled access was made in the course of care."
}))]
struct ReviewRequest {
    #[schema(required = true, nullable = false, value_type = Option<String>, format = DateTime)]
    from: Option<Instant>,
    /// After `from`.
    #[schema(required = true, nullable = false, value_type = Option<String>, format = DateTime)]
    to: Option<Instant>,
    #[schema(required = true, nullable = false, minimum = 1, maximum = 100)]
    sample_size: Option<u32>,
    #[schema(required = true, nullable = false, inline)]
    conclusion: Option<Conclusion>,
}

/// A review as recorded, with the records it drew.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordedReview {
    #[serde(flatten)]
    pub review: Review,
    /// The drawn records, by id.
    pub records: Vec<AccessRecord>,
}

/// Record a review of the access log
///
/// Records a review of the portal's log: draws `sampleSize` records at random from
/// `[from, to)` (all of them when there are fewer) and keeps which were drawn, by whom, and
/// the conclusion.
///
/// Admins of the portal.
#[utoipa::path(
    post, path = "/access-log/reviews", tag = "access log",
    request_body = ReviewRequest,
    responses(
        (status = 201, description = "The review as recorded, with the drawn records.", body = RecordedReview),
        NotAdmin,
    ),
    security(("bearer" = []))
)]
async fn record_review(
    State(state): State<AccessLogState>,
    caller: Caller,
    access: AccessNote,
    Json(body): Json<ReviewRequest>,
) -> Result<Response, ApiError> {
    let required = |field: &str| ApiError::field(field, "is required");
    let from = body.from.ok_or_else(|| required("from"))?;
    let to = body.to.ok_or_else(|| required("to"))?;
    ordered(Some(from), Some(to))?;
    let (from, to) = (from.get(), to.get());
    let sample_size = body
        .sample_size
        .filter(|size| (1..=MAX_SAMPLE).contains(size))
        .ok_or_else(|| {
            ApiError::field(
                "sampleSize",
                format!("must be an integer from 1 to {MAX_SAMPLE}"),
            )
        })?;
    let conclusion = body
        .conclusion
        .map(Conclusion::into_inner)
        .ok_or_else(|| ApiError::field("conclusion", "is required"))?;
    admin_only(&caller, &access, Action::RecordReview, &[])?;
    let population = state.log.record_ids(caller.portal_id, from, to).await?;
    let mut drawn: Vec<String> = rand::seq::index::sample(
        &mut rand::rng(),
        population.len(),
        (sample_size as usize).min(population.len()),
    )
    .into_iter()
    .map(|i| population[i].clone())
    .collect();
    drawn.sort();
    let records = state.log.records(caller.portal_id, &drawn).await?;
    let now = state.authenticator.clock.now();
    let review = Review {
        id: format!("{}#{}", sort_time(now), uuid::Uuid::new_v4()),
        at: now,
        portal_id: caller.portal_id.get(),
        reviewer: Accessor::of(&caller),
        from,
        to,
        sample_size,
        population: u32::try_from(population.len()).unwrap_or(u32::MAX),
        drawn,
        conclusion,
    };
    state.log.add_review(&review).await?;
    access.by_caller(&caller, Action::RecordReview, [], []);
    Ok(JsonResponse::ok(RecordedReview { review, records })
        .with_status(StatusCode::CREATED)
        .into_response())
}

/// The portal's access-log reviews
///
/// The portal's recorded reviews, newest first.
///
/// Admins of the portal.
#[utoipa::path(
    get, path = "/access-log/reviews", tag = "access log",
    params(PageParams),
    responses(
        (status = 200, description = "The reviews, newest first. With `limit`, a `Link: <...>; rel=\"next\"` header names the next page while more follow.",
            body = Vec<Review>,
            headers(("Link" = String, description = "The next page, when `limit` was given and more reviews follow."))),
        NotAdmin,
    ),
    security(("bearer" = []))
)]
async fn list_reviews(
    State(state): State<AccessLogState>,
    caller: Caller,
    access: AccessNote,
    Query(params): Query<PageParams>,
) -> Result<Response, ApiError> {
    let query = page_params(params);
    admin_only(&caller, &access, Action::ReadReviews, &[])?;
    let page = state.log.reviews(caller.portal_id, &query).await?;
    access.by_caller(&caller, Action::ReadReviews, [], []);
    paged(page, query.limit, "/access-log/reviews", &[])
}

#[cfg(test)]
mod tests;
