//! Nobody falls through: entries that end without reaching their client raise one alert, the
//! scheduler escalates it to the portal's final-outpost contacts in turn, by window, then all
//! at once, and staff acknowledge it. Each scenario on both stores, driven by the clock and
//! signed `call.failed` reports.

use chrono::{DateTime, TimeDelta, Utc};
use http::StatusCode;
use integration_tests::{Backend, TestApp, on_both_stores, spawn_app_with, start_time};
use serde_json::{Value, json};

use crate::demo::{AHMED, DAY, EVENING, KARIN, NIGHT};
use crate::support::{assert_alert_hidden_from, final_outpost_demo, start_entry};

/// The demo without entries, every contact of portal 1 a final-outpost one.
async fn spawn(backend: Backend) -> TestApp {
    spawn_app_with(backend, &final_outpost_demo().to_string()).await
}

/// Starts questionnaire 11 for Gunnel (client 1, portal 1) at `start` with `retries` attempts
/// one day apart, and places the first attempt; the entry's id.
async fn first_attempt(app: &TestApp, token: &str, start: DateTime<Utc>, retries: i32) -> Value {
    let plan = json!({
        "clientId": 1, "startDate": start,
        "interval": 1, "retries": retries, "intervalBackOffMultiplier": 1.0
    });
    let entry = start_entry(app, token, plan).await;
    assert_eq!(app.run_scheduler(start).await["sent"], 1);
    entry["id"].clone()
}

fn failed(event_id: &str, id: &Value, attempt: i32, outcome: &str, placed: DateTime<Utc>) -> Value {
    json!({
        "type": "call.failed", "eventId": event_id, "questionnaireClientId": id,
        "attempt": attempt, "toNumber": "+46731110001", "startDate": placed, "outcome": outcome,
    })
}

async fn report(app: &TestApp, event: &Value) {
    let answer = app.deliver(1, event).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
}

async fn alert(app: &TestApp, token: &str, id: &Value) -> Value {
    let answer = app.get(&format!("/alerts/{id}"), Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()
}

/// 12:00 UTC is 13:00 in Stockholm: only the day contact's window is open.
fn t0() -> DateTime<Utc> {
    start_time()
}

async fn an_exhausted_entry_raises_one_alert_and_the_first_contact_in_window_is_messaged(
    backend: Backend,
) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let id = first_attempt(&app, &token, t0(), 1).await;
    let open = app.get("/alerts?status=open", Some(&token)).await.json();
    assert_eq!(open, json!([]), "the last attempt's report is awaited");

    report(&app, &failed("x-1", &id, 1, "no_answer", t0())).await;
    report(&app, &failed("x-1", &id, 1, "no_answer", t0())).await;
    let open = app.get("/alerts?status=open", Some(&token)).await.json();
    assert_eq!(open.as_array().unwrap().len(), 1, "{open}");
    assert_eq!(open[0]["id"], id);
    assert_eq!(open[0]["clientName"], "Gunnel Andersson");
    assert_eq!(open[0]["reason"], "exhausted");
    assert_eq!(open[0]["attempts"][0]["outcome"], "no_answer");

    let pass = app.run_scheduler(t0() + TimeDelta::minutes(5)).await;
    assert_eq!(pass["notificationsSent"], 1, "{pass}");
    let messages = app.alert_messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].0, DAY);
    assert!(messages[0].1.starts_with("Gunnel Andersson did not answer"));
    assert!(messages[0].1.contains(&format!("alert {id}")));

    let shown = alert(&app, &token, &id).await;
    assert_eq!(shown["escalation"], "notifying");
    assert_eq!(shown["notifications"][0]["contactDetailId"], 301);
    assert_eq!(shown["notifications"][0]["delivery"], "sent");
    assert_eq!(
        shown["nextStepAt"],
        json!(t0() + TimeDelta::minutes(35)),
        "the next contact after the 30-minute delay"
    );
    let again = app.run_scheduler(t0() + TimeDelta::minutes(10)).await;
    assert_eq!(again["notificationsSent"], 0, "nothing before the delay");

    // The SMS named the client outside the organisation: the access log says so.
    let log = app.get("/access-log?limit=100", Some(&token)).await.json();
    let disclosures: Vec<&Value> = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["action"] == "alert.notify")
        .collect();
    assert_eq!(disclosures.len(), 1, "{log}");
    assert_eq!(disclosures[0]["accessor"]["kind"], "scheduler");
    assert_eq!(disclosures[0]["clientIds"], json!([1]));
}

async fn without_acknowledgement_contacts_are_messaged_in_turn_by_window_then_all_at_once(
    backend: Backend,
) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let id = first_attempt(&app, &token, t0(), 1).await;
    report(&app, &failed("w-1", &id, 1, "busy", t0())).await;

    app.run_scheduler(t0()).await;
    assert_eq!(app.alert_recipients(), [DAY]);
    // 12:30 UTC: the night contact (priority 1) and the evening one are outside their windows.
    let waiting = app.run_scheduler(t0() + TimeDelta::minutes(30)).await;
    assert_eq!(waiting["notificationsSent"], 0);
    let shown = alert(&app, &token, &id).await;
    assert_eq!(shown["escalation"], "waiting_for_window");
    let evening_opens = "2026-11-20T15:00:00Z".parse::<DateTime<Utc>>().unwrap();
    assert_eq!(shown["nextStepAt"], json!(evening_opens));

    app.run_scheduler(evening_opens).await;
    assert_eq!(app.alert_recipients(), [DAY, EVENING], "16:00 Stockholm");
    let night_opens = "2026-11-20T21:00:00Z".parse::<DateTime<Utc>>().unwrap();
    app.run_scheduler(evening_opens + TimeDelta::minutes(30))
        .await;
    assert_eq!(
        alert(&app, &token, &id).await["nextStepAt"],
        json!(night_opens)
    );
    app.run_scheduler(night_opens).await;
    assert_eq!(
        app.alert_recipients(),
        [DAY, EVENING, NIGHT],
        "22:00 Stockholm"
    );

    // Everyone had a turn: all at once, each inside their window.
    app.run_scheduler(night_opens + TimeDelta::minutes(30))
        .await;
    assert_eq!(app.alert_recipients(), [DAY, EVENING, NIGHT, NIGHT]);
    let shown = alert(&app, &token, &id).await;
    assert_eq!(shown["notifications"][3]["round"], "all");
    let morning = "2026-11-21T06:00:00Z".parse::<DateTime<Utc>>().unwrap();
    assert_eq!(shown["nextStepAt"], json!(morning), "07:00 Stockholm");
    app.run_scheduler(morning).await;
    assert_eq!(app.alert_recipients()[4..], [DAY]);
    let afternoon = "2026-11-21T15:00:00Z".parse::<DateTime<Utc>>().unwrap();
    assert_eq!(
        alert(&app, &token, &id).await["nextStepAt"],
        json!(afternoon)
    );
    app.run_scheduler(afternoon).await;
    assert_eq!(app.alert_recipients()[4..], [DAY, EVENING]);
    let shown = alert(&app, &token, &id).await;
    assert_eq!(shown["escalation"], "all_notified");
    assert_eq!(shown["status"], "open", "stays open for staff");
    assert_eq!(shown["nextStepAt"], Value::Null);
    app.run_scheduler(afternoon + TimeDelta::hours(5)).await;
    assert_eq!(app.alert_recipients().len(), 6, "never again");
}

async fn acknowledging_stops_the_escalation_once_and_records_who(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let id = first_attempt(&app, &token, t0(), 1).await;
    report(&app, &failed("a-1", &id, 1, "invalid_number", t0())).await;
    app.run_scheduler(t0()).await;
    assert_eq!(app.alert_recipients(), [DAY]);

    let path = format!("/alerts/{id}/acknowledge");
    let missing = app.post_json(&path, Some(&token), json!({})).await;
    let problem = missing.problem(StatusCode::BAD_REQUEST);
    assert!(problem["errors"]["note"].is_array(), "{problem}");
    let blank = app
        .post_json(&path, Some(&token), json!({"note": "  "}))
        .await;
    blank.problem(StatusCode::BAD_REQUEST);

    let note = "Called her daughter; Gunnel is fine.";
    let done = app
        .post_json(&path, Some(&token), json!({"note": note}))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.json());
    let done = done.json();
    assert_eq!(done["status"], "acknowledged");
    assert_eq!(done["reason"], "invalid_number");
    assert_eq!(done["note"], note);
    assert!(done["acknowledgedBy"].is_i64());
    assert_eq!(done["escalation"], "stopped");

    let second = app
        .post_json(&path, Some(&token), json!({"note": "again"}))
        .await;
    second.problem(StatusCode::CONFLICT);
    app.run_scheduler(t0() + TimeDelta::hours(12)).await;
    assert_eq!(app.alert_recipients(), [DAY], "nobody more");
    let open = app.get("/alerts?status=open", Some(&token)).await.json();
    assert_eq!(open, json!([]));
    let acknowledged = app
        .get("/alerts?status=acknowledged", Some(&token))
        .await
        .json();
    assert_eq!(acknowledged[0]["note"], note);
}

async fn another_portals_alert_is_missing_and_bad_queries_are_refused(backend: Backend) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let id = first_attempt(&app, &token, t0(), 1).await;
    report(&app, &failed("p-1", &id, 1, "invalid_number", t0())).await;

    let stranger = app.login(AHMED).await;
    assert_alert_hidden_from(&app, &stranger, &id, json!({"note": "not mine"})).await;
    assert_eq!(app.get("/alerts", Some(&stranger)).await.json(), json!([]));
    app.get("/alerts", None)
        .await
        .problem(StatusCode::UNAUTHORIZED);
    for query in [
        "status=closed",
        "limit=0",
        "limit=1001",
        "cursor=-1",
        "cursor=x",
    ] {
        app.get(&format!("/alerts?{query}"), Some(&token))
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
    assert_eq!(alert(&app, &token, &id).await["status"], "open");
}

async fn a_refusal_raises_no_alert_and_an_unreported_last_attempt_does_after_two_hours(
    backend: Backend,
) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let refused = first_attempt(&app, &token, t0(), 1).await;
    report(&app, &failed("r-1", &refused, 1, "rejected", t0())).await;
    assert_eq!(app.get("/alerts", Some(&token)).await.json(), json!([]));

    let start = t0() + TimeDelta::days(3);
    let silent = first_attempt(&app, &token, start, 1).await;
    let early = app.run_scheduler(start + TimeDelta::minutes(90)).await;
    assert_eq!(early["alertsRaised"], 0, "{early}");
    let late = app
        .run_scheduler(start + TimeDelta::hours(2) + TimeDelta::minutes(5))
        .await;
    assert_eq!(late["alertsRaised"], 1, "{late}");
    let shown = alert(&app, &token, &silent).await;
    assert_eq!(shown["reason"], "exhausted");
    assert_eq!(shown["attempts"][0]["outcome"], "failed");
    assert_eq!(
        app.run_scheduler(start + TimeDelta::hours(4)).await["alertsRaised"],
        0,
        "once"
    );
    // A report arriving after the alert changes nothing.
    report(&app, &failed("r-2", &silent, 1, "invalid_number", start)).await;
    let all = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert_eq!(all[0]["reason"], "exhausted");

    // A last attempt that reached the client raises nothing.
    let start = t0() + TimeDelta::days(6);
    let reached = first_attempt(&app, &token, start, 1).await;
    let call = json!({
        "type": "call.ended", "eventId": "r-call", "conversationUuid": "conv-r-call",
        "startDate": start, "endDate": start + TimeDelta::seconds(90),
        "fromNumber": "+4687001000", "toNumber": "+46731110001", "direction": "outbound",
        "dynamicVariables": {"questionnaireClientId": reached.to_string()},
        "transcript": [{"createdAt": start, "by": "agent", "message": "Hej!", "category": 0}],
    });
    report(&app, &call).await;
    let pass = app.run_scheduler(start + TimeDelta::hours(3)).await;
    assert_eq!(pass["alertsRaised"], 0, "{pass}");
    assert_eq!(
        app.get("/alerts", Some(&token))
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

async fn concurrent_passes_and_repeated_reports_raise_one_alert_and_send_each_message_once(
    backend: Backend,
) {
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let mut ids = Vec::new();
    // Five entries of five clients, each ending on its only attempt, every report sent twice.
    for (n, client) in [1, 2, 3, 4, 5].into_iter().enumerate() {
        let answer = app
            .post_json(
                "/questionnaires/11/start-for-clients",
                Some(&token),
                json!([{
                    "clientId": client, "questionnaireId": 11, "startDate": t0(),
                    "interval": 1, "retries": 1, "intervalBackOffMultiplier": 1.0
                }]),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
        ids.push((n, answer.json()["created"][0]["id"].clone()));
    }
    assert_eq!(app.run_scheduler(t0()).await["sent"], 5);
    for (n, id) in &ids {
        let event = failed(&format!("c-{n}"), id, 1, "no_answer", t0());
        let (a, b) = tokio::join!(app.deliver(1, &event), app.deliver(1, &event));
        assert!(a.status.is_success() && b.status.is_success());
    }
    let (one, two) = (app.api.scheduler(), app.api.scheduler());
    let now = t0() + TimeDelta::minutes(5);
    let (a, b) = tokio::join!(one.run_pass(now, None), two.run_pass(now, None));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(
        a.notifications_sent + b.notifications_sent,
        5,
        "{a:?} {b:?}"
    );
    assert_eq!(app.alert_recipients(), [DAY; 5]);
    let alerts = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(alerts.as_array().unwrap().len(), 5);

    let later = now + TimeDelta::hours(3);
    let (a, b) = tokio::join!(one.run_pass(later, None), two.run_pass(later, None));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(
        a.notifications_sent + b.notifications_sent,
        5,
        "evening contact, once each"
    );
    assert_eq!(app.alert_recipients()[5..], [EVENING; 5]);

    // Paging through them two at a time.
    let first = app.get("/alerts?limit=2", Some(&token)).await;
    let link = first.headers["link"].to_str().unwrap().to_string();
    assert_eq!(
        link,
        format!("</alerts?limit=2&cursor={}>; rel=\"next\"", ids[1].1)
    );
    let second = app
        .get(
            &format!("/alerts?limit=2&cursor={}", ids[1].1),
            Some(&token),
        )
        .await
        .json();
    assert_eq!(second[0]["id"], ids[2].1);
}

/// The alerts a pass counts as `AlertsUnnotified`: in the count from its first delay until a
/// contact is told, and out of the escalation's reach once acknowledged.
async fn an_alert_nobody_was_told_of_is_counted_until_a_contact_is(backend: Backend) {
    use shared::domain::Delays;
    use shared::store::EscalationStore;
    let (app, token) = spawn(backend).await.logged_in(KARIN).await;
    let id = first_attempt(&app, &token, t0(), 1).await;
    report(&app, &failed("u-1", &id, 1, "no_answer", t0())).await;
    let store = app.api.services.store::<dyn EscalationStore>();
    let late = t0() + TimeDelta::minutes(30);
    let delays = Delays::default();

    let waiting = store.escalating_alerts(100).await.unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(json!(waiting[0].id), id);
    assert!(!waiting[0].is_unnotified_at(late - TimeDelta::seconds(1), delays));
    assert!(waiting[0].is_unnotified_at(late, delays));

    let pass = app.run_scheduler(t0() + TimeDelta::minutes(5)).await;
    assert_eq!(pass["notificationsSent"], 1, "{pass}");
    let told = store.escalating_alerts(100).await.unwrap();
    assert_eq!(told.len(), 1, "the next contact is still to come: {told:?}");
    assert!(!told[0].is_unnotified_at(late, delays));

    let path = format!("/alerts/{id}/acknowledge");
    let done = app
        .post_json(&path, Some(&token), json!({"note": "Gunnel is fine."}))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.json());
    assert_eq!(store.escalating_alerts(100).await.unwrap(), []);
}

on_both_stores!(
    an_alert_nobody_was_told_of_is_counted_until_a_contact_is,
    an_exhausted_entry_raises_one_alert_and_the_first_contact_in_window_is_messaged,
    without_acknowledgement_contacts_are_messaged_in_turn_by_window_then_all_at_once,
    acknowledging_stops_the_escalation_once_and_records_who,
    another_portals_alert_is_missing_and_bad_queries_are_refused,
    a_refusal_raises_no_alert_and_an_unreported_last_attempt_does_after_two_hours,
    concurrent_passes_and_repeated_reports_raise_one_alert_and_send_each_message_once,
);
