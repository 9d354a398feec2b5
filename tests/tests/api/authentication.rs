//! Authentication scenarios (DESIGN.md section 4), each on both stores.

use chrono::Duration;
use http::StatusCode;
use integration_tests::{Backend, TestApp, on_both_stores, spawn_app, without_trace};
use serde_json::{Value, json};

use crate::demo::{KARIN, NOBODY};
use crate::support::spawn_logged_in;

async fn request_id(app: &TestApp, phone: &str) -> String {
    let issued = app.request_otp(phone).await;
    assert_eq!(issued.status, StatusCode::ACCEPTED);
    issued.json()["requestId"].as_str().unwrap().to_string()
}

async fn a_correct_code_gives_a_bearer_session_within_the_request_budget(backend: Backend) {
    let app = spawn_app(backend).await;
    let issued = app.request_otp("070-100 00 01").await;
    assert_eq!(issued.status, StatusCode::ACCEPTED);
    let body = issued.json();
    assert_eq!(body["expiresAt"], "2026-11-20T12:10:00Z");
    app.expect_requests(&[("BatchGetItem", 1), ("TransactWriteItems", 1)]);

    let request_id = body["requestId"].as_str().unwrap();
    let session = app.validate(KARIN, request_id, &app.last_code(KARIN)).await;
    assert_eq!(session.status, StatusCode::OK);
    let session = session.json();
    assert_eq!(session["tokenType"], "Bearer");
    assert_eq!(session["token"].as_str().unwrap().len(), 43);
    assert_eq!(session["expiresAt"], "2026-11-21T00:00:00Z");
    assert_eq!(
        session["account"],
        json!({
            "id": 1, "name": "Karin Nyström", "phoneNumber": KARIN, "portalId": 1,
            "role": "admin"
        })
    );
    app.expect_requests(&[("BatchGetItem", 1), ("TransactWriteItems", 1)]);
}

async fn a_code_expires_after_ten_minutes(backend: Backend) {
    let app = spawn_app(backend).await;
    let request_id = request_id(&app, KARIN).await;
    app.clock.advance(Duration::minutes(10));
    let late = app
        .validate(KARIN, &request_id, &app.last_code(KARIN))
        .await;
    late.problem(StatusCode::UNAUTHORIZED);
}

async fn a_code_works_only_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let request_id = request_id(&app, KARIN).await;
    let code = app.last_code(KARIN);
    assert_eq!(
        app.validate(KARIN, &request_id, &code).await.status,
        StatusCode::OK
    );
    let again = app.validate(KARIN, &request_id, &code).await;
    again.problem(StatusCode::UNAUTHORIZED);
}

async fn five_wrong_codes_kill_the_request(backend: Backend) {
    let app = spawn_app(backend).await;
    let request_id = request_id(&app, KARIN).await;
    let code = app.last_code(KARIN);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        let answer = app.validate(KARIN, &request_id, wrong).await;
        answer.problem(StatusCode::UNAUTHORIZED);
    }
    let killed = app.validate(KARIN, &request_id, &code).await;
    killed.problem(StatusCode::TOO_MANY_REQUESTS);
    assert!(killed.headers.contains_key("retry-after"));
}

async fn a_new_code_replaces_the_previous_one(backend: Backend) {
    let app = spawn_app(backend).await;
    let first = request_id(&app, KARIN).await;
    let first_code = app.last_code(KARIN);
    let second = request_id(&app, KARIN).await;
    let old = app.validate(KARIN, &first, &first_code).await;
    old.problem(StatusCode::UNAUTHORIZED);
    let current = app.validate(KARIN, &second, &app.last_code(KARIN)).await;
    assert_eq!(current.status, StatusCode::OK);
}

async fn at_most_five_codes_per_number_per_hour(backend: Backend) {
    let app = spawn_app(backend).await;
    for phone in [KARIN, NOBODY] {
        for minute in 0..5 {
            request_id(&app, phone).await;
            app.clock.advance(Duration::minutes(minute));
        }
        let limited = app.request_otp(phone).await;
        limited.problem(StatusCode::TOO_MANY_REQUESTS);
        let retry = limited.retry_after();
        assert!((1..=3600).contains(&retry), "retry-after {retry}");
        app.clock.advance(Duration::seconds(retry));
        assert_eq!(app.request_otp(phone).await.status, StatusCode::ACCEPTED);
        app.clock.advance(Duration::hours(2));
    }
}

async fn unknown_numbers_get_the_same_answers_and_no_message(backend: Backend) {
    let app = spawn_app(backend).await;
    let known = app.request_otp(KARIN).await;
    let unknown = app.request_otp(NOBODY).await;
    assert_eq!(known.status, unknown.status);
    let keys = |v: Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(known.json()), keys(unknown.json()));
    assert!(app.api.outbox.messages().iter().all(|m| m.to != NOBODY));

    let nobody_id = unknown.json()["requestId"].as_str().unwrap().to_string();
    let karin_id = known.json()["requestId"].as_str().unwrap().to_string();
    let for_nobody = app.validate(NOBODY, &nobody_id, "123456").await;
    let for_karin = app.validate(KARIN, &karin_id, "123456").await;
    let wrong_request = app.validate(KARIN, "not-the-request", "123456").await;
    let a = without_trace(for_nobody.problem(StatusCode::UNAUTHORIZED));
    let b = without_trace(wrong_request.problem(StatusCode::UNAUTHORIZED));
    assert_eq!(a, b);
    if app.last_code(KARIN) != "123456" {
        assert_eq!(
            a,
            without_trace(for_karin.problem(StatusCode::UNAUTHORIZED))
        );
    }
}

async fn logout_ends_only_the_current_session(backend: Backend) {
    let (app, first) = spawn_logged_in(backend, KARIN).await;
    let second = app.login(KARIN).await;
    app.take_dynamo_requests();
    let out = app
        .post_json(
            "/authentication/logout",
            Some(&first),
            json!({"all": false}),
        )
        .await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    app.expect_requests(&[("GetItem", 1), ("DeleteItem", 1)]);
    app.get("/phone-calls/1001", Some(&first))
        .await
        .problem(StatusCode::UNAUTHORIZED);
    assert_eq!(
        app.get("/phone-calls/1001", Some(&second)).await.status,
        StatusCode::OK
    );
}

async fn logout_of_all_ends_every_session_of_the_account(backend: Backend) {
    let (app, first) = spawn_logged_in(backend, KARIN).await;
    let second = app.login(KARIN).await;
    let other_account = app.login("+46701000002").await;
    app.take_dynamo_requests();
    let out = app
        .post_json("/authentication/logout", Some(&first), json!({"all": true}))
        .await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    // Session check, the account's session index, one transaction deleting both sessions.
    app.expect_requests(&[("GetItem", 2), ("TransactWriteItems", 1)]);
    for token in [&first, &second] {
        app.get("/phone-calls/1001", Some(token))
            .await
            .problem(StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        app.get("/phone-calls/2001", Some(&other_account))
            .await
            .status,
        StatusCode::OK
    );
}

async fn sessions_end_after_two_idle_hours_and_after_twelve_hours_in_all(backend: Backend) {
    let (app, idle) = spawn_logged_in(backend, KARIN).await;
    let busy = app.login(KARIN).await;
    for _ in 0..11 {
        app.clock.advance(Duration::hours(1));
        assert_eq!(
            app.get("/phone-calls/1001", Some(&busy)).await.status,
            StatusCode::OK
        );
    }
    app.get("/phone-calls/1001", Some(&idle))
        .await
        .problem(StatusCode::UNAUTHORIZED);
    app.clock.advance(Duration::hours(1));
    app.get("/phone-calls/1001", Some(&busy))
        .await
        .problem(StatusCode::UNAUTHORIZED);
}

async fn tampered_missing_and_foreign_credentials_get_the_same_401(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    // One character changed at every position, one cut off, one added.
    let mut forged: Vec<String> = (0..token.len())
        .map(|i| {
            let mut bytes = token.clone().into_bytes();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            String::from_utf8(bytes).unwrap()
        })
        .collect();
    forged.push(token[..token.len() - 1].to_string());
    forged.push(format!("{token}A"));
    let mut answers = vec![
        app.get("/phone-calls/1001", None).await,
        app.get("/phone-calls/1001", Some("")).await,
    ];
    for forgery in &forged {
        answers.push(app.get("/phone-calls/1001", Some(forgery)).await);
    }
    let basic = app
        .send(
            http::Request::get("/phone-calls/1001")
                .header("authorization", format!("Basic {token}"))
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    let first = without_trace(answers[0].problem(StatusCode::UNAUTHORIZED));
    for answer in answers.iter().chain([&basic]) {
        assert_eq!(
            without_trace(answer.problem(StatusCode::UNAUTHORIZED)),
            first
        );
    }
}

/// Every login of one account (a code every 13 minutes, inside the hourly limit) gets a token
/// no other login got. DynamoDB runs fewer logins: each costs moto about 5 requests.
async fn every_login_gets_a_token_of_its_own(backend: Backend) {
    let logins = match backend {
        Backend::Memory => 10_000,
        Backend::DynamoDb => 1_000,
    };
    let app = spawn_app(backend).await;
    let mut tokens = std::collections::HashSet::new();
    for _ in 0..logins {
        app.clock.advance(Duration::minutes(13));
        let token = app.login(KARIN).await;
        assert_eq!(token.len(), 43, "256 bits, base64url without padding");
        assert!(tokens.insert(token), "a token came twice");
    }
    assert_eq!(tokens.len(), logins);
}

async fn twenty_concurrent_validations_of_one_code_create_one_session(backend: Backend) {
    let app = spawn_app(backend).await;
    let request_id = request_id(&app, KARIN).await;
    let code = app.last_code(KARIN);
    let answers =
        futures::future::join_all((0..20).map(|_| app.validate(KARIN, &request_id, &code))).await;
    let ok = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .count();
    assert_eq!(ok, 1);
    assert!(
        answers
            .iter()
            .all(|a| a.status == StatusCode::OK || a.status == StatusCode::UNAUTHORIZED)
    );
}

on_both_stores!(
    a_correct_code_gives_a_bearer_session_within_the_request_budget,
    a_code_expires_after_ten_minutes,
    a_code_works_only_once,
    five_wrong_codes_kill_the_request,
    a_new_code_replaces_the_previous_one,
    at_most_five_codes_per_number_per_hour,
    unknown_numbers_get_the_same_answers_and_no_message,
    logout_ends_only_the_current_session,
    logout_of_all_ends_every_session_of_the_account,
    sessions_end_after_two_idle_hours_and_after_twelve_hours_in_all,
    tampered_missing_and_foreign_credentials_get_the_same_401,
    every_login_gets_a_token_of_its_own,
    twenty_concurrent_validations_of_one_code_create_one_session,
);
