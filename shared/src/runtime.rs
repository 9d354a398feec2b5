//! Start-up wiring shared by every function binary: tracing, the AWS SDK configuration, and
//! the layers every router gets.

use axum::Router;

use crate::error::ApiError;

/// JSON logs on Lambda (CloudWatch parses them), readable text elsewhere; `RUST_LOG` filters.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some() {
        // The `request` span's trace and Lambda request ids go on every line.
        builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .without_time()
            .with_target(false)
            .init();
    } else {
        builder.init();
    }
}

/// How hard the SDK tries: standard retries (3 attempts, exponential backoff with jitter from
/// 50 ms), each attempt cut at 2 s and the whole operation at 6 s, so that a slow or
/// throttled request fails while the function (10 s timeout) can still answer a clean 503.
pub fn sdk_retry_and_timeouts() -> (
    aws_config::retry::RetryConfig,
    aws_config::timeout::TimeoutConfig,
) {
    use std::time::Duration;
    let retry = aws_config::retry::RetryConfig::standard()
        .with_max_attempts(3)
        .with_initial_backoff(Duration::from_millis(50));
    let timeouts = aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(Duration::from_secs(2))
        .operation_timeout(Duration::from_secs(6))
        .build();
    (retry, timeouts)
}

/// The HTTP client of every AWS SDK client: hyper with rustls on ring. The SDK's default
/// (`default-https-client`) is the same stack on aws-lc-rs, about 1.5 MB more per binary; the
/// crates are built without it, so nothing can fall back to a second TLS stack.
pub fn https_client() -> aws_sdk_dynamodb::config::SharedHttpClient {
    use aws_smithy_http_client::tls;
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https()
}

/// The AWS SDK configuration from the environment (region, credentials, `AWS_ENDPOINT_URL`),
/// with this project's HTTP client and retry and timeout settings.
pub async fn aws_config() -> aws_config::SdkConfig {
    let (retry, timeouts) = sdk_retry_and_timeouts();
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(https_client())
        .retry_config(retry)
        .timeout_config(timeouts)
        .load()
        .await
}

/// Answers from this size up are gzipped for a client that accepts gzip. Smaller ones are not
/// worth the time; a 10,000-client list (6.3 MB as a Lambda answer, over Lambda's 6 MB limit)
/// becomes 0.22 MB (docs/performance.md).
pub const COMPRESS_FROM_BYTES: u16 = 32 * 1024;

/// Adds what every function's router has: trace ids, problem+json for unknown routes, and
/// gzip for large answers (lambda_http sends a `content-encoding` answer base64-encoded).
pub fn finish(router: Router) -> Router {
    use tower_http::compression::{CompressionLayer, CompressionLevel, predicate::SizeAbove};
    router
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(axum::middleware::from_fn(crate::trace::layer))
        .layer(
            CompressionLayer::new()
                .quality(CompressionLevel::Fastest)
                .compress_when(SizeAbove::new(COMPRESS_FROM_BYTES)),
        )
}

/// What every Lambda builds once at cold start: configuration, SDK settings, the DynamoDB
/// store and the session check. Functions take the narrow store traits they need from it.
pub struct Platform {
    pub config: crate::config::Config,
    pub sdk: aws_config::SdkConfig,
    pub store: std::sync::Arc<crate::store::dynamo::DynamoStore>,
    pub authenticator: crate::auth::Authenticator,
}

impl Platform {
    pub async fn from_env() -> Result<Self, crate::store::BoxError> {
        let config = crate::config::Config::from_env()?;
        let sdk = aws_config().await;
        let store = std::sync::Arc::new(crate::store::dynamo::DynamoStore::new(
            crate::store::dynamo::client_from(&sdk),
            config.tables.clone(),
        ));
        let authenticator = crate::auth::Authenticator {
            sessions: store.clone(),
            clock: std::sync::Arc::new(crate::clock::SystemClock),
            rules: config.auth.clone(),
        };
        Ok(Self {
            config,
            sdk,
            store,
            authenticator,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_requests_give_up_well_inside_the_lambda_timeout() {
        let (retry, timeouts) = sdk_retry_and_timeouts();
        assert_eq!(retry.mode(), aws_config::retry::RetryMode::Standard);
        assert_eq!(retry.max_attempts(), 3);
        let template: serde_yaml::Value =
            serde_yaml::from_str(crate::store::schema::TEMPLATE).unwrap();
        let lambda_timeout = template["Globals"]["Function"]["Timeout"].as_u64().unwrap();
        let operation = timeouts.operation_timeout().unwrap();
        let attempt = timeouts.operation_attempt_timeout().unwrap();
        assert!(attempt < operation);
        assert!(
            operation.as_secs() + 2 <= lambda_timeout,
            "an operation that times out leaves the function time to answer"
        );
    }
}
