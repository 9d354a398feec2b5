//! The contact-detail endpoints: a portal's contacts, one contact, the contacts reachable now
//! (by their windows in the portal's time zone), and an admin replacing a contact's editable
//! fields (logged, and the number that stops receiving alerts told so by SMS).

use std::sync::Arc;

use axum::Router;
use axum::extract::{FromRef, State};
use axum::routing::get;
use serde::Deserialize;
use shared::ids::ContactDetailId;
use shared::zone::Zone;

use shared::audit::{AccessNote, AuditLog};
use shared::auth::{Authenticator, Caller};
use shared::contact_window::{self, WindowError};
use shared::error::{ApiError, Problem};
use shared::extract::{Json, JsonResponse, PathId};
use shared::notify::{SmsSender, SnsSms};
use shared::phone::DefaultRegion;
use shared::phone::MetadataLoad;
use shared::records::{ContactDetail, Role};
use shared::runtime::{Platform, Services};
use shared::store::access_log::Action;
use shared::store::{
    ContactDetailChanges, ContactDetailEdit, ContactDetailStore, Narrow, SessionReader,
};
use shared::wire::{ClockTime, Email, Name, OrBlank, PhoneText};

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    list_contact_details,
    active_contact_details,
    get_contact_detail,
    replace_contact_detail
))]
pub struct ApiDoc;

#[derive(Clone, FromRef)]
pub struct ContactDetailsState {
    pub contacts: Arc<dyn ContactDetailStore>,
    pub authenticator: Authenticator,
    pub region: DefaultRegion,
    /// The zone contact windows are written in (`PORTAL_TIME_ZONE`).
    pub time_zone: Zone,
    /// Tells a number that it no longer receives the portal's alerts.
    pub sms: Arc<dyn SmsSender>,
    pub audit: AuditLog,
}

impl ContactDetailsState {
    pub fn new<S>(services: &Services<S>, sms: Arc<dyn SmsSender>) -> Self
    where
        S: ?Sized + Narrow<dyn ContactDetailStore> + Narrow<dyn SessionReader>,
    {
        Self {
            contacts: services.store(),
            authenticator: services.authenticator(),
            // Only an update reads a number; the reads do not.
            region: services.phone_region(MetadataLoad::FirstUse),
            time_zone: services.time_zone.clone(),
            sms,
            audit: services.audit(),
        }
    }

    /// The state on Lambda: SMS through SNS.
    pub fn for_lambda(platform: &Platform) -> Self {
        let sms = Arc::new(SnsSms::new(aws_sdk_sns::Client::new(&platform.sdk)));
        Self::new(&platform.services, sms)
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: ContactDetailsState) -> Router {
    let routes = Router::new()
        .route("/contact-details", get(list_contact_details))
        .route("/contact-details/active", get(active_contact_details))
        .route(
            "/contact-details/{id}",
            get(get_contact_detail).put(replace_contact_detail),
        );
    shared::audit::logged_with_state(routes, state)
}

/// List the portal's contact details
///
/// Every contact detail of the caller's portal, by priority then id.
#[utoipa::path(
    get, path = "/contact-details", tag = "contact details",
    responses((status = 200, description = "The portal's contact details, by `priority` (1 first), then `id`.", body = Vec<ContactDetail>)),
    security(("bearer" = []))
)]
async fn list_contact_details(
    State(state): State<ContactDetailsState>,
    caller: Caller,
) -> Result<JsonResponse<Vec<ContactDetail>>, ApiError> {
    let mut details = state.contacts.contact_details(caller.portal_id).await?;
    contact_window::sort(&mut details);
    Ok(JsonResponse::ok(details))
}

/// The contact details reachable now
///
/// The contact details that are active and inside their window now, by priority then id.
///
/// Windows are read in `PORTAL_TIME_ZONE`, as `[start, end)`; one whose start is after its end
/// runs over midnight, and one with both ends null is all day.
#[utoipa::path(
    get, path = "/contact-details/active", tag = "contact details",
    responses((status = 200, description = "The contact details with `isActive` whose window, in the portal's local time, holds the current time: `[start, end)`, across midnight when start > end, all day when both are null.", body = Vec<ContactDetail>)),
    security(("bearer" = []))
)]
async fn active_contact_details(
    State(state): State<ContactDetailsState>,
    caller: Caller,
) -> Result<JsonResponse<Vec<ContactDetail>>, ApiError> {
    let now = state.authenticator.clock.now();
    let mut details: Vec<ContactDetail> = state
        .contacts
        .contact_details(caller.portal_id)
        .await?
        .into_iter()
        .filter(|detail| contact_window::is_active(detail, now, &state.time_zone))
        .collect();
    contact_window::sort(&mut details);
    Ok(JsonResponse::ok(details))
}

/// One contact detail
///
/// A contact detail of the caller's portal; another portal's answers exactly like a missing one.
#[utoipa::path(
    get, path = "/contact-details/{id}", tag = "contact details",
    params(("id" = i32, Path, minimum = 1, description = "The contact detail.")),
    responses(
        (status = 200, description = "The contact detail.", body = ContactDetail),
        (status = 404, description = "No contact detail with this id in the caller's portal.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn get_contact_detail(
    State(state): State<ContactDetailsState>,
    caller: Caller,
    PathId(id): PathId,
) -> Result<JsonResponse<ContactDetail>, ApiError> {
    state
        .contacts
        .contact_detail(caller.portal_id, ContactDetailId(id))
        .await?
        .map(JsonResponse::ok)
        .ok_or(ApiError::NotFound("contact detail"))
}

/// The editable fields of a contact detail; `PUT` replaces all of them. `name`, `priority`
/// and `isActive` are required; the others may be null (or empty) to clear them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContactDetailBody {
    name: Option<Name<200>>,
    contact_number: Option<OrBlank<PhoneText>>,
    contact_email: Option<OrBlank<Email>>,
    contact_between_start: Option<OrBlank<ClockTime>>,
    contact_between_end: Option<OrBlank<ClockTime>>,
    priority: Option<i64>,
    is_active: Option<bool>,
}

/// Written out by hand: a window needs both ends or neither, which field attributes cannot say.
/// (utoipa reads back only typed schemas, hence `maxLength: 0` for "empty" and the `allOf`.)
impl utoipa::PartialSchema for ContactDetailBody {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use shared::openapi::TIME;
        let empty = serde_json::json!({"type": "string", "maxLength": 0});
        let blank = serde_json::json!({"anyOf": [{"type": "null"}, empty]});
        let fields = serde_json::json!({
            "type": "object",
            "description": "Replaces every editable field. `name`, `priority` and `isActive` \
                are required; null or empty clears the others. The window is both ends \
                (HH:mm or HH:mm:ss, the portal's local time) or neither (all day).",
            "additionalProperties": false,
            "required": ["name", "priority", "isActive"],
            "properties": {
                "name": <Name<200> as utoipa::PartialSchema>::schema(),
                "contactNumber": {"anyOf": [
                    {"type": "null"}, empty, <PhoneText as utoipa::PartialSchema>::schema(),
                ]},
                "contactEmail": {"anyOf": [
                    {"type": "null"}, empty, <Email as utoipa::PartialSchema>::schema(),
                ]},
                "contactBetweenStart": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                "contactBetweenEnd": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                "priority": {
                    "type": "integer", "format": "int32", "minimum": 0,
                    "description": "1 first; 0 sorts before it.",
                },
                "isActive": {"type": "boolean"},
            },
        });
        let window = serde_json::json!({"anyOf": [
            {
                "type": "object",
                "required": ["contactBetweenStart", "contactBetweenEnd"],
                "properties": {
                    "contactBetweenStart": {"type": "string", "pattern": TIME},
                    "contactBetweenEnd": {"type": "string", "pattern": TIME},
                },
            },
            {
                "type": "object",
                "properties": {"contactBetweenStart": blank, "contactBetweenEnd": blank},
            },
        ]});
        let schema = serde_json::json!({
            "allOf": [fields, window],
            "example": {
                "name": "Evening staff", "contactNumber": "08-700 10 60", "contactEmail": null,
                "contactBetweenStart": "16:00", "contactBetweenEnd": "22:00",
                "priority": 2, "isActive": true,
            },
        });
        serde_json::from_value(schema).expect("a well-formed schema")
    }
}

impl utoipa::ToSchema for ContactDetailBody {}

impl ContactDetailBody {
    fn changes(self, region: DefaultRegion) -> Result<ContactDetailChanges, ApiError> {
        let name = self
            .name
            .ok_or_else(|| ApiError::field("name", "is required"))?;
        let contact_number = self
            .contact_number
            .and_then(OrBlank::into_option)
            .map(|number| number.e164(region))
            .transpose()
            .map_err(|message| ApiError::field("contactNumber", message))?;
        let contact_email = self.contact_email.and_then(OrBlank::into_option);
        let start = self.contact_between_start.and_then(OrBlank::into_option);
        let end = self.contact_between_end.and_then(OrBlank::into_option);
        if start.is_some() != end.is_some() {
            return Err(ApiError::field(
                "contactBetweenEnd",
                WindowError::HalfOpen.to_string(),
            ));
        }
        let priority = self
            .priority
            .ok_or_else(|| "is required".to_string())
            .and_then(|priority| {
                i32::try_from(priority)
                    .ok()
                    .filter(|p| *p >= 0)
                    .ok_or_else(|| "must be an integer from 0 to 2147483647".to_string())
            })
            .map_err(|message| ApiError::field("priority", message))?;
        let is_active = self
            .is_active
            .ok_or_else(|| ApiError::field("isActive", "is required"))?;
        Ok(ContactDetailChanges {
            name: name.into_inner(),
            contact_number,
            contact_email: contact_email.map(Email::into_inner),
            contact_between_start: start.map(ClockTime::into_inner),
            contact_between_end: end.map(ClockTime::into_inner),
            priority,
            is_active,
        })
    }
}

/// Replace a contact detail
///
/// Replaces every field of a contact detail of the caller's portal: `name`, `priority` and
/// `isActive` are required, null or empty clears the others, and the window's two ends are set
/// or cleared together. Admins only: the numbers here receive the portal's alerts. The change is
/// access-logged (`contact-detail.update`, a staff member's attempt as a denial), and a number
/// that could receive the portal's alerts and no longer can (the number changed, or the
/// contact was deactivated) is told so by SMS.
#[utoipa::path(
    put, path = "/contact-details/{id}", tag = "contact details",
    params(("id" = i32, Path, minimum = 1, description = "The contact detail to update.")),
    request_body = ContactDetailBody,
    responses(
        (status = 200, description = "The contact detail as stored.", body = ContactDetail),
        (status = 403, description = "The caller is not an admin of the portal; nothing was written.", body = Problem),
        (status = 404, description = "No contact detail with this id in the caller's portal.", body = Problem),
    ),
    security(("bearer" = []))
)]
async fn replace_contact_detail(
    State(state): State<ContactDetailsState>,
    caller: Caller,
    access: AccessNote,
    PathId(id): PathId,
    Json(body): Json<ContactDetailBody>,
) -> Result<JsonResponse<ContactDetail>, ApiError> {
    access.by_caller(&caller, Action::UpdateContactDetail, [], []);
    if caller.role != Role::Admin {
        return Err(ApiError::Forbidden(ADMINS_ONLY));
    }
    let changes = body.changes(state.region)?;
    let update = state
        .contacts
        .update_contact_detail(ContactDetailEdit {
            portal_id: caller.portal_id,
            id: ContactDetailId(id),
            changes: &changes,
        })
        .await?
        .ok_or(ApiError::NotFound("contact detail"))?;
    if let Some(dropped) = update.number_dropped() {
        // The change is made whatever becomes of this SMS: a failure is logged, not answered.
        match state.sms.send_sms(dropped, NO_LONGER_ALERTED).await {
            Ok(()) => tracing::info!(contact_detail = id, "the number no longer alerted was told"),
            Err(error) => {
                shared::metrics::sms_failed(1);
                tracing::error!(
                    contact_detail = id,
                    error = %shared::error::error_chain(error.as_ref()),
                    "the number no longer alerted could not be told"
                )
            }
        }
    }
    Ok(JsonResponse::ok(update.after))
}

const ADMINS_ONLY: &str = "Only an admin of the portal may change its contact details.";

/// The SMS to a number that no longer receives a portal's alerts: nothing about any client.
const NO_LONGER_ALERTED: &str = "Hemtjänstens larm skickas inte längre till det här numret. \
     This number no longer receives the care unit's alerts. If you did not expect this, call \
     the unit.";
