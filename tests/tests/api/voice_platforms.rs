//! The caller context and the tools in Retell's, Vapi's and ElevenLabs' own shapes: each
//! platform's signature or secret accepted and refused, each answer in the platform's shape,
//! and the work done once behind them. Each scenario on both stores.

use axum::body::Body;
use chrono::TimeDelta;
use http::{Method, Request, StatusCode};
use integration_tests::requests::TestResponse;
use integration_tests::{Backend, TestApp, on_both_stores, quiet_demo, spawn_app_with, start_time};
use serde_json::{Value, json};
use shared::provider_auth::{retell_signature, vapi_signature};

use crate::demo::{GUNNEL, KARIN, MARGARETA, PORTAL_LINE};

async fn spawn(backend: Backend) -> TestApp {
    spawn_app_with(backend, &quiet_demo().to_string()).await
}

async fn post(app: &TestApp, path: &str, headers: &[(&str, String)], body: &Value) -> TestResponse {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    app.send(request.body(Body::from(body.to_string())).unwrap())
        .await
}

fn now_ms() -> i64 {
    start_time().timestamp_millis()
}

fn retell_headers(key: &str, body: &Value, at_ms: i64) -> Vec<(&'static str, String)> {
    vec![(
        "x-retell-signature",
        retell_signature(key, at_ms, body.to_string().as_bytes()),
    )]
}

fn vapi_headers(app: &TestApp, portal: i32, body: &Value) -> Vec<(&'static str, String)> {
    let timestamp = start_time().timestamp().to_string();
    let signature = vapi_signature(
        &app.api.webhook_secret(portal),
        &timestamp,
        body.to_string().as_bytes(),
    );
    vec![("x-signature", signature), ("x-timestamp", timestamp)]
}

fn elevenlabs_headers(app: &TestApp, portal: i32) -> Vec<(&'static str, String)> {
    vec![("x-webhook-secret", app.api.header_secret(portal))]
}

fn known_gunnel() -> Value {
    json!({
        "knownCaller": "true", "firstName": "Gunnel", "language": "sv", "openRequests": "1",
        "questionnaireClientId": "", "questions": ""
    })
}

async fn retell_signed_requests_are_answered_in_retells_shape_and_others_refused(backend: Backend) {
    let app = spawn(backend).await;
    let key = app.api.retell_api_key.to_string();
    let path = "/integrations/voice/retell/1/inbound";
    let body = json!({"event": "call_inbound",
        "call_inbound": {"agent_id": "agent_1", "from_number": GUNNEL, "to_number": PORTAL_LINE}});
    let answer = post(&app, path, &retell_headers(&key, &body, now_ms()), &body).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(
        answer.json(),
        json!({"call_inbound": {"dynamic_variables": known_gunnel()}})
    );
    let stale = now_ms() - 301_000;
    for headers in [
        retell_headers("another workspace's key", &body, now_ms()),
        retell_headers(&key, &body, stale),
        Vec::new(),
    ] {
        post(&app, path, &headers, &body)
            .await
            .problem(StatusCode::UNAUTHORIZED);
    }
    // Signed, but not Retell's inbound event.
    let other = json!({"event": "call_ended", "call_inbound": {"from_number": GUNNEL, "to_number": PORTAL_LINE}});
    post(&app, path, &retell_headers(&key, &other, now_ms()), &other)
        .await
        .problem(StatusCode::BAD_REQUEST);
}

async fn retell_functions_write_requests_once_however_often_retell_retries(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let key = app.api.retell_api_key.to_string();
    let path = "/integrations/voice/retell/1/tools";
    let body = json!({"name": "record_request",
        "call": {"call_id": "call_r1", "from_number": MARGARETA, "to_number": PORTAL_LINE, "direction": "inbound",
                 "transcript": "Agent: Hej! User: Kan ni ringa Lena?"},
        "args": {"request": "Ring my daughter Lena."}});
    for _ in 0..2 {
        let answer = post(&app, path, &retell_headers(&key, &body, now_ms()), &body).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
        assert_eq!(
            answer.json(),
            json!("I have written that down; the staff will see it.")
        );
    }
    let at = start_time() - TimeDelta::minutes(3);
    let ended = json!({
        "type": "call.ended", "eventId": "evt-r1", "conversationUuid": "call_r1",
        "startDate": at, "endDate": at + TimeDelta::minutes(2),
        "fromNumber": MARGARETA, "toNumber": PORTAL_LINE, "direction": "inbound",
        "transcript": [{"createdAt": at, "by": "caller", "message": "Kan ni ringa Lena?", "category": 1}],
        "requests": []
    });
    let call_id = app.deliver(1, &ended).await.json()["phoneCallId"]
        .as_i64()
        .unwrap();
    let requests = app
        .get(&format!("/phone-calls/{call_id}/requests"), Some(&token))
        .await
        .json();
    assert_eq!(requests.as_array().unwrap().len(), 1, "{requests}");
    assert_eq!(requests[0]["request"], "Ring my daughter Lena.");
}

async fn vapi_assistant_requests_and_tool_calls_are_answered_in_vapis_shape(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let path = "/integrations/voice/vapi/1?assistantId=asst_care";
    let request = json!({"message": {"type": "assistant-request", "timestamp": 1,
        "call": {"id": "vapi-1", "type": "inboundPhoneCall", "customer": {"number": GUNNEL}}}});
    let answer = post(&app, path, &vapi_headers(&app, 1, &request), &request).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(
        answer.json(),
        json!({"assistantId": "asst_care", "assistantOverrides": {"variableValues": known_gunnel()}})
    );
    // Without the assistant to answer with, the number is misconfigured: said, not guessed.
    post(
        &app,
        "/integrations/voice/vapi/1",
        &vapi_headers(&app, 1, &request),
        &request,
    )
    .await
    .problem(StatusCode::BAD_REQUEST);
    // Signed with portal 2's secret: refused.
    post(&app, path, &vapi_headers(&app, 2, &request), &request)
        .await
        .problem(StatusCode::UNAUTHORIZED);

    // Two tool calls in one message, their arguments where two versions of Vapi put them.
    let tools = json!({"message": {"type": "tool-calls",
    "call": {"id": "vapi-2", "customer": {"number": MARGARETA}},
    "toolCallList": [
        {"id": "tc-1", "type": "function", "function": {"name": "record_request",
         "arguments": "{\"request\": \"Bring the blue cardigan.\"}"}},
        {"id": "tc-2", "name": "report_emergency",
         "arguments": {"category": "chest_pain", "words": "It's squeezing my chest"}}
    ]}});
    let answer = post(&app, path, &vapi_headers(&app, 1, &tools), &tools).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let results = answer.json()["results"].clone();
    assert_eq!(results[0]["toolCallId"], "tc-1");
    assert_eq!(results[0]["name"], "record_request");
    assert_eq!(results[1]["toolCallId"], "tc-2");
    assert!(
        results[1]["result"]
            .as_str()
            .unwrap()
            .contains("alerted the staff")
    );
    let urgent = app.get("/alerts?reason=urgent", Some(&token)).await.json();
    assert_eq!(urgent.as_array().unwrap().len(), 1);
    assert_eq!(urgent[0]["category"], "chest_pain");
    assert_eq!(urgent[0]["clientId"], 3);
    // Messages the service has no use for are acknowledged.
    let status = json!({"message": {"type": "status-update", "status": "in-progress", "call": {"id": "vapi-2"}}});
    let answer = post(&app, path, &vapi_headers(&app, 1, &status), &status).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json(), json!({}));
}

async fn elevenlabs_requests_carry_the_portals_header_secret(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let inbound = json!({"caller_id": GUNNEL, "agent_id": "agent_1",
        "called_number": PORTAL_LINE, "call_sid": "CA1"});
    let path = "/integrations/voice/elevenlabs/1/inbound";
    let answer = post(&app, path, &elevenlabs_headers(&app, 1), &inbound).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(
        answer.json(),
        json!({"type": "conversation_initiation_client_data", "dynamic_variables": known_gunnel()})
    );
    // Every variable, empty, for a caller nobody knows.
    let unknown = json!({"caller_id": "+46700000999", "agent_id": "agent_1", "called_number": PORTAL_LINE, "call_sid": "CA2"});
    let answer = post(&app, path, &elevenlabs_headers(&app, 1), &unknown)
        .await
        .json();
    assert_eq!(answer["dynamic_variables"].as_object().unwrap().len(), 6);
    assert_eq!(answer["dynamic_variables"]["knownCaller"], "false");
    for headers in [
        elevenlabs_headers(&app, 2),
        vec![("x-webhook-secret", app.api.webhook_secret(1))],
        Vec::new(),
    ] {
        post(&app, path, &headers, &inbound)
            .await
            .problem(StatusCode::UNAUTHORIZED);
    }
    let report = json!({"conversation_id": "el-1", "caller_id": MARGARETA,
        "category": "fall", "words": "I'm on the floor"});
    let answer = post(
        &app,
        "/integrations/voice/elevenlabs/1/report-emergency",
        &elevenlabs_headers(&app, 1),
        &report,
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert!(
        answer.json()["result"]
            .as_str()
            .unwrap()
            .contains("alerted")
    );
    let urgent = app.get("/alerts?reason=urgent", Some(&token)).await.json();
    assert_eq!(urgent.as_array().unwrap().len(), 1);
    assert_eq!(urgent[0]["clientId"], 3);
}

on_both_stores!(
    retell_signed_requests_are_answered_in_retells_shape_and_others_refused,
    retell_functions_write_requests_once_however_often_retell_retries,
    vapi_assistant_requests_and_tool_calls_are_answered_in_vapis_shape,
    elevenlabs_requests_carry_the_portals_header_secret,
);
