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
        builder
            .json()
            .with_current_span(false)
            .without_time()
            .with_target(false)
            .init();
    } else {
        builder.init();
    }
}

/// The AWS SDK configuration from the environment (region, credentials, `AWS_ENDPOINT_URL`).
pub async fn aws_config() -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .load()
        .await
}

/// Adds what every function's router has: trace ids and problem+json for unknown routes.
pub fn finish(router: Router) -> Router {
    router
        .fallback(|| async { ApiError::RouteNotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(axum::middleware::from_fn(crate::trace::layer))
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
            aws_sdk_dynamodb::Client::new(&sdk),
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
