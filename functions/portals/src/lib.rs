//! The portal endpoints: reading the caller's own portal, and the anonymous client import an
//! external integration authorises with its portal's secret (DESIGN.md section 4).

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::routing::{get, post};
use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{self, Authenticator, Caller};
use shared::domain::{SourcedBudget, SourcedEvent};
use shared::error::{ApiError, Problem};
use shared::extract::{Json, JsonResponse, PathId};
use shared::ids::PortalId;
use shared::national_id;
use shared::records::Portal;
use shared::runtime::{Platform, Services};
use shared::source::SourceNetwork;
use shared::store::access_log::{Accessor, Action};
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{ImportGuard, ImportGuardSave, Imported, Narrow, PortalStore, SessionReader};

/// The import body limit of DESIGN.md section 3: 1000 ids fit with room to spare.
pub const IMPORT_BODY_LIMIT: usize = 1024 * 1024;
pub const MAX_IMPORT_IDS: usize = 1000;

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(get_portal, import_clients))]
pub struct ApiDoc;

/// Failed import attempts allowed within 15 minutes: 10 from one source network, an IPv4
/// address or an IPv6 /64 (a stranger locks out only their own network), 100 from all networks
/// together (what stops an attack spread over many networks); then 429.
pub const IMPORT_FAILURES: SourcedBudget = SourcedBudget {
    per_source: 10,
    total: 100,
    window: TimeDelta::minutes(15),
};

#[derive(Clone, FromRef)]
pub struct PortalsState {
    pub portals: Arc<dyn PortalStore>,
    pub authenticator: Authenticator,
    /// The master secret every portal's import secret is derived from.
    pub import_master: Arc<[u8]>,
    pub rules: SourcedBudget,
    pub audit: AuditLog,
}

impl PortalsState {
    pub fn new<S>(services: &Services<S>, import_master: Arc<[u8]>) -> Self
    where
        S: ?Sized + Narrow<dyn PortalStore> + Narrow<dyn SessionReader>,
    {
        Self {
            portals: services.store(),
            authenticator: services.authenticator(),
            import_master,
            rules: IMPORT_FAILURES,
            audit: services.audit(),
        }
    }

    /// The state on Lambda: the import master secret from the environment or Secrets Manager.
    pub async fn for_lambda(platform: &Platform) -> Result<Self, shared::store::BoxError> {
        let master = platform
            .secret("IMPORT_SECRET", "IMPORT_SECRET_ARN")
            .await?;
        Ok(Self::new(&platform.services, master.into()))
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: PortalsState) -> Router {
    let audit = state.audit.clone();
    let client_data = Router::new().route("/portals/import-clients", post(import_clients));
    shared::audit::logged(client_data, audit)
        .route("/portals/{id}", get(get_portal))
        .with_state(state)
}

/// The caller's portal
///
/// The caller's own portal. Any other id is 403 without a read, whether or not such a portal
/// exists, so the answer never tells which portal ids are taken.
#[utoipa::path(
    get, path = "/portals/{id}", tag = "portals",
    params(("id" = i32, Path, minimum = 1, description = "The portal.")),
    responses(
        (status = 200, description = "The caller's portal.", body = Portal),
        (status = 403, description = "Any id but the caller's own portal, taken or not.", body = Problem),
        (status = 404, description = "The caller's own portal no longer exists.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn get_portal(
    State(state): State<PortalsState>,
    caller: Caller,
    PathId(id): PathId,
) -> Result<JsonResponse<Portal>, ApiError> {
    if id != caller.portal_id {
        return Err(ApiError::Forbidden("Only your own portal can be read."));
    }
    state
        .portals
        .portal(PortalId(id))
        .await?
        .map(JsonResponse::ok)
        .ok_or(ApiError::NotFound("portal"))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "portalId": 1,
    "secret": "<the portal's import secret>",
    "ssNs": ["19121212-1212", "19380412-2384"]
}))]
struct ImportRequest {
    /// National identity numbers: Swedish personnummer or samordningsnummer (10 or 12 digits,
    /// dashes and spaces ignored, `+` for centenarians), or another id of 6 to 20 letters and
    /// digits. Those that are neither come back in `invalid`.
    #[schema(max_items = 1000)]
    ss_ns: Vec<String>,
    #[schema(minimum = 1)]
    portal_id: i32,
    /// The portal's import secret.
    secret: String,
}

#[derive(Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportedClient {
    pub client_id: i32,
    pub national_id: String,
}

#[derive(Debug, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvalidNationalId {
    pub national_id: String,
    pub reason: String,
}

#[derive(Debug, Serialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "created": [{"clientId": 10, "nationalId": "191212121212"}],
    "existing": [{"clientId": 1, "nationalId": "193804122384"}],
    "invalid": [{"nationalId": "12", "reason": "national id is neither a Swedish personnummer nor 6 to 20 letters or digits"}]
}))]
pub struct ImportResult {
    pub created: Vec<ImportedClient>,
    pub existing: Vec<ImportedClient>,
    pub invalid: Vec<InvalidNationalId>,
}

/// Import clients (anonymous, authorised by the portal's secret)
///
/// Creates a client per national id the portal does not have yet. The secret is checked before
/// anything else is looked at, failures count against the portal, and every refusal (wrong
/// secret, another portal's secret, unknown portal) is the same 401.
#[utoipa::path(
    post, path = "/portals/import-clients", tag = "portals",
    request_body = ImportRequest,
    responses(
        (status = 200, description = "Each national id, normalised, as created, already a client, or invalid.", body = ImportResult),
        (status = 401, description = "The secret is wrong or the portal does not exist (one answer for both).", body = Problem),
        (status = 429, description = "Ten failed attempts from this network (an IPv4 address or an IPv6 /64) for this portal in 15 minutes, or a hundred from all networks.", body = Problem),
    )
)]
async fn import_clients(
    State(state): State<PortalsState>,
    source: SourceNetwork,
    access: AccessNote,
    Json(request): Json<ImportRequest, IMPORT_BODY_LIMIT>,
) -> Result<JsonResponse<ImportResult>, ApiError> {
    if request.portal_id <= 0 {
        return Err(ApiError::field(
            "portalId",
            "must be an integer between 1 and 2147483647",
        ));
    }
    if request.ss_ns.len() > MAX_IMPORT_IDS {
        return Err(ApiError::field(
            "ssNs",
            format!("must hold at most {MAX_IMPORT_IDS} national ids per request"),
        ));
    }
    let portal_id = request.portal_id;
    authorise(&state, portal_id, &request.secret, &source).await?;

    let today = state.authenticator.clock.now().date_naive();
    let mut result = ImportResult::default();
    let mut national_ids: Vec<String> = Vec::with_capacity(request.ss_ns.len());
    for raw in request.ss_ns {
        match national_id::normalise(&raw, today) {
            // The same person twice in one request is imported once.
            Ok(id) if national_ids.contains(&id) => {}
            Ok(id) => national_ids.push(id),
            Err(reason) => result.invalid.push(InvalidNationalId {
                national_id: raw,
                reason: format!("national id {reason}"),
            }),
        }
    }
    for imported in state
        .portals
        .import_clients(PortalId(portal_id), &national_ids)
        .await?
    {
        match imported {
            Imported::Created {
                client_id,
                national_id,
            } => result.created.push(ImportedClient {
                client_id,
                national_id,
            }),
            Imported::Existing {
                client_id,
                national_id,
            } => result.existing.push(ImportedClient {
                client_id,
                national_id,
            }),
        }
    }
    access.record(
        PortalId(portal_id),
        Accessor::ImportSecret,
        Action::ImportClients,
        result
            .created
            .iter()
            .chain(&result.existing)
            .map(|client| client.client_id),
        [],
    );
    tracing::info!(
        portal_id,
        created = result.created.len(),
        existing = result.existing.len(),
        invalid = result.invalid.len(),
        "clients imported"
    );
    Ok(JsonResponse::ok(result))
}

/// Checks the locks (the caller's network, then the portal), then the secret; a failure is
/// recorded with its network before the 401 goes out. A secret that is not even shaped like
/// one gets the same 401 without a read or a count: it cannot match, and a misconfigured sender
/// should not lock the portal out.
async fn authorise(
    state: &PortalsState,
    portal_id: i32,
    secret: &str,
    source: &SourceNetwork,
) -> Result<(), ApiError> {
    if !auth::is_secret_shaped(secret) {
        tracing::warn!(
            portal_id,
            "import refused: the secret is not 43 base64url characters"
        );
        return Err(ApiError::Unauthorized);
    }
    let expected = auth::portal_import_secret(&state.import_master, portal_id);
    let rules = &state.rules;
    // Another failed attempt recorded meanwhile: count this one on top of it.
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the import guard");
    loop {
        rounds.start().await?;
        let now = state.authenticator.clock.now();
        let context = state.portals.import_context(PortalId(portal_id)).await?;
        let mut failures = rules.recent(context.guard.failures, now);
        rules.check(
            &failures,
            source,
            now,
            "Too many failed import attempts from this network for this portal; retry later.",
            "Too many failed import attempts for this portal; retry later.",
        )?;
        // The comparison runs whether or not the portal exists, so timing tells nothing.
        let secret_matches = auth::constant_time_eq(&expected, secret);
        if secret_matches && context.portal.is_some() {
            return Ok(());
        }
        failures.push(SourcedEvent {
            at: now,
            source: *source,
        });
        let guard = ImportGuard {
            failures,
            version: context.guard.version + 1,
        };
        let saved = state
            .portals
            .save_import_guard(ImportGuardSave {
                portal_id: PortalId(portal_id),
                guard: &guard,
                read_version: context.guard.version,
            })
            .await;
        if let Round::Done(()) = saved.or_lost()? {
            tracing::warn!(portal_id, "import refused: wrong secret or unknown portal");
            return Err(ApiError::Unauthorized);
        }
    }
}
