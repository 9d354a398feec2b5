//! Lambda entry point of the questionnaires function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    let platform = shared::entry::start().await?;
    let state = questionnaires::QuestionnairesState::new(&platform.services);
    shared::entry::serve_http(questionnaires::routes(state)).await
}
