//! The client endpoints: the caller's portal's clients with their derived call figures
//! (optionally paginated), and staff edits of a client's contact fields.

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch};
use serde::Deserialize;

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::error::{ApiError, Problem, ReadingLimited};
use shared::extract::{Json, JsonResponse, Paged, PathId, Query};
use shared::ids::ClientId;
use shared::phone::DefaultRegion;
use shared::phone::MetadataLoad;
use shared::records::Client;
use shared::runtime::Services;
use shared::store::access_log::Action;
use shared::store::{
    ClientChanges, ClientField, ClientPageRequest, ClientStore, ClientUpdate, Narrow, SessionReader,
};
use shared::wire::{IdCursor, LanguageTag, Name, PageLimit, PhoneText, Text};

/// The largest page a client may ask for.
pub const MAX_PAGE: usize = 1000;

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list_clients, update_client))]
pub struct ApiDoc;

#[derive(Clone, FromRef)]
pub struct ClientsState {
    pub clients: Arc<dyn ClientStore>,
    pub authenticator: Authenticator,
    pub region: DefaultRegion,
    pub audit: AuditLog,
}

impl ClientsState {
    pub fn new<S>(services: &Services<S>) -> Self
    where
        S: ?Sized + Narrow<dyn ClientStore> + Narrow<dyn SessionReader>,
    {
        Self {
            clients: services.store(),
            authenticator: services.authenticator(),
            // Only a change of a client reads a number; a list does not.
            region: services.phone_region(MetadataLoad::FirstUse),
            audit: services.audit(),
        }
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: ClientsState) -> Router {
    let routes = Router::new()
        .route("/clients", get(list_clients))
        .route("/clients/{id}", patch(update_client));
    shared::audit::logged_with_state(routes, state)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<PageLimit<MAX_PAGE>>,
    /// Where the page starts: after the client with this id (the last of the previous page,
    /// as the `Link` header gives it). Without `limit`, every client after it.
    #[param(value_type = Option<i32>, minimum = 0)]
    cursor: Option<IdCursor>,
}

/// The page asked for. Clients are listed by id, so the last id of a page is all a cursor
/// needs to carry, and any id is a valid place to start.
fn page_request(query: ListQuery) -> ClientPageRequest {
    ClientPageRequest {
        after: query.cursor.map(|after| ClientId(after.get())),
        limit: query.limit.map(PageLimit::get),
    }
}

/// List the portal's clients
///
/// Every client of the caller's portal that is not deleted, by id. With `?limit=N` one page,
/// and a `Link: <...>; rel="next"` header while more follow.
#[utoipa::path(
    get, path = "/clients", tag = "clients",
    params(ListQuery),
    responses(
        (status = 200, description = "The clients, by id. With `limit`, a `Link: <...>; rel=\"next\"` header names the next page while more follow.",
            body = Vec<Client>,
            headers(("Link" = String, description = "The next page, when `limit` was given and more clients follow."))),
    ),
    security(("bearer" = []))
)]
async fn list_clients(
    State(state): State<ClientsState>,
    caller: Caller,
    access: AccessNote,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let request = page_request(query);
    let now = state.authenticator.clock.now();
    let page = state
        .clients
        .clients(caller.portal_id, request, now)
        .await?;
    access.by_caller(
        &caller,
        Action::ListClients,
        page.clients.iter().map(|client| client.id),
        [],
    );
    let next = page.next_after.map(|after| after.to_string());
    Ok(Paged::new(page.clients, "/clients", request.limit, next, &[]).into_response())
}

/// The fields staff may change; absent and null both mean "leave as it is", and any other
/// field (`portalId`, `isDeleted`, ...) is refused.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"city": "Stockholm", "phone": "070-123 45 67"}))]
struct ClientPatch {
    /// Cannot be cleared.
    #[schema(inline)]
    name: Option<Name<200>>,
    /// Stored in E.164; cannot be cleared.
    #[schema(inline)]
    phone: Option<PhoneText>,
    /// Empty clears it.
    #[schema(inline)]
    city: Option<Text<100>>,
    /// Empty clears it.
    #[schema(inline)]
    street: Option<Text<200>>,
    /// Empty clears it.
    #[schema(inline)]
    country: Option<Text<100>>,
    /// Empty clears it.
    #[schema(inline)]
    zip_code: Option<Text<20>>,
    /// A BCP 47 tag (`sv`, `en-GB`), stored in canonical case; cannot be cleared.
    #[schema(inline)]
    language: Option<LanguageTag>,
}

impl ClientPatch {
    /// The changes: name, phone and language cannot be cleared; an empty city, street,
    /// country or zip code clears it. Only the phone is still to be read (in the portal's
    /// region); everything else was parsed with the body.
    fn changes(self, region: DefaultRegion) -> Result<ClientChanges, ApiError> {
        let mut changes = ClientChanges::new();
        if let Some(name) = self.name {
            changes.push((ClientField::Name, Some(name.into_inner())));
        }
        if let Some(phone) = self.phone {
            let e164 = phone
                .e164(region)
                .map_err(|message| ApiError::field("phone", message))?;
            changes.push((ClientField::Phone, Some(e164)));
        }
        for (field, value) in [
            (ClientField::City, self.city.map(Text::into_option)),
            (ClientField::Street, self.street.map(Text::into_option)),
            (ClientField::Country, self.country.map(Text::into_option)),
            (ClientField::ZipCode, self.zip_code.map(Text::into_option)),
        ] {
            if let Some(value) = value {
                changes.push((field, value));
            }
        }
        if let Some(language) = self.language {
            changes.push((ClientField::Language, Some(language.into_inner())));
        }
        Ok(changes)
    }
}

/// Change a client's contact fields
///
/// Changes a client's contact fields; absent and null leave a field alone, and any field not
/// listed is refused.
#[utoipa::path(
    patch, path = "/clients/{id}", tag = "clients",
    params(("id" = i32, Path, minimum = 1, description = "The client.")),
    request_body = ClientPatch,
    responses(
        (status = 200, description = "The updated client.", body = Client),
        (status = 404, description = "No client with this id in the caller's portal.", body = Problem),
        ReadingLimited,
    ),
    security(("bearer" = []))
)]
async fn update_client(
    State(state): State<ClientsState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    Json(patch): Json<ClientPatch>,
) -> Result<JsonResponse<Client>, ApiError> {
    let update = ClientUpdate {
        portal_id: caller.portal_id,
        client_id: ClientId(id),
        changes: patch.changes(state.region)?,
        now: state.authenticator.clock.now(),
    };
    let client = state
        .clients
        .update_client(&update)
        .await?
        .ok_or(ApiError::NotFound("client"))?;
    access.by_caller(&caller, Action::UpdateClient, [client.id], []);
    Ok(JsonResponse::ok(client))
}
