//! Lambda entry point of the clients function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = clients::ClientsState::new(&platform.services);
    let router = clients::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
