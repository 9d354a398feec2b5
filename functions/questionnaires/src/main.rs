//! Lambda entry point of the questionnaires function.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::runtime::init_tracing();
    let platform = shared::runtime::Platform::from_env().await?;
    let state = questionnaires::QuestionnairesState::new(&platform.services);
    let router = questionnaires::router(state);
    lambda_http::run(shared::runtime::with_metrics(router)?).await
}
