//! Lambda entry point of the access-log function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = access_log::AccessLogState::new(&platform.services);
    shared::entry::serve_http(access_log::routes(state)).await
}
