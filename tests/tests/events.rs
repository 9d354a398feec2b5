//! Every sample event in `events/` goes through its own function as Lambda delivers it: API
//! Gateway events through the function's router (lambda_http's HTTP API v2 decoding), the
//! scheduled event through the scheduler's handler.

use axum::Router;
use http::StatusCode;
use integration_tests::{Backend, spawn_app};
use tower::ServiceExt;

fn event(name: &str) -> String {
    let path = format!("{}/../events/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The secrets a sample event's placeholders stand for.
struct Secrets<'a> {
    token: &'a str,
    import_secret: &'a str,
    webhook_secret: &'a str,
}

async fn invoke(
    router: Router,
    name: &str,
    secrets: &Secrets<'_>,
) -> (StatusCode, http::HeaderMap) {
    let mut text = event(name)
        .replace("REPLACE_WITH_A_SESSION_TOKEN", secrets.token)
        .replace(
            "REPLACE_WITH_THE_PORTAL_IMPORT_SECRET",
            secrets.import_secret,
        );
    if text.contains("REPLACE_WITH_A_SIGNATURE") {
        // Signed over the body as delivered, at the test clock's now.
        let payload: serde_json::Value = serde_json::from_str(&text).unwrap();
        let body = payload["body"].as_str().unwrap();
        let signature = shared::webhook::signature_header(
            secrets.webhook_secret,
            integration_tests::start_time().timestamp(),
            body.as_bytes(),
        );
        text = text.replace("REPLACE_WITH_A_SIGNATURE", &signature);
    }
    let request = lambda_http::request::from_str(&text).expect("a valid API Gateway v2 event");
    let request = request.map(|body| axum::body::Body::from(body.to_vec()));
    let response = router.oneshot(request).await.unwrap();
    (response.status(), response.headers().clone())
}

/// The EventBridge event that runs the questionnaire scheduler.
const SCHEDULED: &str = "questionnaire-scheduler-scheduled";

#[tokio::test]
async fn the_scheduled_event_runs_one_scheduler_pass() {
    let app = spawn_app(Backend::Memory).await;
    // The demo fixture's two entries are due at 2026-11-24T10:00Z, 11:00 in Stockholm.
    app.clock.set("2026-11-24T10:00:00Z".parse().unwrap());
    let payload: serde_json::Value = serde_json::from_str(&event(SCHEDULED)).unwrap();
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
    let auth = || authentication::router(app.api.auth_state());
    let calls = || phone_calls::router(app.api.phone_calls_state());
    let clients = || clients::router(app.api.clients_state());
    let portals = || portals::router(app.api.portals_state());
    let contacts = || contact_details::router(app.api.contact_details_state());
    let questionnaires = || questionnaires::router(app.api.questionnaires_state());
    let organisations = || organisations::router(app.api.organisations_state());
    let integrations = || integrations::router(app.api.integrations_state());
    let cases = [
        ("authentication-request-otp", auth(), StatusCode::ACCEPTED),
        (
            "authentication-validate-otp",
            auth(),
            StatusCode::UNAUTHORIZED,
        ),
        ("phone-calls-get", calls(), StatusCode::OK),
        ("phone-calls-requests", calls(), StatusCode::OK),
        ("clients-list", clients(), StatusCode::OK),
        ("clients-patch", clients(), StatusCode::OK),
        ("portals-get", portals(), StatusCode::OK),
        ("portals-import-clients", portals(), StatusCode::OK),
        ("contact-details-list", contacts(), StatusCode::OK),
        ("contact-details-get", contacts(), StatusCode::OK),
        ("contact-details-active", contacts(), StatusCode::OK),
        ("contact-details-put", contacts(), StatusCode::OK),
        ("questionnaires-list", questionnaires(), StatusCode::OK),
        ("questionnaires-get", questionnaires(), StatusCode::OK),
        (
            "questionnaires-add-question",
            questionnaires(),
            StatusCode::CREATED,
        ),
        (
            "questionnaires-start-for-clients",
            questionnaires(),
            StatusCode::OK,
        ),
        (
            "organisations-suggest-unknown-client",
            organisations(),
            StatusCode::OK,
        ),
        (
            "organisations-fix-unknown-client",
            organisations(),
            StatusCode::OK,
        ),
        (
            "integrations-voice-call-ended",
            integrations(),
            StatusCode::OK,
        ),
        (
            "integrations-voice-call-analyzed",
            integrations(),
            StatusCode::OK,
        ),
        ("authentication-logout", auth(), StatusCode::NO_CONTENT),
    ];
    let secrets = Secrets {
        token: &token,
        import_secret: &app.api.import_secret(1),
        webhook_secret: &app.api.webhook_secret(1),
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
    let mut named: Vec<String> = cases.iter().map(|(name, ..)| name.to_string()).collect();
    named.push(SCHEDULED.to_string());
    named.sort();
    assert_eq!(files, named, "every event file has a case here");
    for (name, router, expected) in cases {
        let (status, headers) = invoke(router, name, &secrets).await;
        assert_eq!(status, expected, "{name}");
        // The trace id is API Gateway's request id, so logs and problems match the access log.
        assert_eq!(
            headers["x-trace-id"],
            format!("evt-{name}").as_str(),
            "{name}"
        );
    }
}
