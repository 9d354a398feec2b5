//! Lambda entry point of the organisations function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = organisations::OrganisationsState::for_lambda(&platform);
    shared::entry::serve_http(organisations::routes(state)).await
}
