//! Lambda entry point of the phone-calls function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = phone_calls::PhoneCallsState::new(&platform.services);
    let router = phone_calls::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
