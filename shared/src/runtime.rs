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

/// Headers on every answer: `nosniff`, so that no browser reads a JSON body as anything else,
/// and `no-store`, since answers carry sessions' tokens and clients' personal data that no
/// cache or browser history should keep.
async fn security_headers(mut response: axum::response::Response) -> axum::response::Response {
    use http::{HeaderValue, header};
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Adds what every function's router has: trace ids, problem+json for unknown routes, the
/// security headers, and gzip for large answers (lambda_http sends a `content-encoding` answer
/// base64-encoded).
pub fn finish(router: Router) -> Router {
    use tower_http::compression::{CompressionLayer, CompressionLevel, predicate::SizeAbove};
    router
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn(crate::trace::layer))
        .layer(
            CompressionLayer::new()
                .quality(CompressionLevel::Fastest)
                .compress_when(SizeAbove::new(COMPRESS_FROM_BYTES)),
        )
}

/// What every function state is built from, in a Lambda (`Platform::from_env`) and in
/// `local-api` alike: one store offering every capability, one clock, and the settings the
/// handlers read. Each function's state takes from it the narrow store traits it uses.
#[derive(Clone)]
pub struct Services {
    pub store: std::sync::Arc<dyn crate::store::Store>,
    /// The access log: the store's own, unless a test puts a failing one in its place.
    pub access_log: std::sync::Arc<dyn crate::store::AccessLogReader>,
    pub clock: std::sync::Arc<dyn crate::clock::Clock>,
    pub region: crate::phone::DefaultRegion,
    /// The zone portals' contact windows and calling hours are in.
    pub time_zone: crate::zone::Zone,
    pub rules: crate::config::AuthRules,
}

impl Services {
    /// Services over one store, which also keeps the access log.
    pub fn new(
        store: std::sync::Arc<dyn crate::store::Store>,
        clock: std::sync::Arc<dyn crate::clock::Clock>,
        region: crate::phone::DefaultRegion,
        time_zone: crate::zone::Zone,
        rules: crate::config::AuthRules,
    ) -> Self {
        Self {
            access_log: store.clone(),
            store,
            clock,
            region,
            time_zone,
            rules,
        }
    }

    /// The access-log layer of the routes that touch clients' data.
    pub fn audit(&self) -> crate::audit::AuditLog {
        crate::audit::AuditLog {
            log: self.access_log.clone(),
            clock: self.clock.clone(),
        }
    }

    /// The session check every authenticated route runs.
    pub fn authenticator(&self) -> crate::auth::Authenticator {
        crate::auth::Authenticator {
            sessions: self.store.clone(),
            clock: self.clock.clone(),
            rules: self.rules.clone(),
        }
    }
}

/// What every Lambda builds once at cold start from its configuration: SDK settings, and the
/// services over the DynamoDB store.
pub struct Platform {
    pub sdk: aws_config::SdkConfig,
    pub services: Services,
}

impl Platform {
    pub async fn from_env() -> Result<Self, crate::store::BoxError> {
        let config = crate::config::Config::from_env()?;
        let sdk = aws_config().await;
        let store = crate::store::dynamo::DynamoStore::new(
            crate::store::dynamo::client_from(&sdk),
            config.tables,
        );
        let services = Services::new(
            std::sync::Arc::new(store),
            std::sync::Arc::new(crate::clock::SystemClock),
            config.region,
            config.time_zone,
            config.auth,
        );
        Ok(Self { sdk, services })
    }

    /// A function's secret, from the environment or Secrets Manager, resolved once at start.
    pub async fn secret(
        &self,
        plain: &'static str,
        arn: &'static str,
    ) -> Result<Vec<u8>, crate::store::BoxError> {
        let source = crate::config::secret_source(|name| std::env::var(name).ok(), plain, arn)?;
        Ok(source.resolve(&self.sdk).await?.into_bytes())
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
