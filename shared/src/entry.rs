//! What every Lambda's `main` does: start once per cold start, then serve its events.

use crate::runtime::{Platform, finish, init_tracing, with_metrics};
use crate::store::BoxError;

/// Starts logging before the configuration is read, so that a configuration a function
/// cannot start with is logged, then builds the platform from the environment.
pub async fn start() -> Result<Platform, BoxError> {
    init_tracing();
    Platform::from_env().await
}

/// Serves an HTTP function's routes under the Lambda runtime, with the layers every function
/// has (`runtime::finish`), flushing each invocation's metrics before its answer is posted.
pub async fn serve_http(routes: axum::Router) -> Result<(), BoxError> {
    lambda_http::run(with_metrics(finish(routes))?).await
}
