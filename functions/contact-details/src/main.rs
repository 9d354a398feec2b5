//! Lambda entry point of the contact-details function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = contact_details::ContactDetailsState::for_lambda(&platform);
    shared::entry::serve_http(contact_details::routes(state)).await
}
