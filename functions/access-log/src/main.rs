//! Lambda entry point of the access-log function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = access_log::AccessLogState::new(&platform.services);
    let router = access_log::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
