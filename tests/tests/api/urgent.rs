//! A client who describes an emergency in a call reaches a person within the delivery that
//! stores the call: the triage opens one urgent alert per call, its SMS leave at once to every
//! contact on duty (everyone reachable when nobody is), repeat until acknowledged with an
//! outcome, and never carry the caller's words. Each scenario on both stores.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use http::StatusCode;
use integration_tests::bedrock::{Behaviour, StandIn};
use integration_tests::{Backend, TestApp, on_both_stores, quiet_demo, spawn_app_with, start_time};
use serde_json::{Value, json};

use crate::demo::{AHMED, CLIENT_3, DAY, EVENING, KARIN, NIGHT, PORTAL_LINE};
use crate::support::{assert_alert_hidden_from, final_outpost_demo, urgent_alerts};

/// The demo without entries; with `all_final_outpost`, every contact of portal 1 is a
/// final-outpost one (in the demo only the night patrol is).
async fn spawn(backend: Backend, all_final_outpost: bool) -> TestApp {
    let fixture = if all_final_outpost {
        final_outpost_demo()
    } else {
        quiet_demo()
    };
    spawn_app_with(backend, &fixture.to_string()).await
}

fn at(minutes_before_start: i64) -> DateTime<Utc> {
    start_time() - TimeDelta::minutes(minutes_before_start)
}

/// An inbound call from `from` in which the caller says `said`.
fn ended(event_id: &str, conversation: &str, from: &str, said: &str) -> Value {
    json!({
        "type": "call.ended",
        "eventId": event_id,
        "conversationUuid": conversation,
        "startDate": at(5),
        "endDate": at(3),
        "fromNumber": from,
        "toNumber": PORTAL_LINE,
        "direction": "inbound",
        "transcript": [
            {"createdAt": at(5), "by": "agent", "message": "Hej, det här är hemtjänstens assistent. Vad kan jag hjälpa till med?", "category": 0},
            {"createdAt": at(5) + TimeDelta::seconds(8), "by": "caller", "message": said, "category": 1},
            {"createdAt": at(5) + TimeDelta::seconds(20), "by": "agent", "message": "Jag ser till att personalen får veta det.", "category": 0}
        ],
        "requests": []
    })
}

fn analyzed(event_id: &str, conversation: &str, summary: &str) -> Value {
    json!({
        "type": "call.analyzed",
        "eventId": event_id,
        "conversationUuid": conversation,
        "summary": summary,
        "purpose": "Check-in",
        "confidence": 90,
        "confidenceReason": "Clear.",
        "satisfaction": 3,
        "satisfactionReason": "Calm.",
        "name": null,
        "answers": []
    })
}

const FELL: &str = "Jag har ramlat i hallen och jag kommer inte upp.";

async fn deliver(app: &TestApp, portal: i32, event: &Value) {
    let answer = app.deliver(portal, event).await;
    assert!(answer.status.is_success(), "{}", answer.json());
}

async fn an_urgent_call_opens_an_alert_and_its_sms_leave_within_the_same_request(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(&app, 1, &ended("u-1", "conv-u", CLIENT_3, FELL)).await;

    // No scheduler pass has run: the delivery itself sent the SMS. At 13:00 in Stockholm
    // only the day contact is inside their window.
    let messages = app.alert_messages();
    assert_eq!(app.alert_recipients(), [DAY], "{messages:?}");
    let sms = &messages[0].1;
    assert!(sms.starts_with("URGENT: Margareta Lindqvist (+46731110003) described a fall"));
    assert!(!sms.contains("ramlat"), "never the caller's words: {sms}");

    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    let listed = &alerts[0];
    assert_eq!(listed["reason"], "urgent");
    assert_eq!(listed["category"], "fall");
    assert_eq!(listed["clientId"], 3);
    assert_eq!(listed["words"], Value::Null, "a list never shows the words");
    assert!(sms.contains(&format!("alert {}", listed["id"])));
    let shown = app
        .get(&format!("/alerts/{}", listed["id"]), Some(&token))
        .await
        .json();
    assert_eq!(shown["words"], FELL);
    assert!(shown["phoneCallId"].is_i64());
    assert_eq!(shown["questionnaireClientId"], Value::Null);
    assert_eq!(shown["notifications"][0]["contactDetailId"], 301);

    // The SMS is a disclosure by the triage; reading the alert is a read of its call.
    let log = app.get("/access-log?limit=100", Some(&token)).await.json();
    let records = log.as_array().unwrap();
    let notify: Vec<&Value> = records
        .iter()
        .filter(|r| r["action"] == "alert.notify")
        .collect();
    assert_eq!(notify.len(), 1, "{log}");
    assert_eq!(notify[0]["accessor"]["kind"], "triage");
    assert_eq!(notify[0]["callIds"], json!([shown["phoneCallId"]]));
    let read = records
        .iter()
        .find(|r| r["action"] == "alert.read")
        .expect("the alert's read is logged");
    assert_eq!(read["callIds"], json!([shown["phoneCallId"]]));

    // Nothing in the other categories: the list of concerns is empty.
    let concerns = app.get("/alerts?reason=concern", Some(&token)).await.json();
    assert_eq!(concerns, json!([]));
}

async fn a_redelivery_and_the_calls_analysis_open_no_second_alert(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    let call = ended("r-1", "conv-r", CLIENT_3, FELL);
    deliver(&app, 1, &call).await;
    deliver(&app, 1, &call).await;
    let mut again = call.clone();
    again["eventId"] = json!("r-2");
    deliver(&app, 1, &again).await;
    deliver(
        &app,
        1,
        &analyzed(
            "r-3",
            "conv-r",
            "Brukaren har ramlat i hallen och kommer inte upp.",
        ),
    )
    .await;
    assert_eq!(urgent_alerts(&app, &token).await.len(), 1);
    let all = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(app.alert_recipients(), [DAY], "one SMS, sent once");
}

async fn an_analysis_that_arrives_first_is_triaged_with_its_call(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(
        &app,
        1,
        &analyzed(
            "a-1",
            "conv-a",
            "Brukaren säger att hon har svårt att andas sedan i morse.",
        ),
    )
    .await;
    assert!(app.alert_messages().is_empty(), "held until its call");
    deliver(
        &app,
        1,
        &ended("a-2", "conv-a", CLIENT_3, "Jag vill bara prata lite."),
    )
    .await;
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["category"], "breathing");
    assert_eq!(app.alert_recipients(), [DAY]);
}

async fn a_concern_found_by_the_analysis_is_raised_to_urgent_not_doubled(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(
        &app,
        1,
        &ended(
            "c-1",
            "conv-c",
            CLIENT_3,
            "Jag har inte ätit något på två dagar, jag har ingen aptit.",
        ),
    )
    .await;
    let all = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(all[0]["reason"], "concern");
    assert_eq!(all[0]["category"], "not_eating");
    let id = all[0]["id"].clone();
    // A concern is escalated as an entry's alert is: the first contact in turn.
    assert_eq!(app.alert_recipients(), [DAY]);
    assert!(app.alert_messages()[0].1.contains("mentioned not eating"));

    deliver(
        &app,
        1,
        &analyzed(
            "c-2",
            "conv-c",
            "Brukaren berättar att hon har ont i bröstet och att det strålar ut i armen.",
        ),
    )
    .await;
    let all = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(all[0]["id"], id);
    assert_eq!(all[0]["reason"], "urgent");
    assert_eq!(all[0]["category"], "chest_pain");
    let messages = app.alert_messages();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[1].1.starts_with("URGENT:"));
}

async fn with_nobody_on_duty_every_reachable_contact_is_messaged_at_once(backend: Backend) {
    // The demo's only final-outpost contact is the night patrol, outside its window at 13:00.
    let app = spawn(backend, false).await;
    deliver(&app, 1, &ended("n-1", "conv-n", CLIENT_3, FELL)).await;
    let mut got = app.alert_recipients();
    got.sort();
    assert_eq!(got, [DAY, EVENING, NIGHT]);
}

async fn an_unacknowledged_urgent_alert_repeats_until_acknowledged_with_an_outcome(
    backend: Backend,
) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(&app, 1, &ended("p-1", "conv-p", CLIENT_3, FELL)).await;
    let id = urgent_alerts(&app, &token).await[0]["id"].clone();
    assert_eq!(app.alert_recipients(), [DAY]);

    let early = app
        .run_scheduler(start_time() + TimeDelta::minutes(4))
        .await;
    assert_eq!(early["notificationsSent"], 0, "{early}");
    let repeat = app
        .run_scheduler(start_time() + TimeDelta::minutes(5))
        .await;
    assert_eq!(repeat["notificationsSent"], 1, "{repeat}");
    assert_eq!(app.alert_recipients(), [DAY, DAY]);
    // 16:10 in Stockholm: the evening contact is on duty now, the day contact no longer.
    let evening = "2026-11-20T15:10:00Z".parse::<DateTime<Utc>>().unwrap();
    app.run_scheduler(evening).await;
    assert_eq!(app.alert_recipients(), [DAY, DAY, EVENING]);

    let path = format!("/alerts/{id}/acknowledge");
    let without = app
        .post_json(&path, Some(&token), json!({"note": "Called her."}))
        .await;
    let problem = without.problem(StatusCode::BAD_REQUEST);
    assert!(problem["errors"]["outcome"].is_array(), "{problem}");
    let unknown = app
        .post_json(
            &path,
            Some(&token),
            json!({"note": "Called her.", "outcome": "fine"}),
        )
        .await;
    unknown.problem(StatusCode::BAD_REQUEST);
    let done = app
        .post_json(
            &path,
            Some(&token),
            json!({"note": "The night patrol helped her up; no injury.", "outcome": "helped"}),
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.json());
    assert_eq!(done.json()["outcome"], "helped");
    assert_eq!(done.json()["escalation"], "stopped");
    app.run_scheduler(evening + TimeDelta::hours(1)).await;
    assert_eq!(app.alert_recipients().len(), 3, "stopped");
}

async fn another_portal_cannot_see_or_acknowledge_the_alert(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(&app, 1, &ended("o-1", "conv-o", CLIENT_3, FELL)).await;
    let id = urgent_alerts(&app, &token).await[0]["id"].clone();
    let stranger = app.login(AHMED).await;
    let acknowledgement = json!({"note": "Not mine.", "outcome": "false_alarm"});
    assert_alert_hidden_from(&app, &stranger, &id, acknowledgement).await;
    assert_eq!(urgent_alerts(&app, &stranger).await, Vec::<Value>::new());
    let bad = app.get("/alerts?reason=panic", Some(&token)).await;
    bad.problem(StatusCode::BAD_REQUEST);
}

async fn an_unknown_caller_in_an_emergency_is_escalated_too(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(
        &app,
        1,
        &ended(
            "x-1",
            "conv-x",
            "+46739999999",
            "Det brinner i köket, det ryker överallt!",
        ),
    )
    .await;
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1);
    assert_eq!(alerts[0]["clientId"], 0);
    assert_eq!(alerts[0]["category"], "fire_or_smoke");
    let messages = app.alert_messages();
    assert!(
        messages[0]
            .1
            .starts_with("URGENT: An unknown caller (+46739999999) described fire or smoke"),
        "{messages:?}"
    );
}

async fn a_call_with_nothing_alarming_opens_no_alert(backend: Backend) {
    let (app, token) = spawn(backend, true).await.logged_in(KARIN).await;
    deliver(
        &app,
        1,
        &ended(
            "q-1",
            "conv-q",
            CLIENT_3,
            "Nej då, jag har inte ramlat. Jag somnade bara i soffan.",
        ),
    )
    .await;
    assert_eq!(app.get("/alerts", Some(&token)).await.json(), json!([]));
    assert!(app.alert_messages().is_empty());
}

/// `TRIAGE_MODEL_ID`: a stand-in Bedrock model whose second opinion may raise a call to urgent
/// and never lowers one; it reads the caller's words with numbers withheld, never the agent's.
/// The store plays no part, so this runs on the in-memory store only.
#[tokio::test]
async fn a_configured_model_may_raise_a_call_to_urgent_but_never_lower_one() {
    let mut app = spawn(Backend::Memory, true).await;
    let (stand_in, model) = StandIn::start("eu.anthropic.claude-test-v1:0").await;
    app.api.urgency_model = Some(Arc::new(model));
    app.router = app.api.router();
    let token = app.login(KARIN).await;

    stand_in.answer_with(Behaviour::Answer(
        r#"{"urgent": true, "category": "stroke_signs", "reason": "sudden confusion and a weak arm"}"#
            .into(),
    ));
    let vague = "Något är väldigt konstigt idag, ring min dotter på 070-123 45 67.";
    deliver(&app, 1, &ended("m-1", "conv-m1", CLIENT_3, vague)).await;
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["category"], "stroke_signs");
    let shown = app
        .get(&format!("/alerts/{}", alerts[0]["id"]), Some(&token))
        .await
        .json();
    assert_eq!(
        shown["words"],
        "The language model: sudden confusion and a weak arm"
    );
    let prompt = &stand_in.prompts()[0];
    assert!(
        prompt.contains("Något är väldigt konstigt idag"),
        "{prompt}"
    );
    assert!(prompt.contains("[number withheld]"), "{prompt}");
    assert!(!prompt.contains("070-123"), "{prompt}");
    assert!(
        !prompt.contains("hemtjänstens assistent"),
        "never the agent's lines: {prompt}"
    );

    // A call the triage finds urgent is not asked about; a calm verdict never lowers it.
    stand_in.answer_with(Behaviour::Answer(
        r#"{"urgent": false, "category": null, "reason": "fine"}"#.into(),
    ));
    let asked = stand_in.prompts().len();
    deliver(&app, 1, &ended("m-2", "conv-m2", CLIENT_3, FELL)).await;
    assert_eq!(stand_in.prompts().len(), asked);
    assert_eq!(urgent_alerts(&app, &token).await.len(), 2);

    // A failing or slow model leaves the triage's answer: nothing, for a calm call.
    for behaviour in [Behaviour::Fail, Behaviour::Slow(Duration::from_secs(5))] {
        stand_in.answer_with(behaviour);
        let started = std::time::Instant::now();
        let id = format!("m-{}", stand_in.prompts().len() + 10);
        deliver(
            &app,
            1,
            &ended(&id, &id, CLIENT_3, "Jag vill bara prata lite."),
        )
        .await;
        assert!(started.elapsed() < Duration::from_millis(4500));
    }
    assert_eq!(urgent_alerts(&app, &token).await.len(), 2);
}

/// The README walkthrough's urgent call, against the demo data `local-api` starts with: the
/// alert it names is 43 (the entries' sequence stands at the demo's last entry, 42).
#[tokio::test]
async fn the_readme_walkthroughs_urgent_call_opens_alert_43() {
    let (app, token) = integration_tests::spawn_app(Backend::Memory)
        .await
        .logged_in(KARIN)
        .await;
    let body = json!({"type":"call.ended","eventId":"evt-9","conversationUuid":"conv-9",
        "startDate":"2026-11-24T10:00:00Z","endDate":"2026-11-24T10:02:00Z",
        "fromNumber":"+46731110003","toNumber":"+4687001000","direction":"inbound","requests":[],
        "transcript":[{"createdAt":"2026-11-24T10:00:05Z","by":"caller","category":1,
        "message":"Jag har ramlat i badrummet och kommer inte upp."}]});
    deliver(&app, 1, &body).await;
    let alerts = urgent_alerts(&app, &token).await;
    assert_eq!(alerts[0]["id"], 43);
    let (_, sms) = &app.alert_messages()[0];
    assert!(sms.starts_with(
        "URGENT: Margareta Lindqvist (+46731110003) described a fall in a call just now."
    ));
    assert!(sms.ends_with("acknowledge alert 43 in the portal."));
    let done = app
        .post_json(
            "/alerts/43/acknowledge",
            Some(&token),
            json!({"note": "The night patrol helped her up; no injury.", "outcome": "helped"}),
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.json());
}

/// What an urgent call adds to a call's DynamoDB requests: one alert id, then the first step.
#[tokio::test]
async fn an_urgent_call_adds_the_alert_id_and_its_first_step_to_the_calls_requests() {
    let app = spawn(Backend::DynamoDb, true).await;
    app.login(KARIN).await;
    let count = |app: &TestApp| {
        let counts = app
            .take_dynamo_requests()
            .expect("DynamoDB counts requests");
        let mut listed: Vec<(String, usize)> = counts.into_iter().collect();
        listed.sort();
        listed
    };
    app.take_dynamo_requests();
    deliver(
        &app,
        1,
        &ended("b-1", "conv-b1", CLIENT_3, "Jag vill bara prata lite."),
    )
    .await;
    let plain = count(&app);
    deliver(&app, 1, &ended("b-2", "conv-b2", CLIENT_3, FELL)).await;
    let urgent = count(&app);
    let total = |listed: &[(String, usize)]| listed.iter().map(|(_, n)| n).sum::<usize>();
    println!("plain call: {plain:?}\nurgent call: {urgent:?}");
    // The plain call: the delivery state, the client by number, two id counters (call, lines),
    // the call's transaction and its access record. The urgent one adds the alert's id, and
    // its first step: the alert and its client's name read again, the portal's contacts, the
    // step's conditional put and the disclosure's access record.
    assert_eq!(
        urgent,
        [
            ("BatchGetItem".to_string(), 2),
            ("GetItem".to_string(), 1),
            ("PutItem".to_string(), 1),
            ("Query".to_string(), 2),
            ("TransactWriteItems".to_string(), 3),
            ("UpdateItem".to_string(), 3),
        ]
    );
    assert_eq!((total(&plain), total(&urgent)), (6, 12));
}

on_both_stores!(
    an_urgent_call_opens_an_alert_and_its_sms_leave_within_the_same_request,
    a_redelivery_and_the_calls_analysis_open_no_second_alert,
    an_analysis_that_arrives_first_is_triaged_with_its_call,
    a_concern_found_by_the_analysis_is_raised_to_urgent_not_doubled,
    with_nobody_on_duty_every_reachable_contact_is_messaged_at_once,
    an_unacknowledged_urgent_alert_repeats_until_acknowledged_with_an_outcome,
    another_portal_cannot_see_or_acknowledge_the_alert,
    an_unknown_caller_in_an_emergency_is_escalated_too,
    a_call_with_nothing_alarming_opens_no_alert,
);
