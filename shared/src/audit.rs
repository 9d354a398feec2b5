//! The access log's request side: a handler notes what it did with clients' data, and the
//! layer writes that note, with the answer's status and the trace id, before the answer
//! leaves. A note that cannot be written turns the answer into a 503 problem: no client data
//! leaves unlogged (fail-closed).

use std::sync::{Arc, Mutex};

use axum::extract::{FromRequestParts, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::request::Parts;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::ids::PortalId;
use crate::store::AccessLogWriter;
use crate::store::access_log::{Access, Accessor, Action};

/// What the layer needs: where records go, and the time they are stamped with.
#[derive(Clone)]
pub struct AuditLog {
    pub log: Arc<dyn AccessLogWriter>,
    pub clock: Arc<dyn Clock>,
}

/// A handler's note of its access, shared with the layer that writes it.
#[derive(Clone, Default)]
pub struct AccessNote(Arc<Mutex<Option<Access>>>);

impl AccessNote {
    /// Notes the access this request makes; a second note replaces the first (a handler
    /// notes once, when it knows which clients its answer shows).
    pub fn record(
        &self,
        portal_id: PortalId,
        accessor: Accessor,
        action: Action,
        client_ids: impl IntoIterator<Item = i32>,
        call_ids: impl IntoIterator<Item = i32>,
    ) {
        let access = Access {
            portal_id,
            accessor,
            action,
            client_ids: client_ids.into_iter().collect(),
            call_ids: call_ids.into_iter().collect(),
        };
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(access);
    }

    /// Notes an access by a signed-in caller, in the caller's portal.
    pub fn by_caller(
        &self,
        caller: &crate::auth::Caller,
        action: Action,
        client_ids: impl IntoIterator<Item = i32>,
        call_ids: impl IntoIterator<Item = i32>,
    ) {
        self.record(
            caller.portal_id,
            Accessor::of(caller),
            action,
            client_ids,
            call_ids,
        );
    }

    fn take(&self) -> Option<Access> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for AccessNote {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<AccessNote>()
            .cloned()
            .ok_or_else(|| ApiError::internal("route has no access-log layer"))
    }
}

/// Middleware of every route that touches clients' data: gives the handler a note, and
/// appends what it noted once the answer is known. Nothing noted, nothing written (a 404 of
/// a missing record shows nobody's data).
pub async fn layer(State(audit): State<AuditLog>, mut request: Request, next: Next) -> Response {
    let note = AccessNote::default();
    request.extensions_mut().insert(note.clone());
    let response = next.run(request).await;
    let Some(access) = note.take() else {
        return response;
    };
    let records = access.records(
        audit.clock.now(),
        response.status().as_u16(),
        &crate::trace::current(),
    );
    match append(audit.log.as_ref(), &records).await {
        Ok(()) => response,
        Err(error) => {
            tracing::error!(error = %error, "access record not written; the answer is withheld");
            ApiError::Unavailable(error).into_response()
        }
    }
}

/// Appends an access's records, counted in the business metrics as written or failed: every
/// writer of the access log goes through here.
pub async fn append(
    log: &dyn AccessLogWriter,
    records: &[crate::store::access_log::AccessRecord],
) -> crate::store::StoreResult<()> {
    let appended = log.append(records).await;
    match appended {
        Ok(()) => crate::metrics::access_records_written(records.len()),
        Err(_) => crate::metrics::access_records_failed(records.len()),
    }
    appended
}

/// Adds the access-log layer to a function's routes (only the matched ones: an unknown route
/// or method touches no data).
pub fn logged<S: Clone + Send + Sync + 'static>(
    router: axum::Router<S>,
    audit: AuditLog,
) -> axum::Router<S> {
    router.route_layer(axum::middleware::from_fn_with_state(audit, layer))
}
