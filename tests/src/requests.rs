//! Requests to the API and what came back: building requests, reading answers and problems.

use axum::body::Body;
use http::{HeaderMap, Method, Request, StatusCode};
use serde_json::Value;

pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The `Retry-After` header's seconds; panics when it is missing or not a number.
    pub fn retry_after(&self) -> i64 {
        self.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Asserts a problem+json answer with this status and returns its body.
    pub fn problem(&self, status: StatusCode) -> Value {
        assert_eq!(
            self.status,
            status,
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.content_type(), "application/problem+json");
        let body = self.json();
        assert_eq!(body["status"], status.as_u16());
        for member in ["type", "title", "detail", "traceId"] {
            assert!(body[member].is_string(), "problem lacks {member}: {body}");
        }
        body
    }
}

/// A GET of `path`, with the session's bearer token when given and the extra `headers`.
pub fn get_request(path: &str, token: Option<&str>, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder().method(Method::GET).uri(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

/// A request with a body of `content_type`, and the session's bearer token when given.
pub fn body_request(
    method: Method,
    path: &str,
    token: Option<&str>,
    content_type: &str,
    body: impl Into<Body>,
) -> Request<Body> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(body.into()).unwrap()
}

/// The one-time code in the text of an OTP SMS: its six-digit word.
pub fn otp_in(message: &str) -> Option<&str> {
    message
        .split(|c: char| !c.is_ascii_digit())
        .find(|part| part.len() == 6)
}

/// A problem body without its per-request `traceId`, to compare two answers.
pub fn without_trace(mut problem: Value) -> Value {
    if let Some(object) = problem.as_object_mut() {
        object.remove("traceId");
    }
    problem
}

/// The fields a validation problem names, in order.
pub fn error_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_object()
        .map(|errors| errors.keys().cloned().collect())
        .unwrap_or_default()
}
