//! Lambda entry point of the integrations function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = integrations::IntegrationsState::for_lambda(&platform).await?;
    let router = integrations::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
