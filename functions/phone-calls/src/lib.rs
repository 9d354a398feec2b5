//! The phone-call endpoints: a call with its transcript and connected calls, and the client
//! requests raised in a call, both limited to the caller's portal.

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::routing::get;
use http::HeaderMap;

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::error::{ApiError, Problem, ReadingLimited};
use shared::extract::{JsonFlavour, JsonResponse, PathId};
use shared::ids::CallId;
use shared::records::{ClientRequest, PhoneCall};
use shared::runtime::Services;
use shared::store::access_log::Action;
use shared::store::{Narrow, PhoneCallReader, SessionReader};

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(get_call, get_requests))]
pub struct ApiDoc;

#[derive(Clone, FromRef)]
pub struct PhoneCallsState {
    pub calls: Arc<dyn PhoneCallReader>,
    pub authenticator: Authenticator,
    pub audit: AuditLog,
}

impl PhoneCallsState {
    pub fn new<S>(services: &Services<S>) -> Self
    where
        S: ?Sized + Narrow<dyn PhoneCallReader> + Narrow<dyn SessionReader>,
    {
        Self {
            calls: services.store(),
            authenticator: services.authenticator(),
            audit: services.audit(),
        }
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: PhoneCallsState) -> Router {
    let routes = Router::new()
        .route("/phone-calls/{id}", get(get_call))
        .route("/phone-calls/{id}/requests", get(get_requests));
    shared::audit::logged_with_state(routes, state)
}

/// A call with its connected calls
///
/// The call first, then the calls connected to it, each with its transcript. A call of another
/// portal answers exactly like a missing one; connected calls of another portal are left out.
#[utoipa::path(
    get, path = "/phone-calls/{id}", tag = "phone calls",
    params(("id" = i32, Path, minimum = 1, description = "The phone call.")),
    responses(
        (status = 200, description = "The call, then the calls connected to it by `startDate`, each with its transcript by `createdAt`, then `id`. Labelled with the media type `Accept` asks for.",
            content(
                (Vec<PhoneCall> = "application/json"),
                (Vec<PhoneCall> = "text/json"),
                (Vec<PhoneCall> = "text/plain"),
            )),
        (status = 404, description = "No call with this id in the caller's portal.", body = Problem),
        ReadingLimited,
        (status = 406, description = "`Accept` allows none of application/json, text/json, text/plain.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn get_call(
    State(state): State<PhoneCallsState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<JsonResponse<Vec<PhoneCall>>, ApiError> {
    let flavour = JsonFlavour::negotiate(&headers)?;
    let thread = state
        .calls
        .call_with_connected(CallId(id))
        .await?
        .filter(|thread| thread[0].portal_id == caller.portal_id)
        .ok_or(ApiError::NotFound("phone call"))?;
    let visible: Vec<PhoneCall> = thread
        .into_iter()
        .filter(|call| call.portal_id == caller.portal_id)
        .collect();
    access.by_caller(
        &caller,
        Action::ReadCall,
        visible.iter().map(|call| call.client_id),
        visible.iter().map(|call| call.id),
    );
    Ok(JsonResponse::ok(visible).negotiated(flavour))
}

/// The requests raised in a call
///
/// The client requests raised in a call of the caller's portal, by id.
#[utoipa::path(
    get, path = "/phone-calls/{id}/requests", tag = "phone calls",
    params(("id" = i32, Path, minimum = 1, description = "The phone call.")),
    responses(
        (status = 200, description = "The call's client requests.",
            content(
                (Vec<ClientRequest> = "application/json"),
                (Vec<ClientRequest> = "text/json"),
                (Vec<ClientRequest> = "text/plain"),
            )),
        (status = 404, description = "No call with this id in the caller's portal.", body = Problem),
        ReadingLimited,
        (status = 406, description = "`Accept` allows none of application/json, text/json, text/plain.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn get_requests(
    State(state): State<PhoneCallsState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    headers: HeaderMap,
) -> Result<JsonResponse<Vec<ClientRequest>>, ApiError> {
    let flavour = JsonFlavour::negotiate(&headers)?;
    let (call, requests) = state
        .calls
        .call_requests(CallId(id))
        .await?
        .filter(|(call, _)| call.portal_id == caller.portal_id)
        .ok_or(ApiError::NotFound("phone call"))?;
    let visible: Vec<ClientRequest> = requests
        .into_iter()
        .filter(|request| request.portal_id == caller.portal_id)
        .collect();
    access.by_caller(
        &caller,
        Action::ReadCallRequests,
        std::iter::once(call.client_id).chain(visible.iter().map(|request| request.client_id)),
        [call.id],
    );
    Ok(JsonResponse::ok(visible).negotiated(flavour))
}
