//! Helpers more than one scenario module uses.

use chrono::{DateTime, Utc};
use http::StatusCode;
use integration_tests::{Backend, TestApp, quiet_demo, spawn_app};
use serde_json::{Value, json};

/// What `read` makes of every item of a JSON list.
pub fn each<'a, T>(list: &'a Value, read: impl FnMut(&'a Value) -> T) -> Vec<T> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(read)
        .collect()
}

/// The `field` of every item of a JSON list.
pub fn ids(list: &Value, field: &str) -> Vec<i64> {
    each(list, |item| item[field].as_i64().unwrap())
}

/// The string `field` of every item of a JSON list.
pub fn texts<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    each(list, |item| item[field].as_str().unwrap())
}

/// Starts questionnaire 11 for one client as `plan` says (`clientId`, `startDate`,
/// `interval`, `retries`, `intervalBackOffMultiplier`); the entry it created.
pub async fn start_entry(app: &TestApp, token: &str, mut plan: Value) -> Value {
    plan["questionnaireId"] = json!(11);
    let answer = app
        .post_json(
            "/questionnaires/11/start-for-clients",
            Some(token),
            json!([plan]),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["created"][0].clone()
}

/// Entry `id` of questionnaire 11 as the questionnaire's detail shows it.
pub async fn entry_of(app: &TestApp, token: &str, id: &Value) -> Value {
    let detail = app.get("/questionnaires/11", Some(token)).await.json();
    detail["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == *id)
        .cloned()
        .unwrap_or_else(|| panic!("entry {id} in {detail}"))
}

/// An RFC 3339 time.
pub fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// The quiet demo with every contact of portal 1 a final outpost: the escalation's SMS go to
/// each of them.
pub fn final_outpost_demo() -> Value {
    let mut fixture = quiet_demo();
    for contact in fixture["contactDetails"].as_array_mut().unwrap() {
        if contact["portalId"] == 1 {
            contact["contactWhenFinalOutpost"] = json!(true);
        }
    }
    fixture
}

/// One scheduler pass at `at`, the clock set to it first; its report.
pub async fn pass(app: &TestApp, at: DateTime<Utc>) -> Value {
    app.clock.set(at);
    let report = app.api.scheduler().run_pass(at, None).await.unwrap();
    serde_json::to_value(report).unwrap()
}

/// The urgent alerts staff see with this token.
pub async fn urgent_alerts(app: &TestApp, token: &str) -> Vec<Value> {
    let answer = app.get("/alerts?reason=urgent", Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json().as_array().unwrap().clone()
}

/// The API over a new store with the demo fixture, and a session of `phone` on it.
pub async fn spawn_logged_in(backend: Backend, phone: &str) -> (TestApp, String) {
    spawn_app(backend).await.logged_in(phone).await
}

/// Asserts that `stranger`, staff of another portal, can neither read alert `id` nor
/// acknowledge it with `acknowledgement`: both answer as for a missing alert.
pub async fn assert_alert_hidden_from(
    app: &TestApp,
    stranger: &str,
    id: &Value,
    acknowledgement: Value,
) {
    app.get(&format!("/alerts/{id}"), Some(stranger))
        .await
        .problem(StatusCode::NOT_FOUND);
    app.post_json(
        &format!("/alerts/{id}/acknowledge"),
        Some(stranger),
        acknowledgement,
    )
    .await
    .problem(StatusCode::NOT_FOUND);
}
