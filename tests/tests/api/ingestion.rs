//! `POST /integrations/voice/events`: signed deliveries from the voice platform become calls,
//! transcripts, requests, client statistics and questionnaire answers, idempotently and in any
//! order, on both stores.

mod questionnaire_calls;

use chrono::{DateTime, TimeDelta, Utc};
use http::StatusCode;
use integration_tests::{
    Backend, TestApp, error_fields, on_both_stores, quiet_demo, spawn_app, spawn_app_with,
    start_time, without_trace,
};
use serde_json::{Value, json};
use shared::ids::PortalId;
use shared::records::{PhoneCall, TranscriptLine};
use shared::store::{
    Analysis, AnalysisHold, DeliveryKey, DeliveryState, HeldAnalysis, NewCall, StoreError,
};
use shared::webhook;

use crate::demo::{CLIENT_3, KARIN, PORTAL_LINE};
use crate::support::spawn_logged_in;

fn at(minutes_before_start: i64) -> DateTime<Utc> {
    start_time() - TimeDelta::minutes(minutes_before_start)
}

/// An inbound call of three minutes, ten minutes ago, with three lines and one request.
fn ended(event_id: &str, conversation: &str, from: &str) -> Value {
    json!({
        "type": "call.ended",
        "eventId": event_id,
        "conversationUuid": conversation,
        "startDate": at(10),
        "endDate": at(7),
        "fromNumber": from,
        "toNumber": PORTAL_LINE,
        "direction": "inbound",
        "transcript": [
            {"createdAt": at(10) + TimeDelta::seconds(2), "by": "agent", "message": "Hej, vad kan jag hjälpa dig med?", "category": 0},
            {"createdAt": at(10) + TimeDelta::seconds(9), "by": "caller", "message": "Kan ni flytta besöket\ntill fredag?", "category": 1},
            {"createdAt": at(10) + TimeDelta::seconds(15), "by": "agent", "message": "Jag skickar det vidare.", "category": 0}
        ],
        "requests": [{"request": "Move the visit to Friday.", "transcriptLineIndex": 1}]
    })
}

fn analyzed(event_id: &str, conversation: &str, summary: &str) -> Value {
    json!({
        "type": "call.analyzed",
        "eventId": event_id,
        "conversationUuid": conversation,
        "summary": summary,
        "purpose": "Scheduling",
        "confidence": 90,
        "confidenceReason": "Clear request.",
        "satisfaction": 4,
        "satisfactionReason": "Polite and calm.",
        "name": "Client Three"
    })
}

fn call_id(answer: &integration_tests::TestResponse) -> i64 {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["phoneCallId"].as_i64().expect("a call id")
}

async fn thread(app: &TestApp, token: &str, id: i64) -> Vec<Value> {
    let answer = app.get(&format!("/phone-calls/{id}"), Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json().as_array().unwrap().clone()
}

async fn a_call_ended_event_records_the_call_its_transcript_and_requests(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let id = call_id(
        &app.deliver(1, &ended("evt-1", "conv-a", "073-111 00 03"))
            .await,
    );
    // One read of the delivery state, the client by number, the three id counters, one
    // transaction, and the access record.
    app.expect_requests(&[
        ("BatchGetItem", 1),
        ("Query", 1),
        ("UpdateItem", 3),
        ("TransactWriteItems", 2),
    ]);

    let calls = thread(&app, &token, id).await;
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert_eq!(call["clientId"], 3);
    assert_eq!(call["isUnknown"], false);
    assert_eq!(call["portalId"], 1);
    assert_eq!(call["fromNumber"], CLIENT_3);
    assert_eq!(call["toNumber"], PORTAL_LINE);
    assert_eq!(call["conversationUuid"], "conv-a");
    assert_eq!(call["connectedTo"], Value::Null);
    assert_eq!(call["summary"], Value::Null);
    assert!(call["uuid"].as_str().is_some_and(|u| u.len() == 36));
    let lines = call["transcript"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["message"], "Kan ni flytta besöket\ntill fredag?");
    assert_eq!(lines[1]["category"], 1);
    assert!(lines.iter().all(|line| line["phoneCallId"] == id));
    let line_ids: Vec<i64> = lines.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert!(line_ids.windows(2).all(|w| w[1] == w[0] + 1));

    let requests = app
        .get(&format!("/phone-calls/{id}/requests"), Some(&token))
        .await
        .json();
    assert_eq!(requests.as_array().unwrap().len(), 1);
    let request = &requests[0];
    assert_eq!(request["request"], "Move the visit to Friday.");
    assert_eq!(request["phoneCallTranscriptLineId"], line_ids[1]);
    assert_eq!(request["createdAt"], lines[1]["createdAt"]);
    assert_eq!(request["status"], "open");
    assert_eq!(
        (request["clientId"].clone(), request["portalId"].clone()),
        (json!(3), json!(1))
    );
}

async fn client_statistics_count_an_ingested_call_once(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = app.listed_client(&token, 3).await;
    assert_eq!(before["totalCalls"], 0);
    let event = ended("evt-1", "conv-a", CLIENT_3);
    let id = call_id(&app.deliver(1, &event).await);
    assert_eq!(call_id(&app.deliver(1, &event).await), id);
    let after = app.listed_client(&token, 3).await;
    assert_eq!(after["totalCalls"], 1);
    assert_eq!(after["callLengthInSeconds"], 180);
    assert_eq!(after["callsLast7Days"], 1);
    assert_eq!(
        after["lastCallAt"]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap(),
        at(10)
    );

    // A transferred leg of the same conversation is linked but not counted a second time.
    let mut leg = ended("evt-2", "conv-b", CLIENT_3);
    leg["connectedToConversationUuid"] = json!("conv-a");
    let leg_id = call_id(&app.deliver(1, &leg).await);
    assert_eq!(app.listed_client(&token, 3).await["totalCalls"], 1);
    let calls = thread(&app, &token, id).await;
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["id"], leg_id);
    assert_eq!(calls[1]["connectedTo"], id);
}

async fn only_a_valid_fresh_signature_of_the_portals_own_secret_is_accepted(backend: Backend) {
    let app = spawn_app(backend).await;
    let body = ended("evt-1", "conv-a", CLIENT_3).to_string().into_bytes();
    let now = start_time().timestamp();
    let own = app.api.webhook_secret(1);
    let signed = |secret: &str, t: i64| webhook::signature_header(secret, t, &body);
    let mut tampered = body.clone();
    tampered[20] ^= 1;
    let refused = [
        ("no signature", Some("1"), None, body.clone()),
        ("no portal", None, Some(signed(&own, now)), body.clone()),
        ("portal 0", Some("0"), Some(signed(&own, now)), body.clone()),
        (
            "garbled",
            Some("1"),
            Some("t=abc,v1=00".into()),
            body.clone(),
        ),
        (
            "wrong signature",
            Some("1"),
            Some(format!("t={now},v1={}", "0".repeat(64))),
            body.clone(),
        ),
        (
            "another portal's secret",
            Some("1"),
            Some(signed(&app.api.webhook_secret(2), now)),
            body.clone(),
        ),
        (
            "portal 1's signature sent as portal 2",
            Some("2"),
            Some(signed(&own, now)),
            body.clone(),
        ),
        (
            "six minutes old",
            Some("1"),
            Some(signed(&own, now - 360)),
            body.clone(),
        ),
        (
            "six minutes ahead",
            Some("1"),
            Some(signed(&own, now + 360)),
            body.clone(),
        ),
        (
            "body changed after signing",
            Some("1"),
            Some(signed(&own, now)),
            tampered,
        ),
    ];
    let mut problems = Vec::new();
    for (case, portal, signature, body) in refused {
        let answer = app.deliver_raw(portal, signature.as_deref(), body).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{case}");
        problems.push(without_trace(answer.problem(StatusCode::UNAUTHORIZED)));
    }
    assert!(
        problems.windows(2).all(|pair| pair[0] == pair[1]),
        "every refusal is the same 401"
    );
    // Nothing was recorded: the first accepted delivery creates the call, and a timestamp
    // four minutes off is still inside the tolerance.
    let answer = app
        .deliver_raw(Some("1"), Some(&signed(&own, now - 240)), body.clone())
        .await;
    let id = call_id(&answer);
    let token = app.login(KARIN).await;
    assert_eq!(app.listed_client(&token, 3).await["totalCalls"], 1);
    assert_eq!(thread(&app, &token, id).await.len(), 1);
}

async fn a_redelivered_event_of_either_type_changes_nothing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let event = ended("evt-1", "conv-a", CLIENT_3);
    let id = call_id(&app.deliver(1, &event).await);
    let first = thread(&app, &token, id).await;

    app.take_dynamo_requests();
    let again = app.deliver(1, &event).await;
    assert_eq!(call_id(&again), id);
    app.expect_requests(&[("BatchGetItem", 1)]);
    // The same conversation under a new eventId is the same call, too.
    let renamed = app.deliver(1, &ended("evt-1b", "conv-a", CLIENT_3)).await;
    assert_eq!(call_id(&renamed), id);
    assert_eq!(thread(&app, &token, id).await, first);

    let analysis = analyzed("evt-2", "conv-a", "Wants the visit on Friday.");
    assert_eq!(call_id(&app.deliver(1, &analysis).await), id);
    let summarised = thread(&app, &token, id).await;
    assert_eq!(summarised[0]["summary"], "Wants the visit on Friday.");
    assert_eq!(summarised[0]["name"], "Client Three");
    assert_eq!(summarised[0]["confidence"], 90);
    // A redelivery, even one whose body differs, is answered the same and writes nothing.
    app.take_dynamo_requests();
    let changed = analyzed("evt-2", "conv-a", "Something else.");
    assert_eq!(call_id(&app.deliver(1, &changed).await), id);
    app.expect_requests(&[("BatchGetItem", 1)]);
    assert_eq!(thread(&app, &token, id).await, summarised);

    // An eventId reused for another conversation is a conflict, not a silent drop.
    let reused = app.deliver(1, &analyzed("evt-2", "conv-other", "x")).await;
    reused.problem(StatusCode::CONFLICT);
}

async fn an_analysis_that_arrives_first_is_held_and_merged_into_its_call(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let analysis = analyzed("evt-2", "conv-a", "Wants the visit on Friday.");
    app.take_dynamo_requests();
    let held = app.deliver(1, &analysis).await;
    assert_eq!(held.status, StatusCode::ACCEPTED);
    assert_eq!(held.json(), json!({"phoneCallId": null}));
    app.expect_requests(&[("BatchGetItem", 1), ("TransactWriteItems", 1)]);
    let again = app.deliver(1, &analysis).await;
    assert_eq!(again.status, StatusCode::ACCEPTED);

    let id = call_id(&app.deliver(1, &ended("evt-1", "conv-a", CLIENT_3)).await);
    let call = &thread(&app, &token, id).await[0];
    assert_eq!(call["summary"], "Wants the visit on Friday.");
    assert_eq!(call["purpose"], "Scheduling");
    assert_eq!(call["satisfaction"], 4);
    assert_eq!(call["satisfactionReason"], "Polite and calm.");
    assert_eq!(call["transcript"].as_array().unwrap().len(), 3);
    // Once the call exists, the held analysis' redelivery names it.
    assert_eq!(call_id(&app.deliver(1, &analysis).await), id);
}

async fn a_caller_no_client_has_the_number_of_is_unknown_and_can_be_fixed(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let id = call_id(
        &app.deliver(1, &ended("evt-1", "conv-a", "+46709999999"))
            .await,
    );
    let call = &thread(&app, &token, id).await[0];
    assert_eq!(call["isUnknown"], true);
    assert_eq!(call["clientId"], 0);
    let requests = app
        .get(&format!("/phone-calls/{id}/requests"), Some(&token))
        .await
        .json();
    assert_eq!(requests[0]["clientId"], 0);

    // A client of another portal with that number does not make it known either.
    let other = call_id(&app.deliver(2, &ended("evt-9", "conv-z", CLIENT_3)).await);
    let ahmed = app.login("+46701000002").await;
    assert_eq!(thread(&app, &ahmed, other).await[0]["isUnknown"], true);

    let fixed = app
        .post_json(
            "/organisations/fix-unknown-client",
            Some(&token),
            json!({"phoneCallId": id, "clientId": 3}),
        )
        .await;
    assert_eq!(fixed.status, StatusCode::OK, "{}", fixed.json());
    assert_eq!(app.listed_client(&token, 3).await["totalCalls"], 1);
}

async fn writes_over_a_stale_read_are_refused_whole(backend: Backend) {
    let app = spawn_app(backend).await;
    let store = app.api.services.store.clone();
    let token = app.login(KARIN).await;
    let read = store.delivery_state(conversation_a("evt-1")).await.unwrap();
    assert_eq!(read, DeliveryState::default());
    // An analysis arrives between the call's read and its write.
    let held = HeldAnalysis {
        event_id: "evt-2".into(),
        analysis: Analysis {
            summary: Some("Held.".into()),
            ..Analysis::default()
        },
    };
    store
        .hold_analysis(hold_in_conversation_a(&held))
        .await
        .unwrap();
    let lines = (0..150)
        .map(|i| TranscriptLine {
            created_at: at(10) + TimeDelta::seconds(i),
            message: Some(format!("line {i}")),
            ..TranscriptLine::default()
        })
        .collect();
    let new = NewCall {
        portal_id: 1,
        event_id: "evt-1".into(),
        call: PhoneCall {
            start_date: at(10),
            end_date: Some(at(7)),
            client_id: 3,
            portal_id: 1,
            conversation_uuid: Some("conv-a".into()),
            ..PhoneCall::default()
        },
        lines,
        requests: Vec::new(),
        completion: None,
        held_event_id: read.held.map(|held| held.event_id),
        client_number: None,
        alert: None,
        live_version: 0,
        linked_alert: None,
    };
    let refused = store.record_call(&new).await;
    assert!(
        matches!(refused, Err(StoreError::ConditionFailed)),
        "{refused:?}"
    );
    let after = store.delivery_state(conversation_a("evt-1")).await.unwrap();
    assert_eq!((after.receipt, after.conversation), (None, None));
    assert_eq!(after.held, Some(held.clone()));
    assert_eq!(app.listed_client(&token, 3).await["totalCalls"], 0);

    // Read again, the write goes through and consumes the held analysis; holding another
    // analysis of the now recorded conversation is refused.
    let id = store
        .record_call(&NewCall {
            held_event_id: Some("evt-2".into()),
            ..new
        })
        .await
        .unwrap()
        .phone_call_id;
    let late = HeldAnalysis {
        event_id: "evt-3".into(),
        ..held
    };
    let refused = store.hold_analysis(hold_in_conversation_a(&late)).await;
    assert!(
        matches!(refused, Err(StoreError::ConditionFailed)),
        "{refused:?}"
    );
    let recorded = store.delivery_state(conversation_a("evt-3")).await.unwrap();
    assert_eq!(recorded.held, None);
    assert_eq!(recorded.conversation.map(|c| c.phone_call_id), Some(id));
    assert_eq!(
        thread(&app, &token, i64::from(id)).await[0]["transcript"]
            .as_array()
            .unwrap()
            .len(),
        150
    );
}

async fn a_thousand_line_transcript_is_written_in_eleven_transactions(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let mut event = ended("evt-big", "conv-big", CLIENT_3);
    event["endDate"] = json!(at(0));
    let lines: Vec<Value> = (0..1000)
        .map(|i| {
            json!({
                "createdAt": at(10) + TimeDelta::milliseconds(i * 500),
                "by": if i % 2 == 0 { "agent" } else { "caller" },
                // Zero-padded: a bare "112", "911" or "999" from a caller is a call for help.
                "message": format!("Line {i:04} of a long conversation about the week's visits."),
                "category": i % 2
            })
        })
        .collect();
    event["transcript"] = json!(lines);
    event["requests"] = json!([
        {"request": "Extra visit on Monday.", "transcriptLineIndex": 10},
        {"request": "Call my daughter.", "transcriptLineIndex": 999}
    ]);
    app.take_dynamo_requests();
    let id = call_id(&app.deliver(1, &event).await);
    // 1,000 lines, 2 requests and the 5 items that must appear together: 1,007 items, the
    // fewest transactions of 100 there can be; then the access record.
    app.expect_requests(&[
        ("BatchGetItem", 1),
        ("Query", 1),
        ("UpdateItem", 3),
        ("TransactWriteItems", 12),
    ]);
    let call = &thread(&app, &token, id).await[0];
    let transcript = call["transcript"].as_array().unwrap();
    assert_eq!(transcript.len(), 1000);
    for (i, line) in transcript.iter().enumerate() {
        assert_eq!(
            line["message"],
            format!("Line {i:04} of a long conversation about the week's visits.")
        );
    }
    let requests = app
        .get(&format!("/phone-calls/{id}/requests"), Some(&token))
        .await
        .json();
    assert_eq!(
        requests[1]["phoneCallTranscriptLineId"],
        transcript[999]["id"]
    );
}

async fn bad_deliveries_get_field_errors_and_write_nothing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let mut bad = ended("evt-1", "conv-a", "not a number");
    bad["endDate"] = json!(at(20));
    bad["requests"][0]["transcriptLineIndex"] = json!(3);
    bad["transcript"][0]["message"] = json!("bell\u{7}");
    let answer = app.deliver(1, &bad).await;
    let problem = answer.problem(StatusCode::BAD_REQUEST);
    assert_eq!(
        error_fields(&problem),
        [
            "endDate",
            "fromNumber",
            "requests[0].transcriptLineIndex",
            "transcript[0].message"
        ]
    );
    let unknown_type = json!({"type": "call.started", "eventId": "e", "conversationUuid": "c"});
    app.deliver(1, &unknown_type)
        .await
        .problem(StatusCode::BAD_REQUEST);
    // Signed but not JSON: 400; unsigned and not JSON: 401, the signature comes first.
    let garbage = b"{not json".to_vec();
    let signature = webhook::signature_header(
        &app.api.webhook_secret(1),
        start_time().timestamp(),
        &garbage,
    );
    app.deliver_raw(Some("1"), Some(&signature), garbage.clone())
        .await
        .problem(StatusCode::BAD_REQUEST);
    app.deliver_raw(Some("1"), None, garbage)
        .await
        .problem(StatusCode::UNAUTHORIZED);
    let oversized = vec![b' '; integrations::EVENT_BODY_LIMIT + 1];
    app.deliver_raw(Some("1"), None, oversized)
        .await
        .problem(StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(app.listed_client(&token, 3).await["totalCalls"], 0);
    // The event id of the refused delivery is still free.
    call_id(&app.deliver(1, &ended("evt-1", "conv-a", CLIENT_3)).await);
}

on_both_stores!(
    a_call_ended_event_records_the_call_its_transcript_and_requests,
    client_statistics_count_an_ingested_call_once,
    only_a_valid_fresh_signature_of_the_portals_own_secret_is_accepted,
    a_redelivered_event_of_either_type_changes_nothing,
    an_analysis_that_arrives_first_is_held_and_merged_into_its_call,
    a_caller_no_client_has_the_number_of_is_unknown_and_can_be_fixed,
    a_thousand_line_transcript_is_written_in_eleven_transactions,
    writes_over_a_stale_read_are_refused_whole,
    bad_deliveries_get_field_errors_and_write_nothing,
);

/// The delivery of event `event_id` about portal 1's conversation `conv-a`.
fn conversation_a(event_id: &str) -> DeliveryKey<'_> {
    DeliveryKey {
        portal_id: PortalId(1),
        event_id,
        conversation_uuid: "conv-a",
        connected_uuid: None,
    }
}

/// `held`, kept for portal 1's conversation `conv-a`.
fn hold_in_conversation_a(held: &HeldAnalysis) -> AnalysisHold<'_> {
    AnalysisHold {
        portal_id: PortalId(1),
        conversation_uuid: "conv-a",
        held,
    }
}
