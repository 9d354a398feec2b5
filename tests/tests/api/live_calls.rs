//! While a call is live: the caller context the voice platform asks for before the agent
//! answers (known, unknown, shared and other-portal numbers, a waiting questionnaire entry
//! answered by the inbound call, the deadline), and the tools the agent calls while it talks
//! (requests written down now, an emergency's alert opened at once; repeated, out of order
//! and after the call). Each scenario on both stores.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::TimeDelta;
use http::StatusCode;
use integration_tests::{Backend, TestApp, on_both_stores, quiet_demo, spawn_app_with, start_time};
use serde_json::{Value, json};
use shared::store::StoreResult;
use shared::store::access_log::{AccessRecord, Action};

use crate::demo::{EDVIN, GUNNEL, KARIN, MARGARETA, PORTAL_LINE, SVEN_OLOF};
use crate::support::{entry_of, start_entry, texts, urgent_alerts};

const INBOUND: &str = "/integrations/voice/inbound";
const TOOLS: &str = "/integrations/voice/tools";

async fn spawn(backend: Backend) -> TestApp {
    spawn_app_with(backend, &quiet_demo().to_string()).await
}

fn inbound(from: &str, call_id: &str) -> Value {
    json!({"fromNumber": from, "toNumber": PORTAL_LINE, "callId": call_id})
}

/// The variables of a 200 answer.
async fn context(app: &TestApp, portal_id: i32, from: &str) -> Value {
    let answer = app
        .signed_post(INBOUND, portal_id, &inbound(from, "conv-live-1"))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["variables"].clone()
}

fn unknown() -> Value {
    json!({
        "knownCaller": "false", "firstName": "", "language": "", "openRequests": "0",
        "questionnaireClientId": "", "questions": ""
    })
}

fn context_reads(records: &[AccessRecord]) -> Vec<Vec<i32>> {
    records
        .iter()
        .filter(|r| r.action == Action::CallerContext)
        .map(|r| r.client_ids.clone())
        .collect()
}

async fn a_known_caller_is_greeted_by_first_name_with_their_open_requests(backend: Backend) {
    let app = spawn(backend).await;
    let gunnel = context(&app, 1, GUNNEL).await;
    assert_eq!(
        gunnel,
        json!({
            "knownCaller": "true", "firstName": "Gunnel", "language": "sv", "openRequests": "1",
            "questionnaireClientId": "", "questions": ""
        })
    );
    // A national number is read in the portal's region.
    let national = context(&app, 1, "073-111 00 01").await;
    assert_eq!(national, gunnel);
    // Each answer about a client is a read of that client in the access log; nothing else is.
    assert_eq!(context_reads(&app.access_records(&[1]).await), [[1], [1]]);
}

async fn unknown_withheld_and_deleted_callers_get_the_fixed_unknown_context(backend: Backend) {
    let app = spawn(backend).await;
    for from in ["+46700000999", "anonymous", "", EDVIN] {
        assert_eq!(context(&app, 1, from).await, unknown(), "{from:?}");
    }
    assert!(context_reads(&app.access_records(&[1]).await).is_empty());
}

async fn a_number_two_clients_share_is_not_a_known_caller(backend: Backend) {
    let mut fixture = quiet_demo();
    // Margareta's husband shares her landline.
    let mut husband = fixture["clients"][2].clone();
    husband["id"] = json!(31);
    husband["name"] = json!("Olle Lindqvist");
    husband["nationalId"] = json!("19380214-1238");
    fixture["clients"].as_array_mut().unwrap().push(husband);
    let app = spawn_app_with(backend, &fixture.to_string()).await;
    assert_eq!(context(&app, 1, MARGARETA).await, unknown());
    assert!(context_reads(&app.access_records(&[1]).await).is_empty());
}

async fn another_portals_client_is_unknown_and_another_portals_signature_is_refused(
    backend: Backend,
) {
    let app = spawn(backend).await;
    // Sven-Olof is portal 2's client: to portal 1 he is nobody.
    assert_eq!(context(&app, 1, SVEN_OLOF).await, unknown());
    // A request for portal 1 signed with portal 2's secret is refused like any bad signature.
    let body = inbound(GUNNEL, "conv-live-2").to_string().into_bytes();
    let signature = shared::webhook::signature_header(
        &app.api.webhook_secret(2),
        start_time().timestamp(),
        &body,
    );
    let refused = app
        .post_signed_raw(INBOUND, Some("1"), Some(&signature), body.clone())
        .await;
    refused.problem(StatusCode::UNAUTHORIZED);
    let unsigned = app.post_signed_raw(INBOUND, Some("1"), None, body).await;
    unsigned.problem(StatusCode::UNAUTHORIZED);
    assert!(context_reads(&app.access_records(&[1, 2]).await).is_empty());
    // Portal 2 itself knows him.
    assert_eq!(context(&app, 2, SVEN_OLOF).await["firstName"], "Sven-Olof");
}

async fn a_malformed_request_is_a_problem_naming_its_field(backend: Backend) {
    let app = spawn(backend).await;
    for body in [
        json!({"fromNumber": GUNNEL, "toNumber": PORTAL_LINE, "callId": "  "}),
        json!({"fromNumber": GUNNEL, "toNumber": PORTAL_LINE}),
        json!({"fromNumber": GUNNEL, "toNumber": PORTAL_LINE, "callId": "c", "extra": 1}),
        json!([]),
    ] {
        app.signed_post(INBOUND, 1, &body)
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
}

async fn a_waiting_entry_is_offered_to_an_inbound_call_which_then_completes_it(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    // Margareta's check-in questionnaire, due in two hours.
    let plan = json!({
        "clientId": 3, "startDate": start_time() + TimeDelta::hours(2),
        "interval": 7, "retries": 3, "intervalBackOffMultiplier": 1.0
    });
    let entry_id = start_entry(&app, &token, plan).await["id"]
        .as_i64()
        .unwrap();

    let offered = context(&app, 1, MARGARETA).await;
    assert_eq!(offered["knownCaller"], "true");
    assert_eq!(offered["questionnaireClientId"], entry_id.to_string());
    assert_eq!(
        offered["questions"],
        "How are you feeling today, from 1 to 5?\nHave you eaten a warm meal today?\nIs there anything you would like us to know?"
    );

    // The platform passes the entry id on in the call's variables, as an outbound call does.
    let at = start_time();
    let ended = json!({
        "type": "call.ended", "eventId": "evt-live-1", "conversationUuid": "conv-live-1",
        "startDate": at, "endDate": at + TimeDelta::minutes(3),
        "fromNumber": MARGARETA, "toNumber": PORTAL_LINE, "direction": "inbound",
        "dynamicVariables": offered.clone(),
        "transcript": [
            {"createdAt": at, "by": "agent", "message": "Hej Margareta! Har du tid för veckans frågor?", "category": 0},
            {"createdAt": at + TimeDelta::seconds(5), "by": "caller", "message": "Ja, det går bra.", "category": 1}
        ],
        "requests": []
    });
    let delivered = app.deliver(1, &ended).await;
    assert_eq!(delivered.status, StatusCode::OK, "{}", delivered.json());
    let call_id = delivered.json()["phoneCallId"].as_i64().unwrap();
    assert_eq!(
        entry_of(&app, &token, &json!(entry_id)).await["phoneCallId"],
        call_id
    );
    // Answered: no longer offered.
    assert_eq!(
        context(&app, 1, MARGARETA).await["questionnaireClientId"],
        ""
    );
}

async fn an_entry_due_later_than_twelve_hours_is_not_offered(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let plan = json!({
        "clientId": 3, "startDate": start_time() + TimeDelta::hours(13),
        "interval": 7, "retries": 3, "intervalBackOffMultiplier": 1.0
    });
    start_entry(&app, &token, plan).await;
    let later = context(&app, 1, MARGARETA).await;
    assert_eq!(later["questionnaireClientId"], "");
    assert_eq!(later["questions"], "");
}

async fn requests_of_a_new_call_are_counted_as_open(backend: Backend) {
    let app = spawn(backend).await;
    assert_eq!(context(&app, 1, MARGARETA).await["openRequests"], "0");
    let at = start_time();
    let ended = json!({
        "type": "call.ended", "eventId": "evt-live-2", "conversationUuid": "conv-live-2",
        "startDate": at, "endDate": at + TimeDelta::minutes(2),
        "fromNumber": MARGARETA, "toNumber": PORTAL_LINE, "direction": "inbound",
        "transcript": [
            {"createdAt": at, "by": "agent", "message": "Hej!", "category": 0},
            {"createdAt": at + TimeDelta::seconds(4), "by": "caller", "message": "Kan ni ringa min dotter? Och flytta tisdagens besök.", "category": 1}
        ],
        "requests": [
            {"request": "Call her daughter.", "transcriptLineIndex": 1},
            {"request": "Move Tuesday's visit.", "transcriptLineIndex": 1}
        ]
    });
    assert_eq!(app.deliver(1, &ended).await.status, StatusCode::OK);
    assert_eq!(context(&app, 1, MARGARETA).await["openRequests"], "2");
}

/// An access log whose writes never finish: the store the context needs hangs.
struct Hanging;

#[async_trait]
impl shared::store::AccessLogWriter for Hanging {
    async fn append(&self, _records: &[AccessRecord]) -> StoreResult<()> {
        futures::future::pending().await
    }
}

async fn a_hanging_store_gets_the_unknown_context_within_the_deadline(backend: Backend) {
    let app = spawn(backend).await.with_access_log(Arc::new(Hanging));
    let started = Instant::now();
    let answer = context(&app, 1, GUNNEL).await;
    let took = started.elapsed();
    assert_eq!(answer, unknown());
    assert!(
        took >= Duration::from_millis(800) && took < Duration::from_millis(800 + 500),
        "answered after {took:?}"
    );
}

fn tool(call_id: &str, tool_call_id: &str, name: &str, arguments: Value) -> Value {
    json!({"callId": call_id, "toolCallId": tool_call_id, "name": name, "arguments": arguments,
           "fromNumber": MARGARETA})
}

async fn call_tool(app: &TestApp, body: &Value) -> String {
    let answer = app.signed_post(TOOLS, 1, body).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let answer = answer.json();
    assert_eq!(answer["toolCallId"], body["toolCallId"]);
    answer["result"].as_str().unwrap().to_string()
}

fn request(call_id: &str, tool_call_id: &str, text: &str) -> Value {
    tool(
        call_id,
        tool_call_id,
        "record_request",
        json!({"request": text}),
    )
}

fn emergency(call_id: &str, tool_call_id: &str, category: &str, words: &str) -> Value {
    tool(
        call_id,
        tool_call_id,
        "report_emergency",
        json!({"category": category, "words": words}),
    )
}

/// Margareta's inbound call `call_id` ending now, saying `said`, with these requests of hers.
fn ended_call(call_id: &str, said: &str, requests: &[&str]) -> Value {
    let at = start_time() - TimeDelta::minutes(4);
    json!({
        "type": "call.ended", "eventId": format!("evt-{call_id}"), "conversationUuid": call_id,
        "startDate": at, "endDate": at + TimeDelta::minutes(3),
        "fromNumber": MARGARETA, "toNumber": PORTAL_LINE, "direction": "inbound",
        "transcript": [
            {"createdAt": at, "by": "agent", "message": "Hej Margareta!", "category": 0},
            {"createdAt": at + TimeDelta::seconds(5), "by": "caller", "message": said, "category": 1}
        ],
        "requests": requests
            .iter()
            .map(|r| json!({"request": r, "transcriptLineIndex": 1}))
            .collect::<Vec<_>>()
    })
}

async fn call_requests(app: &TestApp, token: &str, call_id: i64) -> Vec<String> {
    let answer = app
        .get(&format!("/phone-calls/{call_id}/requests"), Some(token))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    texts(&answer.json(), "request")
        .into_iter()
        .map(str::to_string)
        .collect()
}

async fn requests_written_down_during_the_call_join_its_requests_once(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let noted = call_tool(&app, &request("conv-t1", "t-2", "Ring my daughter Lena.")).await;
    assert!(noted.contains("written that down"), "{noted}");
    // Out of order and repeated: the platform's ids decide, not the arrival.
    call_tool(
        &app,
        &request("conv-t1", "t-1", "Change Tuesday's visit to Wednesday"),
    )
    .await;
    call_tool(&app, &request("conv-t1", "t-2", "Ring my daughter Lena.")).await;
    // call.ended brings one of them itself, worded a little differently.
    let delivered = app
        .deliver(
            1,
            &ended_call("conv-t1", "Kan ni ringa Lena?", &["ring my daughter lena"]),
        )
        .await;
    assert_eq!(delivered.status, StatusCode::OK, "{}", delivered.json());
    let call_id = delivered.json()["phoneCallId"].as_i64().unwrap();
    assert_eq!(
        call_requests(&app, &token, call_id).await,
        [
            "ring my daughter lena",
            "Change Tuesday's visit to Wednesday"
        ]
    );
    // A tool call after the call is recorded still reaches it.
    call_tool(&app, &request("conv-t1", "t-3", "Bring the blue cardigan.")).await;
    assert_eq!(
        call_requests(&app, &token, call_id).await,
        [
            "ring my daughter lena",
            "Change Tuesday's visit to Wednesday",
            "Bring the blue cardigan."
        ]
    );
    assert_eq!(context(&app, 1, MARGARETA).await["openRequests"], "3");
}

async fn an_emergency_reported_in_the_call_alerts_at_once_and_only_once(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let said = "I've fallen in the hall and I can't get up";
    let answer = call_tool(&app, &emergency("conv-t2", "t-1", "fall", said)).await;
    assert!(answer.contains("alerted the staff"), "{answer}");
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["category"], "fall");
    assert_eq!(alerts[0]["clientId"], 3);
    assert!(alerts[0]["phoneCallId"].is_null());
    let sent = app.alert_messages().len();
    assert!(sent > 0, "the first SMS leaves within the tool call");
    assert!(
        app.alert_messages()
            .iter()
            .all(|(_, m)| !m.contains("hall"))
    );
    // The same report again, a second report, the call's own urgent words, its analysis:
    // still one alert, and no SMS before its repeat is due.
    assert_eq!(
        call_tool(&app, &emergency("conv-t2", "t-1", "fall", said)).await,
        answer
    );
    let again = call_tool(
        &app,
        &emergency("conv-t2", "t-2", "breathing", "now I can't breathe"),
    )
    .await;
    assert!(again.contains("already been alerted"), "{again}");
    let delivered = app
        .deliver(
            1,
            &ended_call("conv-t2", "Jag har ramlat och kommer inte upp.", &[]),
        )
        .await;
    assert_eq!(delivered.status, StatusCode::OK, "{}", delivered.json());
    let call_id = delivered.json()["phoneCallId"].as_i64().unwrap();
    let analysis = json!({
        "type": "call.analyzed", "eventId": "evt-conv-t2-a", "conversationUuid": "conv-t2",
        "summary": "The client fell in the hall and cannot get up.", "purpose": "Emergency",
        "confidence": 90, "confidenceReason": "Clear.", "satisfaction": 2,
        "satisfactionReason": "In pain.", "name": null, "answers": []
    });
    assert_eq!(app.deliver(1, &analysis).await.status, StatusCode::OK);
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    // The call took the alert over.
    assert_eq!(alerts[0]["phoneCallId"], call_id);
    assert_eq!(app.alert_messages().len(), sent);
}

async fn an_emergency_reported_after_the_call_was_recorded_alerts_for_that_call(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let delivered = app
        .deliver(1, &ended_call("conv-t3", "Det är bra med mig.", &[]))
        .await;
    let call_id = delivered.json()["phoneCallId"].as_i64().unwrap();
    assert!(urgent_alerts(&app, &token).await.is_empty());
    // A label outside the list is an emergency all the same.
    call_tool(
        &app,
        &emergency("conv-t3", "t-9", "broken hip", "she is on the floor"),
    )
    .await;
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0]["phoneCallId"], call_id);
    assert_eq!(alerts[0]["category"], "other_emergency");
    assert!(!app.alert_messages().is_empty());
}

async fn a_tool_call_that_is_not_a_tool_is_a_problem_and_changes_nothing(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    for body in [
        tool("conv-t4", "t-1", "delete_everything", json!({})),
        tool("conv-t4", "t-1", "record_request", json!({})),
        tool("conv-t4", "t-1", "record_request", json!({"request": 5})),
        tool(
            "conv-t4",
            "t-1",
            "report_emergency",
            json!({"category": "fall"}),
        ),
        tool("conv-t4", " ", "record_request", json!({"request": "x"})),
    ] {
        app.signed_post(TOOLS, 1, &body)
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
    let body = emergency("conv-t4", "t-1", "fall", "help")
        .to_string()
        .into_bytes();
    app.post_signed_raw(TOOLS, Some("1"), Some("t=1,v1=00"), body)
        .await
        .problem(StatusCode::UNAUTHORIZED);
    assert!(urgent_alerts(&app, &token).await.is_empty());
    assert!(app.alert_messages().is_empty());
}

async fn tool_calls_racing_the_calls_delivery_lose_no_request_and_duplicate_none(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let texts: Vec<String> = (1..=10).map(|i| format!("Errand number {i}.")).collect();
    let tools = texts.iter().enumerate().map(|(i, text)| {
        let body = request("conv-race", &format!("t-{i}"), text);
        let app = &app;
        async move { app.signed_post(TOOLS, 1, &body).await.status }
    });
    let ended = ended_call("conv-race", "Några ärenden.", &["Errand number 1."]);
    let (statuses, delivered) =
        futures::future::join(futures::future::join_all(tools), app.deliver(1, &ended)).await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::OK),
        "{statuses:?}"
    );
    assert_eq!(delivered.status, StatusCode::OK, "{}", delivered.json());
    let call_id = delivered.json()["phoneCallId"].as_i64().unwrap();
    let mut listed = call_requests(&app, &token, call_id).await;
    listed.sort();
    let mut expected = texts.clone();
    expected.sort();
    assert_eq!(listed, expected);
}

async fn a_call_writes_down_at_most_a_hundred_requests_but_an_emergency_still_gets_through(
    backend: Backend,
) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    for i in 0..100 {
        call_tool(
            &app,
            &request("conv-full", &format!("t-{i}"), &format!("Errand {i}.")),
        )
        .await;
    }
    let refused = app
        .signed_post(TOOLS, 1, &request("conv-full", "t-100", "One more errand."))
        .await
        .problem(StatusCode::CONFLICT);
    assert!(
        refused["detail"].as_str().unwrap().contains("100 requests"),
        "{refused}"
    );
    let alerted = call_tool(&app, &emergency("conv-full", "t-101", "fall", "I fell")).await;
    assert!(alerted.contains("alerted the staff"), "{alerted}");
    assert_eq!(urgent_alerts(&app, &token).await.len(), 1);
}

on_both_stores!(
    a_known_caller_is_greeted_by_first_name_with_their_open_requests,
    unknown_withheld_and_deleted_callers_get_the_fixed_unknown_context,
    a_number_two_clients_share_is_not_a_known_caller,
    another_portals_client_is_unknown_and_another_portals_signature_is_refused,
    a_malformed_request_is_a_problem_naming_its_field,
    a_waiting_entry_is_offered_to_an_inbound_call_which_then_completes_it,
    an_entry_due_later_than_twelve_hours_is_not_offered,
    requests_of_a_new_call_are_counted_as_open,
    a_hanging_store_gets_the_unknown_context_within_the_deadline,
    requests_written_down_during_the_call_join_its_requests_once,
    an_emergency_reported_in_the_call_alerts_at_once_and_only_once,
    an_emergency_reported_after_the_call_was_recorded_alerts_for_that_call,
    a_tool_call_that_is_not_a_tool_is_a_problem_and_changes_nothing,
    tool_calls_racing_the_calls_delivery_lose_no_request_and_duplicate_none,
    a_call_writes_down_at_most_a_hundred_requests_but_an_emergency_still_gets_through,
);

/// The README walkthrough's step 10, against the demo data `local-api` starts with, after its
/// step 8 gave Margareta a new primary number (her old one is still her `phone`).
#[tokio::test]
async fn the_readme_walkthroughs_live_call_answers_as_the_readme_shows() {
    let (app, token) = integration_tests::spawn_app(Backend::Memory)
        .await
        .logged_in(KARIN)
        .await;
    let fixed = app
        .post_json(
            "/organisations/fix-unknown-client",
            Some(&token),
            json!({"phoneCallId": 1004, "clientId": 3, "primaryNumber": "070-999 88 77"}),
        )
        .await;
    assert_eq!(fixed.status, StatusCode::OK, "{}", fixed.json());
    let inbound = json!({"fromNumber": MARGARETA, "toNumber": PORTAL_LINE, "callId": "conv-10"});
    let answer = app.signed_post(INBOUND, 1, &inbound).await.json();
    assert_eq!(
        answer,
        json!({"variables": {"knownCaller": "true", "firstName": "Margareta", "language": "sv",
            "openRequests": "0", "questionnaireClientId": "", "questions": ""}})
    );
    let tool = json!({"callId": "conv-10", "toolCallId": "tc-1", "name": "record_request",
        "arguments": {"request": "Ring my daughter Lena about Sunday."}});
    let answer = app.signed_post(TOOLS, 1, &tool).await.json();
    assert_eq!(
        answer,
        json!({"toolCallId": "tc-1", "result": "I have written that down; the staff will see it."})
    );
}
