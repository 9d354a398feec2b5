//! Phone-call scenarios, each on both stores.

use http::StatusCode;
use integration_tests::{Backend, on_both_stores};
use serde_json::Value;

use crate::demo::KARIN;
use crate::support::{ids, spawn_logged_in};

const CALL_FIELDS: [&str; 20] = [
    "id",
    "startDate",
    "endDate",
    "fromNumber",
    "toNumber",
    "summary",
    "uuid",
    "clientId",
    "confidence",
    "confidenceReason",
    "satisfaction",
    "satisfactionReason",
    "purpose",
    "dynamicVariables",
    "connectedTo",
    "conversationUuid",
    "name",
    "transcript",
    "isUnknown",
    "portalId",
];
const LINE_FIELDS: [&str; 6] = [
    "id",
    "createdAt",
    "by",
    "message",
    "phoneCallId",
    "category",
];

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    keys
}

fn sorted<const N: usize>(fields: [&str; N]) -> Vec<&str> {
    let mut fields = fields.to_vec();
    fields.sort();
    fields
}

async fn a_call_comes_first_with_its_transcript_then_its_connected_calls(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/phone-calls/1001", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json; charset=utf-8");
    // Session, call and connected calls, the access record, the reading count.
    app.expect_requests(&[
        ("GetItem", 1),
        ("Query", 2),
        ("TransactWriteItems", 1),
        ("UpdateItem", 1),
    ]);
    let calls = answer.json();
    let calls = calls.as_array().unwrap();
    assert_eq!(
        calls
            .iter()
            .map(|c| c["id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [1001, 1002]
    );
    for call in calls {
        assert_eq!(keys(call), sorted(CALL_FIELDS));
        for line in call["transcript"].as_array().unwrap() {
            assert_eq!(keys(line), sorted(LINE_FIELDS));
            assert_eq!(line["phoneCallId"], call["id"]);
        }
    }
    let root = &calls[0];
    assert_eq!(root["dynamicVariables"], Value::Null);
    assert_eq!(root["connectedTo"], Value::Null);
    assert_eq!(root["startDate"], "2026-11-20T08:15:00Z");
    assert_eq!(
        ids(&root["transcript"], "id"),
        [5001, 5002, 5003, 5004, 5005]
    );
    assert_eq!(root["transcript"][4]["category"], 2);
    assert_eq!(calls[1]["connectedTo"], 1001);
}

async fn a_call_of_another_portal_is_indistinguishable_from_a_missing_one(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let mut foreign = app
        .get("/phone-calls/2001", Some(&token))
        .await
        .problem(StatusCode::NOT_FOUND);
    let mut missing = app
        .get("/phone-calls/999999", Some(&token))
        .await
        .problem(StatusCode::NOT_FOUND);
    foreign.as_object_mut().unwrap().remove("traceId");
    missing.as_object_mut().unwrap().remove("traceId");
    assert_eq!(foreign, missing);
    let mut foreign = app
        .get("/phone-calls/2001/requests", Some(&token))
        .await
        .problem(StatusCode::NOT_FOUND);
    foreign.as_object_mut().unwrap().remove("traceId");
    assert_eq!(foreign, missing);
}

async fn the_requests_of_a_call_are_listed_by_id_in_one_query(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/phone-calls/1001/requests", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    app.expect_requests(&[
        ("GetItem", 1),
        ("Query", 1),
        ("TransactWriteItems", 1),
        ("UpdateItem", 1),
    ]);
    let requests = answer.json();
    assert_eq!(ids(&requests, "id"), [701, 702]);
    assert_eq!(requests[0]["response"], Value::Null);
    assert_eq!(requests[1]["respondedBy"], "Karin Nyström");
    let none = app
        .get("/phone-calls/1003/requests", Some(&token))
        .await
        .json();
    assert_eq!(none.as_array().unwrap().len(), 1);
}

async fn the_call_is_served_as_json_under_each_offered_media_type(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let plain_json = app.get("/phone-calls/1003", Some(&token)).await;
    for (accept, content_type) in [
        ("text/plain", "text/plain; charset=utf-8"),
        ("text/json", "text/json; charset=utf-8"),
        ("application/json", "application/json; charset=utf-8"),
        ("*/*", "application/json; charset=utf-8"),
        ("text/plain;q=0.5, text/json", "text/json; charset=utf-8"),
    ] {
        let answer = app
            .get_with("/phone-calls/1003", Some(&token), &[("accept", accept)])
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{accept}");
        assert_eq!(answer.content_type(), content_type, "{accept}");
        assert_eq!(answer.json(), plain_json.json());
    }
    let refused = app
        .get_with(
            "/phone-calls/1003",
            Some(&token),
            &[("accept", "application/xml")],
        )
        .await;
    refused.problem(StatusCode::NOT_ACCEPTABLE);
}

async fn path_ids_outside_int32_above_zero_are_rejected(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    for id in [
        "0",
        "-1",
        "abc",
        "2147483648",
        "1.5",
        "99999999999999999999",
    ] {
        let answer = app.get(&format!("/phone-calls/{id}"), Some(&token)).await;
        let problem = answer.problem(StatusCode::BAD_REQUEST);
        assert!(problem["errors"]["id"].is_array(), "{id}: {problem}");
        let answer = app
            .get(&format!("/phone-calls/{id}/requests"), Some(&token))
            .await;
        answer.problem(StatusCode::BAD_REQUEST);
    }
    let largest = app.get("/phone-calls/2147483647", Some(&token)).await;
    largest.problem(StatusCode::NOT_FOUND);
}

on_both_stores!(
    a_call_comes_first_with_its_transcript_then_its_connected_calls,
    a_call_of_another_portal_is_indistinguishable_from_a_missing_one,
    the_requests_of_a_call_are_listed_by_id_in_one_query,
    the_call_is_served_as_json_under_each_offered_media_type,
    path_ids_outside_int32_above_zero_are_rejected,
);
