//! JSON request bodies: the content-type and size checks, then the decoding.

use axum::extract::{FromRequest, Request};
use http::header;
use serde::de::DeserializeOwned;

use super::decode::decode_json;
use crate::error::ApiError;

/// Default body limit (DESIGN.md section 3); bulk endpoints widen it through the parameter.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;

/// A JSON request body of at most `LIMIT` bytes, in `application/json`, `text/json` or
/// `application/*+json` (charset allowed). Errors: 415, 413, 400 with field paths.
#[derive(Debug, Clone)]
pub struct Json<T, const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub T);

fn is_json_content_type(headers: &http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Ok(mime) = value.parse::<mime::Mime>() else {
        return false;
    };
    match (
        mime.type_().as_str(),
        mime.subtype().as_str(),
        mime.suffix(),
    ) {
        ("application", "json", _) | ("text", "json", _) => true,
        ("application", _, Some(suffix)) => suffix == mime::JSON,
        _ => false,
    }
}

/// The raw bytes of a JSON request body of at most `LIMIT` bytes, with the same content-type
/// and size checks as `Json`: for a handler that must see the exact bytes (a signature check)
/// before it decodes them with `decode_json`.
#[derive(Debug, Clone)]
pub struct JsonBytes<const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub axum::body::Bytes);

impl<S, const LIMIT: usize> FromRequest<S> for JsonBytes<LIMIT>
where
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        if !is_json_content_type(request.headers()) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        if declared.is_some_and(|length| length > LIMIT) {
            return Err(ApiError::PayloadTooLarge { limit: LIMIT });
        }
        axum::body::to_bytes(request.into_body(), LIMIT)
            .await
            .map(JsonBytes)
            .map_err(|error| {
                let over_limit = std::iter::successors(
                    Some(&error as &(dyn std::error::Error + 'static)),
                    |e| e.source(),
                )
                .any(|e| e.is::<http_body_util::LengthLimitError>());
                if over_limit {
                    ApiError::PayloadTooLarge { limit: LIMIT }
                } else {
                    ApiError::BadRequest("The request body could not be read.".into())
                }
            })
    }
}

impl<T, S, const LIMIT: usize> FromRequest<S> for Json<T, LIMIT>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonBytes(bytes) = JsonBytes::<LIMIT>::from_request(request, state).await?;
        decode_json(&bytes).map(Json)
    }
}
