//! The access log's request side: a handler notes what it did with clients' data, and the
//! layer writes that note, with the answer's status and the trace id, before the answer
//! leaves. A note that cannot be written turns the answer into a 503 problem: no client data
//! leaves unlogged (fail-closed). The same layer counts the distinct clients each account
//! opens in a period and refuses an account that goes over the portal's threshold (429).

use std::sync::{Arc, Mutex};

use axum::extract::{FromRequestParts, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::request::Parts;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::ids::PortalId;
use crate::records::Timestamp;
use crate::store::access_log::{Access, Accessor, Action};
use crate::store::reading::{Reading, ReadingRules};
use crate::store::{AccessLogWriter, ReadingWatch, StoreError};

/// What the layer needs: where records go, the time they are stamped with, and where each
/// account's reading is counted against which rules.
#[derive(Clone)]
pub struct AuditLog {
    pub log: Arc<dyn AccessLogWriter>,
    pub clock: Arc<dyn Clock>,
    pub reading: Arc<dyn ReadingWatch>,
    pub rules: ReadingRules,
}

impl AuditLog {
    /// Counts the clients an account's successful request opened; `Some` refusal when the
    /// account has opened more than the threshold in this period, this request included.
    async fn watch(
        &self,
        access: &Access,
        status: http::StatusCode,
        now: Timestamp,
    ) -> Result<Option<ApiError>, StoreError> {
        let Accessor::Account { account_id, .. } = access.accessor else {
            return Ok(None);
        };
        let client_ids: Vec<i32> = access
            .client_ids
            .iter()
            .copied()
            .filter(|id| *id > 0)
            .collect();
        if !status.is_success() || !access.action.opens_clients() || client_ids.is_empty() {
            return Ok(None);
        }
        let period = self.rules.period_at(now);
        let reading = Reading {
            portal_id: access.portal_id,
            account_id,
            period,
            client_ids,
            at: now,
        };
        let count = self
            .reading
            .note_reading(&reading, self.rules.clients)
            .await?;
        if count.crossed(self.rules.clients) {
            tracing::warn!(
                portal_id = access.portal_id.get(),
                account_id,
                clients = count.after,
                "an account went over the unusual-reading threshold; its reads are refused \
                 until the period ends"
            );
        }
        if count.after <= self.rules.clients {
            return Ok(None);
        }
        Ok(Some(ApiError::TooManyRequests {
            detail: format!(
                "This account has opened more than {} clients' records since {}; the portal's \
                 admins have been told. Reading resumes when the period ends.",
                self.rules.clients,
                period
                    .start
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
            retry_after_secs: u64::try_from((period.end - now).num_seconds().max(1)).unwrap_or(1),
        }))
    }
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
    let now = audit.clock.now();
    // The answer is withheld before its record is written, so the record says what left.
    let response = match audit.watch(&access, response.status(), now).await {
        Ok(None) => response,
        Ok(Some(refusal)) => refusal.into_response(),
        Err(error) => {
            tracing::error!(error = %error, "reading not counted; the answer is withheld");
            ApiError::Unavailable(error).into_response()
        }
    };
    let records = access.records(now, response.status().as_u16(), &crate::trace::current());
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

/// `logged` for routes that are all logged, with the state that carries their `AuditLog`.
pub fn logged_with_state<S>(router: axum::Router<S>, state: S) -> axum::Router
where
    S: Clone + Send + Sync + 'static,
    AuditLog: axum::extract::FromRef<S>,
{
    let audit = axum::extract::FromRef::from_ref(&state);
    logged(router, audit).with_state(state)
}
