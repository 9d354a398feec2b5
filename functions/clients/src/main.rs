//! Lambda entry point of the clients function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = clients::ClientsState::new(&platform.services);
    lambda_http::run(shared::runtime::with_metrics(clients::router(state))?).await
}
