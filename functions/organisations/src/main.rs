//! Lambda entry point of the organisations function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = organisations::OrganisationsState::for_lambda(&platform);
    let router = organisations::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
