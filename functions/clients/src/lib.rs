//! The client endpoints: the caller's portal's clients with their derived call figures
//! (optionally paginated), and staff edits of a client's contact fields.

use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRef, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch};
use serde::Deserialize;

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::error::{ApiError, Problem};
use shared::extract::{Json, JsonResponse, Paged, PathId};
use shared::ids::ClientId;
use shared::phone::MetadataLoad;
use shared::phone::{self, DefaultRegion};
use shared::records::Client;
use shared::runtime::Services;
use shared::store::access_log::Action;
use shared::store::{
    ClientChanges, ClientField, ClientPageRequest, ClientStore, Narrow, SessionReader,
};
use shared::validate::{self, Validator};

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

/// The function's Lambda router: its routes plus the shared layers.
pub fn router(state: ClientsState) -> Router {
    shared::runtime::finish(routes(state))
}

/// The bare routes, for `local-api` to merge with the other functions'.
pub fn routes(state: ClientsState) -> Router {
    let audit = state.audit.clone();
    let routes = Router::new()
        .route("/clients", get(list_clients))
        .route("/clients/{id}", patch(update_client));
    shared::audit::logged(routes, audit).with_state(state)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Page size, 1 to 1000; without it the whole list is returned.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    limit: Option<String>,
    /// Where the page starts: after the client with this id (the last of the previous page,
    /// as the `Link` header gives it). Without `limit`, every client after it.
    #[param(value_type = Option<i32>, minimum = 0)]
    cursor: Option<String>,
}

/// The id the page starts after. Clients are listed by id, so the last id of a page is all a
/// cursor needs to carry, and any id is a valid place to start.
fn decode_cursor(cursor: &str) -> Result<i32, String> {
    validate::id_cursor(cursor, "a client")
}

fn page_request(query: ListQuery) -> Result<ClientPageRequest, ApiError> {
    let mut validator = Validator::new();
    let limit = query
        .limit
        .and_then(|limit| validator.check("limit", validate::page_limit(&limit, MAX_PAGE)));
    let after = query
        .cursor
        .and_then(|cursor| validator.check("cursor", decode_cursor(&cursor)));
    validator.finish()?;
    Ok(ClientPageRequest {
        after: after.map(ClientId),
        limit,
    })
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
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let request = page_request(query)?;
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
    #[schema(
        max_length = 200,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$"
    )]
    name: Option<String>,
    /// Stored in E.164; cannot be cleared.
    #[schema(format = "phone", max_length = 40)]
    phone: Option<String>,
    /// Empty clears it.
    #[schema(max_length = 100, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    city: Option<String>,
    /// Empty clears it.
    #[schema(max_length = 200, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    street: Option<String>,
    /// Empty clears it.
    #[schema(max_length = 100, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    country: Option<String>,
    /// Empty clears it.
    #[schema(max_length = 20, pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$")]
    zip_code: Option<String>,
    /// A BCP 47 tag (`sv`, `en-GB`), stored in canonical case; cannot be cleared.
    #[schema(format = "language-tag", max_length = 35)]
    language: Option<String>,
}

impl ClientPatch {
    /// Validated changes: name, phone and language cannot be cleared; an empty city, street,
    /// country or zip code clears it.
    fn changes(self, region: DefaultRegion) -> Result<ClientChanges, ApiError> {
        let mut validator = Validator::new();
        let mut changes = ClientChanges::new();
        let mut set = |validator: &mut Validator, field: ClientField, result| {
            if let Some(value) = validator.check(field.attribute(), result) {
                changes.push((field, value));
            }
        };
        if let Some(name) = self.name {
            set(
                &mut validator,
                ClientField::Name,
                validate::required_text(&name, 200).map(Some),
            );
        }
        if let Some(phone) = self.phone {
            set(
                &mut validator,
                ClientField::Phone,
                phone::normalise(&phone, region).map(Some),
            );
        }
        for (field, value, max) in [
            (ClientField::City, self.city, 100),
            (ClientField::Street, self.street, 200),
            (ClientField::Country, self.country, 100),
            (ClientField::ZipCode, self.zip_code, 20),
        ] {
            if let Some(value) = value {
                set(&mut validator, field, validate::text(&value, max));
            }
        }
        if let Some(language) = self.language {
            set(
                &mut validator,
                ClientField::Language,
                validate::language_tag(&language).map(Some),
            );
        }
        validator.finish()?;
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
    let changes = patch.changes(state.region)?;
    let now = state.authenticator.clock.now();
    let client = state
        .clients
        .update_client(caller.portal_id, ClientId(id), &changes, now)
        .await?
        .ok_or(ApiError::NotFound("client"))?;
    access.by_caller(&caller, Action::UpdateClient, [client.id], []);
    Ok(JsonResponse::ok(client))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_is_a_client_id_from_zero() {
        assert_eq!(decode_cursor("42"), Ok(42));
        assert_eq!(decode_cursor("0"), Ok(0));
        for bad in ["not-a-cursor", "-5", "2147483648", "", "4 2"] {
            assert!(decode_cursor(bad).is_err(), "{bad}");
        }
    }
}
