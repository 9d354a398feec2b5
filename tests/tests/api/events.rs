//! Every sample event in `events/` goes through its own function as Lambda delivers it: API
//! Gateway events through the function's router (lambda_http's HTTP API v2 decoding), the
//! scheduled event through the scheduler's handler.

use axum::Router;
use http::StatusCode;
use integration_tests::{
    Backend, ENDPOINTS, Endpoint, SCHEDULED_EVENT, sample_event, spawn_app, start_time,
};
use tower::ServiceExt;

async fn invoke(router: Router, text: &str) -> (StatusCode, http::HeaderMap) {
    let request = lambda_http::request::from_str(text).expect("a valid API Gateway v2 event");
    let request = request.map(|body| axum::body::Body::from(body.to_vec()));
    let response = router.oneshot(request).await.unwrap();
    (response.status(), response.headers().clone())
}

#[tokio::test]
async fn the_scheduled_event_runs_one_scheduler_pass() {
    let app = spawn_app(Backend::Memory).await;
    // The demo fixture's two entries are due at 2026-11-24T10:00Z, 11:00 in Stockholm.
    app.clock.set("2026-11-24T10:00:00Z".parse().unwrap());
    let payload: serde_json::Value = serde_json::from_str(&sample_event(SCHEDULED_EVENT)).unwrap();
    let mut context = lambda_runtime::Context::default();
    context.deadline = u64::try_from(
        (std::time::SystemTime::now() + std::time::Duration::from_secs(300))
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let report = app
        .api
        .scheduler()
        .handle(lambda_runtime::LambdaEvent::new(payload, context))
        .await
        .expect("the pass succeeds");
    assert_eq!((report.due, report.sent, report.failed), (2, 2, 0));
    assert!(
        report.dispatched.is_empty(),
        "the Lambda's answer carries counts, not personal data"
    );
}

#[tokio::test]
async fn every_sample_event_is_answered_by_its_functions_router() {
    let app = spawn_app(Backend::Memory).await;
    let token = app.login("+46701000001").await;
    let router = |function: &str| {
        let routes = match function {
            "authentication" => authentication::routes(app.api.auth_state()),
            "phone-calls" => phone_calls::routes(app.api.phone_calls_state()),
            "clients" => clients::routes(app.api.clients_state()),
            "portals" => portals::routes(app.api.portals_state()),
            "contact-details" => contact_details::routes(app.api.contact_details_state()),
            "questionnaires" => questionnaires::routes(app.api.questionnaires_state()),
            "organisations" => organisations::routes(app.api.organisations_state()),
            "integrations" => integrations::routes(app.api.integrations_state()),
            "access-log" => access_log::routes(app.api.access_log_state()),
            other => panic!("no function {other}"),
        };
        shared::runtime::finish(routes)
    };
    let dir = format!("{}/../events", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".json")
                .to_string()
        })
        .collect();
    files.sort();
    let mut named: Vec<String> = ENDPOINTS
        .iter()
        .map(|endpoint| endpoint.event.to_string())
        .collect();
    named.push(SCHEDULED_EVENT.to_string());
    named.sort();
    assert_eq!(files, named, "every event file has a case here");
    for Endpoint {
        event: name,
        function,
        status: expected,
        ..
    } in ENDPOINTS
    {
        let event = app.prepared_event(name, &token, start_time().timestamp());
        let (status, headers) = invoke(router(function), &event).await;
        assert_eq!(status.as_u16(), *expected, "{name}");
        // The trace id is API Gateway's request id, so logs and problems match the access log.
        assert_eq!(
            headers["x-trace-id"],
            format!("evt-{name}").as_str(),
            "{name}"
        );
    }
}
