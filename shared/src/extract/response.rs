//! JSON answers: the negotiated content type, and pages of a list with their `Link` header.

use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;

use crate::error::ApiError;

/// The media types a JSON answer may be labelled with, chosen from `Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFlavour {
    ApplicationJson,
    TextJson,
    TextPlain,
}

impl JsonFlavour {
    fn content_type(self) -> &'static str {
        match self {
            Self::ApplicationJson => "application/json; charset=utf-8",
            Self::TextJson => "text/json; charset=utf-8",
            Self::TextPlain => "text/plain; charset=utf-8",
        }
    }

    /// The most preferred acceptable flavour (`q` weights honoured, ties in header order);
    /// no `Accept` header means application/json; nothing acceptable is 406.
    pub fn negotiate(headers: &http::HeaderMap) -> Result<Self, ApiError> {
        let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
            return Ok(Self::ApplicationJson);
        };
        if accept.trim().is_empty() {
            return Ok(Self::ApplicationJson);
        }
        let mut best: Option<(f32, Self)> = None;
        for range in accept.split(',') {
            let Ok(mime) = range.trim().parse::<mime::Mime>() else {
                continue;
            };
            let quality = mime
                .get_param("q")
                .and_then(|q| q.as_str().parse::<f32>().ok())
                .unwrap_or(1.0);
            let flavour = match (mime.type_().as_str(), mime.subtype().as_str()) {
                ("application", "json") | ("application", "*") | ("*", "*") => {
                    Self::ApplicationJson
                }
                ("text", "json") => Self::TextJson,
                ("text", "plain") => Self::TextPlain,
                ("text", "*") => Self::TextJson,
                _ => continue,
            };
            if quality > 0.0 && best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, flavour));
            }
        }
        best.map(|(_, flavour)| flavour)
            .ok_or(ApiError::NotAcceptable)
    }
}

/// A JSON answer with a status and a negotiated content type.
pub struct JsonResponse<T> {
    pub status: StatusCode,
    pub flavour: JsonFlavour,
    pub body: T,
}

impl<T> JsonResponse<T> {
    pub fn ok(body: T) -> Self {
        Self {
            status: StatusCode::OK,
            flavour: JsonFlavour::ApplicationJson,
            body,
        }
    }

    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    pub fn negotiated(mut self, flavour: JsonFlavour) -> Self {
        self.flavour = flavour;
        self
    }
}

impl<T: Serialize> IntoResponse for JsonResponse<T> {
    fn into_response(self) -> Response {
        match serde_json::to_vec(&self.body) {
            Ok(bytes) => {
                let mut response = (self.status, bytes).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.flavour.content_type()),
                );
                response
            }
            Err(error) => ApiError::internal(error).into_response(),
        }
    }
}

/// One page of a list read with `?limit=N` (and `&cursor=C` after the first): the items as a
/// JSON array and, while more follow, a `Link: <path?limit=N&cursor=next&...>; rel="next"`
/// header (RFC 8288) that repeats the list's filters. Without a limit the list is one page
/// and has no link.
pub struct Paged<T> {
    items: Vec<T>,
    next: Option<String>,
}

impl<T> Paged<T> {
    /// The page `items` of the list at `path`; `next` is the cursor the following page starts
    /// after, `filters` the query's other values in the order they go into the link.
    pub fn new(
        items: Vec<T>,
        path: &str,
        limit: Option<usize>,
        next: Option<String>,
        filters: &[(&str, String)],
    ) -> Self {
        let next = limit.zip(next).map(|(limit, cursor)| {
            let mut link = format!("<{path}?limit={limit}&cursor={}", query_value(&cursor));
            for (name, value) in filters {
                link.push_str(&format!("&{name}={}", query_value(value)));
            }
            link.push_str(">; rel=\"next\"");
            link
        });
        Self { items, next }
    }
}

impl<T: Serialize> IntoResponse for Paged<T> {
    fn into_response(self) -> Response {
        let mut response = JsonResponse::ok(self.items).into_response();
        if let (true, Some(link)) = (response.status().is_success(), self.next) {
            match HeaderValue::from_str(&link) {
                Ok(value) => {
                    response.headers_mut().insert(header::LINK, value);
                }
                Err(error) => return ApiError::internal(error).into_response(),
            }
        }
        response
    }
}

/// A value as it goes into a URL's query: everything but unreserved characters and `:`
/// percent-encoded (a cursor's `#` would otherwise end the URL, an `&` split the query).
pub fn query_value(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
