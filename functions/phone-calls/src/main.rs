//! Lambda entry point of the phone-calls function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = phone_calls::PhoneCallsState::new(&platform.services);
    shared::entry::serve_http(phone_calls::routes(state)).await
}
