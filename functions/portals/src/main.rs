//! Lambda entry point of the portals function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = portals::PortalsState::for_lambda(&platform).await?;
    shared::entry::serve_http(portals::routes(state)).await
}
