//! The HTTP boundary's error type and its RFC 9457 problem+json rendering.
//!
//! Handlers return `ApiError`; the cause chain of a 5xx goes to the log with the trace id, the
//! client sees only a generic title. Store failures convert through `From<StoreError>`.

use std::collections::BTreeMap;

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;

use crate::store::StoreError;
use crate::trace;

pub const PROBLEM_JSON: &str = "application/problem+json";

/// Field name (JSON path) to the messages explaining what is wrong with it.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("validation failed: {detail}")]
    Validation { detail: String, errors: FieldErrors },
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("unauthorized")]
    Unauthorized,
    /// The caller may not do this; the detail says what is missing (a role, ownership).
    #[error("forbidden: {0}")]
    Forbidden(&'static str),
    #[error("not found: {0}")]
    NotFound(&'static str),
    /// No client reaches the suggestion threshold; the ranked candidates go with the problem.
    #[error("no suggestion")]
    NoSuggestion { candidates: serde_json::Value },
    #[error("no such route")]
    RouteNotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("not acceptable")]
    NotAcceptable,
    #[error("payload too large (limit {limit} bytes)")]
    PayloadTooLarge { limit: usize },
    #[error("unsupported media type")]
    UnsupportedMediaType,
    #[error("too many requests: {detail}")]
    TooManyRequests {
        detail: String,
        retry_after_secs: u64,
    },
    #[error("service unavailable")]
    Unavailable(#[source] StoreError),
    #[error("internal error")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    /// A validation failure on one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = FieldErrors::new();
        errors.insert(field.into(), vec![message.into()]);
        Self::Validation {
            detail: "The request has invalid fields.".into(),
            errors,
        }
    }

    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal(error.into())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Validation { .. } | Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) | Self::RouteNotFound | Self::NoSuggestion { .. } => {
                StatusCode::NOT_FOUND
            }
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn slug_and_title(&self) -> (&'static str, &'static str) {
        match self {
            Self::Validation { .. } => ("validation", "The request is not valid."),
            Self::BadRequest(_) => ("bad-request", "The request is not valid."),
            Self::Unauthorized => ("unauthorized", "Authentication is required."),
            Self::Forbidden(_) => ("forbidden", "Access to this resource is not allowed."),
            Self::NotFound(_) | Self::RouteNotFound => ("not-found", "The resource was not found."),
            Self::NoSuggestion { .. } => ("no-suggestion", "No client could be suggested."),
            Self::MethodNotAllowed => ("method-not-allowed", "Method not allowed."),
            Self::Conflict(_) => ("conflict", "The request conflicts with the current state."),
            Self::NotAcceptable => ("not-acceptable", "No acceptable representation."),
            Self::PayloadTooLarge { .. } => ("payload-too-large", "The request body is too large."),
            Self::UnsupportedMediaType => ("unsupported-media-type", "Unsupported media type."),
            Self::TooManyRequests { .. } => ("rate-limited", "Too many requests."),
            Self::Unavailable(_) => ("unavailable", "The service is temporarily unavailable."),
            Self::Internal(_) => ("internal", "An internal error occurred."),
        }
    }

    fn detail(&self) -> String {
        match self {
            Self::Validation { detail, .. } => detail.clone(),
            Self::BadRequest(detail) | Self::Conflict(detail) => detail.clone(),
            Self::TooManyRequests { detail, .. } => detail.clone(),
            Self::Unauthorized => "The credentials are missing, invalid or expired.".into(),
            Self::Forbidden(detail) => (*detail).into(),
            Self::NotFound(what) => format!("No {what} with that id was found."),
            Self::RouteNotFound => "No route matches this path.".into(),
            Self::NoSuggestion { .. } => {
                "No client of the organisation matches the call well enough; `candidates` ranks \
                 the closest."
                    .into()
            }
            Self::MethodNotAllowed => "This method is not allowed on this path.".into(),
            Self::NotAcceptable => {
                "Acceptable types are application/json, text/json and text/plain.".into()
            }
            Self::PayloadTooLarge { limit } => {
                format!("The request body exceeds {limit} bytes.")
            }
            Self::UnsupportedMediaType => {
                "Send application/json, text/json or application/*+json.".into()
            }
            Self::Unavailable(_) => "Please retry shortly.".into(),
            Self::Internal(_) => "The error has been logged with its trace id.".into(),
        }
    }
}

/// The problem document. `extra` carries endpoint-specific members (for example ranked
/// candidates on a "no suggestion" answer).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({
    "type": "urn:call-handling:problem:validation",
    "title": "The request is not valid.",
    "status": 400,
    "detail": "The request has invalid fields.",
    "errors": {"phone": ["is not a valid phone number"]},
    "traceId": "1-67a0c2f1-5d2e8a1b9c3f4e6a7b8c9d0e"
}))]
pub struct Problem {
    /// `urn:call-handling:problem:<slug>`, one slug per kind of failure.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    /// The HTTP status, repeated.
    pub status: u16,
    pub detail: String,
    /// Validation failures only: each failing field (a JSON path such as `[2].retries`) with
    /// its messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<std::collections::HashMap<String, Vec<String>>>)]
    pub errors: Option<FieldErrors>,
    /// The id under which the failure was logged.
    pub trace_id: String,
    #[serde(flatten)]
    #[schema(ignore)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The documented answer of a route that opens a client's record once the account has opened
/// more than its portal allows in the period (`ApiError` answers it; this names it once for
/// every such route's OpenAPI `responses`).
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "This account opened more clients' records in the period than the portal's threshold (`UnusualReadingClients` in `UnusualReadingMinutes`): refused until the period ends, as `Retry-After` says; the portal's admins get an `unusual_access` alert."
)]
pub struct ReadingLimited(pub Problem);

/// The documented answer of an admin-only route to a staff member.
#[derive(utoipa::IntoResponses)]
#[response(status = 403, description = "The caller is not an admin.")]
pub struct NotAdmin(pub Problem);

/// An error with its causes, for logs.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let trace_id = trace::current();
        if status.is_server_error() {
            tracing::error!(trace_id = %trace_id, error = %error_chain(&self), "request failed");
        } else {
            tracing::info!(trace_id = %trace_id, status = status.as_u16(), error = %self, "request rejected");
        }
        let (slug, title) = self.slug_and_title();
        let problem = Problem {
            kind: format!("urn:call-handling:problem:{slug}"),
            title: title.into(),
            status: status.as_u16(),
            detail: self.detail(),
            errors: match &self {
                Self::Validation { errors, .. } => Some(errors.clone()),
                _ => None,
            },
            trace_id,
            extra: match &self {
                Self::NoSuggestion { candidates } => {
                    serde_json::Map::from_iter([("candidates".to_string(), candidates.clone())])
                }
                _ => serde_json::Map::new(),
            },
        };
        let mut response = (status, problem_body(&problem)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        match &self {
            Self::TooManyRequests {
                retry_after_secs, ..
            } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
            }
            Self::Unavailable(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            Self::Unauthorized => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"call-handling\""),
                );
            }
            _ => {}
        }
        response
    }
}

fn problem_body(problem: &Problem) -> String {
    serde_json::to_string(problem).unwrap_or_else(|_| String::from("{}"))
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Throttled(_) | StoreError::Unavailable(_) | StoreError::KeptChanging(_) => {
                Self::Unavailable(error)
            }
            other => Self::Internal(Box::new(other)),
        }
    }
}
