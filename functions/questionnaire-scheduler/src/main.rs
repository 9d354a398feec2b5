//! Lambda entry point of the questionnaire scheduler (EventBridge schedule, no HTTP).

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    let platform = shared::entry::start().await?;
    let scheduler = questionnaire_scheduler::Scheduler::for_lambda(&platform)?;
    let scheduler = &scheduler;
    let handler = lambda_runtime::service_fn(move |event| scheduler.handle(event));
    lambda_runtime::run(shared::runtime::with_metrics(handler)?).await
}
