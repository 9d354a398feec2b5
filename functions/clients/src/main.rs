//! Lambda entry point of the clients function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = clients::ClientsState::new(&platform.services);
    shared::entry::serve_http(clients::routes(state)).await
}
