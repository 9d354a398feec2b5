//! Lambda entry point of the questionnaires function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = questionnaires::QuestionnairesState::for_lambda(&platform);
    lambda_http::run(questionnaires::router(state)).await
}
