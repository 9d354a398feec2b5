//! Lambda entry point of the portals function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = portals::PortalsState::for_lambda(&platform).await?;
    let router = portals::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
