//! The per-request trace id and request log: the trace id is API Gateway's request id when
//! there is one (generated otherwise) and is kept in a task-local, with the request's
//! DynamoDB request count, so that every problem body and log line can carry it; each request
//! ends with one `request` log line.

use std::cell::Cell;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::{middleware::Next, response::Response};
use http::HeaderValue;
use tracing::Instrument;

tokio::task_local! {
    static TRACE_ID: String;
    static DYNAMO_REQUESTS: Cell<usize>;
}

pub const TRACE_HEADER: &str = "x-trace-id";

/// The trace id of the request being served, or `-` outside a request.
pub fn current() -> String {
    TRACE_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "-".into())
}

/// Counts one DynamoDB request (retries included) against the request being served.
pub fn count_dynamo_request() {
    let _ = DYNAMO_REQUESTS.try_with(|count| count.set(count.get() + 1));
}

fn trace_id_of(request: &Request) -> String {
    if let Some(lambda_http::request::RequestContext::ApiGatewayV2(context)) =
        request
            .extensions()
            .get::<lambda_http::request::RequestContext>()
        && let Some(id) = &context.request_id
    {
        return id.clone();
    }
    uuid::Uuid::new_v4().to_string()
}

/// Middleware: runs the rest of the stack inside the trace-id scope and a span carrying the
/// trace id and Lambda's request id (so every line logged meanwhile has both), echoes the
/// trace id, and logs one line per request: method, route template (never the path with its
/// ids, never headers or bodies), status, latency and DynamoDB requests.
pub async fn layer(request: Request, next: Next) -> Response {
    let id = trace_id_of(&request);
    let lambda_request_id = request
        .extensions()
        .get::<lambda_http::Context>()
        .map_or_else(|| "-".to_string(), |context| context.request_id.clone());
    let method = request.method().clone();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_string();
    let span =
        tracing::info_span!("request", trace_id = %id, lambda_request_id = %lambda_request_id);
    let started = Instant::now();
    let (mut response, dynamo_requests) = TRACE_ID
        .scope(
            id.clone(),
            DYNAMO_REQUESTS.scope(Cell::new(0), async {
                let response = next.run(request).await;
                (response, DYNAMO_REQUESTS.with(Cell::get))
            }),
        )
        .instrument(span.clone())
        .await;
    span.in_scope(|| {
        tracing::info!(
            method = %method,
            route,
            status = response.status().as_u16(),
            latency_ms = started.elapsed().as_secs_f64() * 1000.0,
            dynamodb_requests = dynamo_requests,
            "request"
        );
    });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(TRACE_HEADER, value);
    }
    response
}
