//! Lambda entry point of the authentication function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = authentication::AuthState::for_lambda(&platform).await?;
    shared::entry::serve_http(authentication::routes(state)).await
}
