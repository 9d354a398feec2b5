//! While a call is live: the caller context the voice platform asks for before the agent
//! answers (known, unknown, shared and other-portal numbers, a waiting questionnaire entry
//! answered by the inbound call, the deadline). Each scenario on both stores.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::TimeDelta;
use http::StatusCode;
use integration_tests::{Backend, TestApp, on_both_stores, quiet_demo, spawn_app_with, start_time};
use serde_json::{Value, json};
use shared::store::StoreResult;
use shared::store::access_log::{AccessRecord, Action};

const KARIN: &str = "+46701000001";
const PORTAL_LINE: &str = "+4687001000";
/// Portal 1's clients: Gunnel (one open request, one answered), Margareta, Elsie (English).
const GUNNEL: &str = "+46731110001";
const MARGARETA: &str = "+46731110003";
/// Portal 2's client Sven-Olof.
const SVEN_OLOF: &str = "+46731110006";
/// Edvin Holm, a deleted client of portal 1.
const EDVIN: &str = "+46731110009";

const INBOUND: &str = "/integrations/voice/inbound";

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
    let app = spawn(backend).await;
    let token = app.login(KARIN).await;
    // Margareta's check-in questionnaire, due in two hours.
    let start = json!([{
        "clientId": 3, "questionnaireId": 11,
        "startDate": start_time() + TimeDelta::hours(2),
        "interval": 7, "retries": 3, "intervalBackOffMultiplier": 1.0
    }]);
    let started = app
        .post_json("/questionnaires/11/start-for-clients", Some(&token), start)
        .await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.json());
    let entry_id = started.json()["created"][0]["id"].as_i64().unwrap();

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
    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    let entry = detail["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == entry_id)
        .cloned()
        .expect("the entry is listed");
    assert_eq!(entry["phoneCallId"], call_id);
    // Answered: no longer offered.
    assert_eq!(
        context(&app, 1, MARGARETA).await["questionnaireClientId"],
        ""
    );
}

async fn an_entry_due_later_than_twelve_hours_is_not_offered(backend: Backend) {
    let app = spawn(backend).await;
    let token = app.login(KARIN).await;
    let start = json!([{
        "clientId": 3, "questionnaireId": 11,
        "startDate": start_time() + TimeDelta::hours(13),
        "interval": 7, "retries": 3, "intervalBackOffMultiplier": 1.0
    }]);
    let started = app
        .post_json("/questionnaires/11/start-for-clients", Some(&token), start)
        .await;
    assert_eq!(started.status, StatusCode::OK);
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
);
