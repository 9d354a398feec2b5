//! Who may do what, each written as the attack it stops, on both stores: questionnaires
//! another organisation owns, staff changing definitions, shared templates, invisible text in
//! names, answers caches must not keep, and a suggestion for a number that is not one. Each
//! attack fails with its stated answer and leaves the store as it was; the legitimate action
//! beside it succeeds.

use http::StatusCode;
use integration_tests::{
    Backend, TestApp, add_questionnaire_copy, error_fields, on_both_stores, spawn_app,
    spawn_app_with, without_trace,
};
use local_api::DEMO_FIXTURE;
use serde_json::{Value, json};

use crate::demo::{EMIL, KARIN, SARA};
use crate::support::{ids, spawn_logged_in};

fn question() -> Value {
    json!({"position": 1, "prompt": "Did you eat today?", "type": "yesno"})
}

fn start(client_id: i64, questionnaire_id: i64) -> Value {
    json!([{
        "clientId": client_id, "questionnaireId": questionnaire_id,
        "startDate": "2026-11-23T09:00:00Z", "interval": 2, "retries": 3,
        "intervalBackOffMultiplier": 1.5
    }])
}

async fn start_for(app: &TestApp, token: &str, questionnaire_id: i64, client: i64) -> u16 {
    let path = format!("/questionnaires/{questionnaire_id}/start-for-clients");
    app.send_json(
        http::Method::POST,
        &path,
        Some(token),
        start(client, questionnaire_id),
    )
    .await
    .status
    .as_u16()
}

/// The demo data plus questionnaire 12, a shared template (no `organisationId`).
fn fixture_with_template() -> String {
    let mut fixture: Value = serde_json::from_str(DEMO_FIXTURE).unwrap();
    add_questionnaire_copy(&mut fixture, 12, None, 51);
    fixture.to_string()
}

/// Item 1: an admin of organisation 2 inserts questions into organisation 1's running
/// questionnaire (and so fills it for everyone). It is a missing questionnaire to them.
async fn another_organisations_admin_cannot_add_questions_or_start_its_questionnaire(
    backend: Backend,
) {
    let (app, sara) = spawn_logged_in(backend, SARA).await;
    let karin = app.login(KARIN).await;
    let before = app.snapshot().await;
    let path = "/questionnaires/11/questions";
    let attack = app
        .post_json(path, Some(&sara), question())
        .await
        .problem(StatusCode::NOT_FOUND);
    let missing = app
        .post_json("/questionnaires/999/questions", Some(&sara), question())
        .await
        .problem(StatusCode::NOT_FOUND);
    assert_eq!(without_trace(attack), without_trace(missing));
    assert_eq!(start_for(&app, &sara, 11, 8).await, 404);
    let list = app.get("/questionnaires", Some(&sara)).await.json();
    assert_eq!(list, json!([]), "organisation 2 has no questionnaire");
    assert_eq!(app.snapshot().await, before, "nothing was written");

    let added = app.post_json(path, Some(&karin), question()).await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.json());
}

/// Item 1: staff of the owning organisation change a definition only admins may change; they
/// may still start the questionnaire for their own portal's clients.
async fn staff_cannot_add_questions_but_start_questionnaires_for_their_clients(backend: Backend) {
    let (app, emil) = spawn_logged_in(backend, EMIL).await;
    let before = app.snapshot().await;
    let refused = app
        .post_json("/questionnaires/11/questions", Some(&emil), question())
        .await
        .problem(StatusCode::FORBIDDEN);
    assert!(
        refused["detail"].as_str().unwrap().contains("admin"),
        "{refused}"
    );
    // A questionnaire staff cannot see is missing to them, not forbidden.
    app.post_json("/questionnaires/999/questions", Some(&emil), question())
        .await
        .problem(StatusCode::NOT_FOUND);
    assert_eq!(app.snapshot().await, before, "nothing was written");

    assert_eq!(start_for(&app, &emil, 11, 1).await, 200);
}

/// Templates are listed for every organisation and started by anyone, but changed by nobody
/// through the API.
async fn templates_are_shared_and_read_only(backend: Backend) {
    let (app, sara) = spawn_app_with(backend, &fixture_with_template())
        .await
        .logged_in(SARA)
        .await;
    let karin = app.login(KARIN).await;
    let listed = |list: Value| ids(&list, "id");
    assert_eq!(
        listed(app.get("/questionnaires", Some(&karin)).await.json()),
        [11, 12]
    );
    assert_eq!(
        listed(app.get("/questionnaires", Some(&sara)).await.json()),
        [12]
    );
    let before = app.snapshot().await;
    for token in [&karin, &sara] {
        let refused = app
            .post_json("/questionnaires/12/questions", Some(token), question())
            .await
            .problem(StatusCode::FORBIDDEN);
        assert!(
            refused["detail"].as_str().unwrap().contains("template"),
            "{refused}"
        );
    }
    assert_eq!(app.snapshot().await, before, "nothing was written");
    assert_eq!(start_for(&app, &sara, 12, 8).await, 200);
    let detail = app.get("/questionnaires/12", Some(&sara)).await.json();
    assert_eq!(detail["clients"][0]["clientId"], 8);
}

/// Item 6: a client's name written with a right-to-left override (or zero-width and other
/// invisible characters) reads differently in a staff screen: refused with a field error.
async fn names_with_invisible_format_characters_are_refused(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    let before = app.snapshot().await;
    for name in [
        "Gunnel \u{202E}nossrednA",
        "Gunnel\u{200B}Andersson",
        "\u{FEFF}Gunnel Andersson",
        "Gunnel \u{E000}",
    ] {
        let problem = app
            .patch_json("/clients/1", Some(&karin), json!({ "name": name }))
            .await
            .problem(StatusCode::BAD_REQUEST);
        assert_eq!(error_fields(&problem), ["name"], "{name:?}");
    }
    let question = json!({"position": 1, "prompt": "Hur m\u{200D}år du?", "type": "text"});
    let problem = app
        .post_json("/questionnaires/11/questions", Some(&karin), question)
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&problem), ["prompt"]);
    assert_eq!(app.snapshot().await, before, "nothing was written");

    let renamed = app
        .patch_json(
            "/clients/1",
            Some(&karin),
            json!({"name": "Gunnel Åström-Öberg"}),
        )
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.json());
}

/// Item 7: the answer carrying a session token, and every answer with personal data, must not
/// be kept by a cache or a browser; no answer may be sniffed as another content type.
async fn answers_are_not_stored_nor_sniffed(backend: Backend) {
    let app = spawn_app(backend).await;
    let issued = app.request_otp(KARIN).await;
    let request_id = issued.json()["requestId"].as_str().unwrap().to_string();
    let session = app
        .validate(KARIN, &request_id, &app.last_code(KARIN))
        .await;
    assert_eq!(session.status, StatusCode::OK);
    let token = session.json()["token"].as_str().unwrap().to_string();
    let clients = app.get("/clients", Some(&token)).await;
    let missing = app.get("/phone-calls/999999", Some(&token)).await;
    let unknown_route = app.get("/nowhere", None).await;
    for answer in [&issued, &session, &clients, &missing, &unknown_route] {
        assert_eq!(answer.headers["cache-control"], "no-store");
        assert_eq!(answer.headers["x-content-type-options"], "nosniff");
    }
}

/// Item 7: a suggestion for a `fromNumber` that is no phone number is a bad request, not a
/// search that finds nobody.
async fn a_suggestion_for_a_number_that_is_not_one_is_a_field_error(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    let path = "/organisations/suggest-unknown-client";
    let problem = app
        .post_json(
            path,
            Some(&karin),
            json!({"fromNumber": "abc", "startDate": "2026-11-20T10:00:00Z"}),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&problem), ["fromNumber"]);
    let answer = app
        .post_json(
            path,
            Some(&karin),
            json!({"fromNumber": "+46 70 123 45 67", "summary": "Gunnel Andersson ringde.",
                   "startDate": "2026-11-20T10:00:00Z"}),
        )
        .await;
    assert_ne!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.json());
}

on_both_stores!(
    another_organisations_admin_cannot_add_questions_or_start_its_questionnaire,
    staff_cannot_add_questions_but_start_questionnaires_for_their_clients,
    templates_are_shared_and_read_only,
    names_with_invisible_format_characters_are_refused,
    answers_are_not_stored_nor_sniffed,
    a_suggestion_for_a_number_that_is_not_one_is_a_field_error,
);
