//! Start-up wiring shared by every function binary: tracing, the AWS SDK configuration, and
//! the layers every router gets.

use axum::Router;

use crate::error::ApiError;
use crate::store::Narrow;

/// How a function logs, from Lambda's own log controls (the template's `LoggingConfig`) as the
/// Rust runtime's default subscriber reads them: `AWS_LAMBDA_LOG_FORMAT` (`JSON` or `Text`;
/// unset means JSON on Lambda, text elsewhere) and `AWS_LAMBDA_LOG_LEVEL` (`TRACE` to `FATAL`).
/// `RUST_LOG`, when set, is the filter instead: a developer's finer per-module directives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    pub json: bool,
    pub filter: String,
}

impl LogSettings {
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let json = match lookup("AWS_LAMBDA_LOG_FORMAT") {
            Some(format) if format.eq_ignore_ascii_case("json") => true,
            Some(format) if format.eq_ignore_ascii_case("text") => false,
            _ => lookup("AWS_LAMBDA_FUNCTION_NAME").is_some(),
        };
        let level = lookup("AWS_LAMBDA_LOG_LEVEL").map(|level| {
            match level.to_ascii_lowercase().as_str() {
                // tracing has no FATAL: its errors are the nearest.
                "fatal" => "error".to_string(),
                level @ ("trace" | "debug" | "info" | "warn" | "error") => level.to_string(),
                _ => "info".to_string(),
            }
        });
        let filter = lookup("RUST_LOG")
            .filter(|filter| !filter.trim().is_empty())
            .or(level)
            .unwrap_or_else(|| "info".to_string());
        Self { json, filter }
    }
}

/// Starts logging as `LogSettings` says; JSON lines carry the `request` span's trace and
/// Lambda request ids. The filter is `Targets` (`info`, `shared=debug,warn`): `RUST_LOG`'s
/// per-module directives without `EnvFilter`'s span and field matching, whose regex engine
/// would cost every binary about 65 KB (docs/performance.md).
pub fn init_tracing() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let settings = LogSettings::from_lookup(|name| std::env::var(name).ok());
    let filter: tracing_subscriber::filter::Targets =
        settings.filter.parse().unwrap_or_else(|_| {
            tracing_subscriber::filter::Targets::new().with_default(tracing::Level::INFO)
        });
    let registry = tracing_subscriber::registry().with(filter);
    if settings.json {
        registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_current_span(true)
                    .with_span_list(false)
                    .without_time()
                    .with_target(false),
            )
            .init();
    } else {
        registry.with(tracing_subscriber::fmt::layer()).init();
    }
}

/// Installs the business metrics' recorder (`metrics::install`) and wraps a function's service so
/// that what an invocation recorded is flushed to stdout as it ends: every main does it, around
/// its router or its event handler.
///
/// `metrics_cloudwatch_embedded`'s own Lambda integration is built on newer `lambda_runtime`
/// and `lambda_http` releases than this workspace's, so the flush is this wrapper's.
pub fn with_metrics<S>(service: S) -> Result<FlushMetrics<S>, crate::store::BoxError> {
    let collector = crate::metrics::install(|name| std::env::var(name).ok())?;
    Ok(FlushMetrics {
        inner: service,
        collector,
    })
}

/// A service that flushes the business metrics when each call's answer is ready, before the
/// runtime posts it: once the runtime has posted it and asks for the next event, Lambda may
/// freeze the process, and lines written after that would land in a later invocation's log,
/// if at all.
#[derive(Clone)]
pub struct FlushMetrics<S> {
    inner: S,
    collector: &'static metrics_cloudwatch_embedded::Collector,
}

/// What an invocation's metrics are labelled with, from the event the runtime passes in.
pub trait Invocation {
    fn invocation_ids(&self) -> crate::metrics::InvocationIds;
}

impl<B> Invocation for http::Request<B> {
    fn invocation_ids(&self) -> crate::metrics::InvocationIds {
        let context = self.extensions().get::<lambda_http::Context>();
        let trace_id = match self
            .extensions()
            .get::<lambda_http::request::RequestContext>()
        {
            Some(lambda_http::request::RequestContext::ApiGatewayV2(context)) => {
                context.request_id.clone()
            }
            _ => None,
        };
        crate::metrics::InvocationIds {
            request_id: context.map(|context| context.request_id.clone()),
            xray_trace_id: context.and_then(|context| context.xray_trace_id.clone()),
            trace_id,
        }
    }
}

impl<T> Invocation for lambda_http::LambdaEvent<T> {
    fn invocation_ids(&self) -> crate::metrics::InvocationIds {
        crate::metrics::InvocationIds {
            request_id: Some(self.context.request_id.clone()),
            xray_trace_id: self.context.xray_trace_id.clone(),
            trace_id: None,
        }
    }
}

impl<S, R> lambda_http::Service<R> for FlushMetrics<S>
where
    S: lambda_http::Service<R>,
    R: Invocation,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Flushing<S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let ids = request.invocation_ids();
        Flushing {
            inner: Box::pin(self.inner.call(request)),
            flush: Some((self.collector, ids)),
        }
    }
}

/// The answer of a `FlushMetrics` call: the inner answer, the metrics flushed as it is ready.
pub struct Flushing<F> {
    inner: std::pin::Pin<Box<F>>,
    flush: Option<(
        &'static metrics_cloudwatch_embedded::Collector,
        crate::metrics::InvocationIds,
    )>,
}

impl<F: std::future::Future> std::future::Future for Flushing<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let answer = std::task::ready!(self.inner.as_mut().poll(cx));
        if let Some((collector, ids)) = self.flush.take() {
            crate::metrics::flush_to_stdout(collector, &ids);
        }
        std::task::Poll::Ready(answer)
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

/// The AWS SDK configuration a Lambda builds at start, from what Lambda puts in its
/// environment: the region (`AWS_REGION`), the execution role's credentials
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) and, for moto and
/// `sam local`, `AWS_ENDPOINT_URL`; with this project's HTTP client, retries and timeouts.
///
/// Not aws-config's default chain (`aws_config`, below, which `local-api` uses): its profile
/// files, web identity through STS, container and instance metadata never apply on Lambda,
/// and linking them cost every function 0.72 MB (docs/performance.md).
pub fn lambda_sdk_config(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<aws_config::SdkConfig, crate::config::ConfigError> {
    let set = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
    let region = set("AWS_REGION")
        .or_else(|| set("AWS_DEFAULT_REGION"))
        .ok_or(crate::config::ConfigError {
            name: "AWS_REGION",
            problem: "is not set (Lambda sets it for every function)".into(),
        })?;
    let (retry, timeouts) = sdk_retry_and_timeouts();
    let mut builder = aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(region))
        .credentials_provider(aws_sdk_dynamodb::config::SharedCredentialsProvider::new(
            aws_config::environment::EnvironmentVariableCredentialsProvider::new(),
        ))
        .http_client(https_client())
        .retry_config(retry)
        .timeout_config(timeouts);
    if let Some(endpoint) = set("AWS_ENDPOINT_URL") {
        builder = builder.endpoint_url(endpoint);
    }
    Ok(builder.build())
}

/// The AWS SDK configuration from aws-config's default chain (profiles included), for
/// `local-api` on a developer's machine; with this project's HTTP client and retry and timeout
/// settings.
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
/// handlers read. Each function's state takes from it the narrow store traits it uses
/// (`store::Narrow`): a Lambda's `S` is its concrete store, `local-api`'s is `dyn Store`.
pub struct Services<S: ?Sized = dyn crate::store::Store> {
    pub store: std::sync::Arc<S>,
    /// Where the access layer appends its records: the store's own log, unless a test puts a
    /// failing one in its place.
    pub access_log: std::sync::Arc<dyn crate::store::AccessLogWriter>,
    /// Where the access layer counts each account's reading.
    pub reading: std::sync::Arc<dyn crate::store::ReadingWatch>,
    pub clock: std::sync::Arc<dyn crate::clock::Clock>,
    pub region: crate::phone::DefaultRegion,
    /// Where the phone metadata is loaded when `PHONE_METADATA_LOAD` says; `None`: where the
    /// function asks (`phone_region`).
    pub phone_load: Option<crate::phone::MetadataLoad>,
    /// The zone portals' contact windows and calling hours are in.
    pub time_zone: crate::zone::Zone,
    pub rules: crate::config::AuthRules,
}

impl<S: ?Sized> Clone for Services<S> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
            access_log: self.access_log.clone(),
            reading: self.reading.clone(),
            clock: self.clock.clone(),
            region: self.region,
            phone_load: self.phone_load,
            time_zone: self.time_zone.clone(),
            rules: self.rules.clone(),
        }
    }
}

impl<S: ?Sized> Services<S> {
    /// Services over one store, which also keeps the access log.
    pub fn new(
        store: std::sync::Arc<S>,
        clock: std::sync::Arc<dyn crate::clock::Clock>,
        region: crate::phone::DefaultRegion,
        time_zone: crate::zone::Zone,
        rules: crate::config::AuthRules,
    ) -> Self
    where
        S: Narrow<dyn crate::store::AccessLogWriter> + Narrow<dyn crate::store::ReadingWatch>,
    {
        Self {
            access_log: store.clone().narrow(),
            reading: store.clone().narrow(),
            store,
            clock,
            region,
            phone_load: None,
            time_zone,
            rules,
        }
    }

    /// The store seen through one capability (`store::Narrow`).
    pub fn store<T: ?Sized>(&self) -> std::sync::Arc<T>
    where
        S: Narrow<T>,
    {
        self.store.clone().narrow()
    }

    /// The access-log layer of the routes that touch clients' data.
    pub fn audit(&self) -> crate::audit::AuditLog {
        crate::audit::AuditLog {
            log: self.access_log.clone(),
            clock: self.clock.clone(),
            reading: self.reading.clone(),
            rules: self.rules.reading,
        }
    }

    /// The default phone region, for a state whose handlers read phone numbers. Asking for it
    /// loads the phone metadata where `usual` says, unless `PHONE_METADATA_LOAD` says otherwise
    /// (`phone::prepare`); functions that never ask link no phone metadata.
    pub fn phone_region(&self, usual: crate::phone::MetadataLoad) -> crate::phone::DefaultRegion {
        crate::phone::prepare(self.region, self.phone_load.unwrap_or(usual));
        self.region
    }

    /// The session check every authenticated route runs.
    pub fn authenticator(&self) -> crate::auth::Authenticator
    where
        S: Narrow<dyn crate::store::SessionReader>,
    {
        crate::auth::Authenticator {
            sessions: self.store(),
            clock: self.clock.clone(),
            rules: self.rules.clone(),
        }
    }
}

/// What every Lambda builds once at cold start from its configuration: SDK settings, and the
/// services over the DynamoDB store.
pub struct Platform {
    pub sdk: aws_config::SdkConfig,
    pub services: Services<crate::store::dynamo::DynamoStore>,
}

impl Platform {
    pub async fn from_env() -> Result<Self, crate::store::BoxError> {
        let config = crate::config::Config::from_env()?;
        let sdk = lambda_sdk_config(|name| std::env::var(name).ok())?;
        let store = crate::store::dynamo::DynamoStore::new(
            crate::store::dynamo::client_from(&sdk),
            config.tables,
        );
        let mut services = Services::new(
            std::sync::Arc::new(store),
            std::sync::Arc::new(crate::clock::SystemClock),
            config.region,
            config.time_zone,
            config.auth,
        );
        services.phone_load = config.phone_load;
        Ok(Self { sdk, services })
    }

    /// A function's secret, from the environment or Secrets Manager, resolved once at start
    /// within `INIT_SECRET_BOUND`: a function that cannot read it logs why and ends its init
    /// with an error the runtime reports, well before Lambda's 10 s init limit.
    pub async fn secret(
        &self,
        plain: &'static str,
        arn: &'static str,
    ) -> Result<Vec<u8>, crate::store::BoxError> {
        let source = crate::config::secret_source(|name| std::env::var(name).ok(), plain, arn)?;
        resolve_at_start(&self.sdk, &source, plain).await
    }
}

async fn resolve_at_start(
    sdk: &aws_config::SdkConfig,
    source: &crate::config::SecretSource,
    name: &str,
) -> Result<Vec<u8>, crate::store::BoxError> {
    let sdk = sdk.to_builder().timeout_config(init_timeouts()).build();
    let failure = match tokio::time::timeout(INIT_SECRET_BOUND, source.resolve(&sdk)).await {
        Ok(Ok(secret)) => return Ok(secret.into_bytes()),
        Ok(Err(error)) => aws_sdk_secretsmanager::error::DisplayErrorContext(&*error).to_string(),
        Err(_) => format!("no answer within {} ms", INIT_SECRET_BOUND.as_millis()),
    };
    tracing::error!(secret = name, %failure, "start-up cannot read its secret");
    Err(format!("start-up cannot read the secret {name}: {failure}").into())
}

/// Start-up's whole bound on reading a secret, credentials included.
pub const INIT_SECRET_BOUND: std::time::Duration = std::time::Duration::from_millis(2500);

/// Start-up's SDK timeouts: one retry of a 1 s attempt fits `INIT_SECRET_BOUND`.
fn init_timeouts() -> aws_config::timeout::TimeoutConfig {
    use std::time::Duration;
    aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_millis(500))
        .operation_attempt_timeout(Duration::from_secs(1))
        .operation_timeout(Duration::from_secs(2))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment of these variables, as `from_lookup`-style readers take it.
    fn lookup<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    fn settings(vars: &[(&str, &str)]) -> LogSettings {
        LogSettings::from_lookup(lookup(vars))
    }

    #[test]
    fn lambdas_log_level_and_format_are_honoured_and_rust_log_overrides_the_level() {
        let lambda = ("AWS_LAMBDA_FUNCTION_NAME", "f");
        assert_eq!(
            settings(&[lambda]),
            LogSettings {
                json: true,
                filter: "info".into()
            }
        );
        assert!(!settings(&[]).json, "text off Lambda");
        assert!(!settings(&[lambda, ("AWS_LAMBDA_LOG_FORMAT", "Text")]).json);
        assert!(settings(&[("AWS_LAMBDA_LOG_FORMAT", "JSON")]).json);
        assert_eq!(
            settings(&[("AWS_LAMBDA_LOG_LEVEL", "DEBUG")]).filter,
            "debug"
        );
        assert_eq!(
            settings(&[("AWS_LAMBDA_LOG_LEVEL", "FATAL")]).filter,
            "error"
        );
        assert_eq!(settings(&[("AWS_LAMBDA_LOG_LEVEL", "LOUD")]).filter, "info");
        assert_eq!(
            settings(&[
                ("AWS_LAMBDA_LOG_LEVEL", "WARN"),
                ("RUST_LOG", "shared=debug")
            ])
            .filter,
            "shared=debug"
        );
    }

    #[test]
    fn every_filter_the_settings_give_and_rust_logs_directives_parse_as_targets() {
        use tracing::Level;
        use tracing_subscriber::filter::Targets;
        for level in ["trace", "debug", "info", "warn", "error"] {
            let filter: Targets = level.parse().unwrap();
            let level: Level = level.parse().unwrap();
            assert_eq!(filter.default_level(), Some(level.into()));
        }
        let filter: Targets = "shared=debug,warn".parse().unwrap();
        assert!(filter.would_enable("shared::store", &Level::DEBUG));
        assert!(!filter.would_enable("hyper", &Level::INFO));
        assert!(filter.would_enable("hyper", &Level::WARN));
    }

    #[tokio::test]
    async fn a_secret_read_that_gets_no_answer_ends_start_up_within_three_seconds() {
        // A listener that never accepts: connections are made, requests never answered.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let sdk = aws_config::SdkConfig::builder()
            .endpoint_url(format!("http://{}", silent.local_addr().unwrap()))
            .region(aws_config::Region::new("eu-north-1"))
            .credentials_provider(aws_sdk_dynamodb::config::SharedCredentialsProvider::new(
                aws_sdk_dynamodb::config::Credentials::new("test", "test", None, None, "test"),
            ))
            .http_client(https_client())
            .retry_config(sdk_retry_and_timeouts().0)
            .timeout_config(sdk_retry_and_timeouts().1)
            .behavior_version(aws_config::BehaviorVersion::latest())
            .build();
        let source = crate::config::SecretSource::SecretsManager("arn:silent".into());
        let started = std::time::Instant::now();
        let error = resolve_at_start(&sdk, &source, "OTP_HASH_KEY")
            .await
            .unwrap_err();
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(3), "{took:?}");
        assert!(
            error
                .to_string()
                .starts_with("start-up cannot read the secret OTP_HASH_KEY"),
            "{error}"
        );
    }

    #[test]
    fn a_lambdas_sdk_config_comes_from_lambdas_environment_alone() {
        let sdk = lambda_sdk_config(lookup(&[
            ("AWS_REGION", "eu-north-1"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:5000"),
        ]))
        .unwrap();
        assert_eq!(sdk.region().map(|r| r.as_ref()), Some("eu-north-1"));
        assert_eq!(sdk.endpoint_url(), Some("http://127.0.0.1:5000"));
        assert!(sdk.credentials_provider().is_some());
        assert_eq!(sdk.retry_config().map(|r| r.max_attempts()), Some(3));

        let sdk = lambda_sdk_config(lookup(&[
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_ENDPOINT_URL", " "),
        ]))
        .unwrap();
        assert_eq!(sdk.region().map(|r| r.as_ref()), Some("eu-west-1"));
        assert_eq!(sdk.endpoint_url(), None);

        let missing = lambda_sdk_config(lookup(&[])).unwrap_err();
        assert_eq!(missing.name, "AWS_REGION");
    }

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
