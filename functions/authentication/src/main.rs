//! Lambda entry point of the authentication function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = authentication::AuthState::for_lambda(&platform).await?;
    let router = authentication::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
