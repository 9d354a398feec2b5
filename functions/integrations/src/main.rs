//! Lambda entry point of the integrations function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = integrations::IntegrationsState::for_lambda(&platform).await?;
    shared::entry::serve_http(integrations::routes(state)).await
}
