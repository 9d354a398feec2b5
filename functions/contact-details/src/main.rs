//! Lambda entry point of the contact-details function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = contact_details::ContactDetailsState::for_lambda(&platform);
    let router = contact_details::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
