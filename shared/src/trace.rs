//! The per-request trace id: taken from API Gateway's request id when there is one, generated
//! otherwise, kept in a task-local so that every problem body and log line can carry it.

use axum::{extract::Request, middleware::Next, response::Response};
use http::HeaderValue;

tokio::task_local! {
    static TRACE_ID: String;
}

pub const TRACE_HEADER: &str = "x-trace-id";

/// The trace id of the request being served, or `-` outside a request.
pub fn current() -> String {
    TRACE_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "-".into())
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

/// Middleware: runs the rest of the stack inside the trace-id scope and echoes the id.
pub async fn layer(request: Request, next: Next) -> Response {
    let id = trace_id_of(&request);
    let mut response = TRACE_ID.scope(id.clone(), next.run(request)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(TRACE_HEADER, value);
    }
    response
}
