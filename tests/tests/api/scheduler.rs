//! Questionnaire scheduler scenarios, each on both stores (DynamoDB and SQS on moto): what a
//! pass sends, back-off, retries, recorded calls, calling hours, concurrent and killed passes,
//! what the dialler's `call.failed` reports do to the next try, and the pass's requests (alerts
//! and their escalation: tests/tests/api/alerts.rs).

mod dialler_reports;

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use http::StatusCode;
use integration_tests::{
    Backend, TestApp, fixture_with_due_entries, on_both_stores, quiet_demo, spawn_app_with,
    start_time,
};
use local_api::DEMO_FIXTURE;
use serde_json::{Value, json};
use shared::domain::EntryEnd;
use shared::ids::{EntryId, PortalId};
use shared::notify::{Dialler, DiallerMessage};
use shared::store::{BoxError, DueEntry};

use crate::demo::KARIN;
use crate::support::{at, entry_of, start_entry};

async fn spawn_quiet(backend: Backend) -> TestApp {
    spawn_app_with(backend, &quiet_demo().to_string()).await
}

/// Starts questionnaire 11 for client 1 of portal 1 (Gunnel Andersson) at `start`; the entry.
async fn start_for_gunnel(app: &TestApp, token: &str, start: DateTime<Utc>, retries: i32) -> Value {
    let plan = json!({
        "clientId": 1,
        "startDate": start,
        "interval": 2,
        "retries": retries,
        "intervalBackOffMultiplier": 1.5
    });
    start_entry(app, token, plan).await
}

fn counts(report: &Value) -> [u64; 5] {
    ["due", "claimed", "sent", "skipped", "closed"].map(|field| report[field].as_u64().unwrap())
}

async fn dedup_ids(app: &TestApp) -> Vec<String> {
    app.delivered_calls()
        .await
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

async fn a_due_entry_is_sent_once_with_what_the_dialler_needs(backend: Backend) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let created = start_for_gunnel(&app, &token, start_time(), 3).await;
    app.take_dynamo_requests();

    let report = app.run_scheduler(start_time()).await;
    assert_eq!(counts(&report), [1, 1, 1, 0, 0], "{report}");
    // Eight due-index shards, the alerts' escalation partition up to now, and all of it for
    // the count of alerts nobody was told of; the periods of unusual reading.
    app.expect_requests(&[("Query", 11), ("BatchGetItem", 1), ("UpdateItem", 2)]);
    let delivered = app.delivered_calls().await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0].0, format!("{id}-1"));
    let message = serde_json::to_value(&delivered[0].1).unwrap();
    assert_eq!(
        message,
        json!({
            "questionnaireClientId": id,
            "attempt": 1,
            "questionnaireId": 11,
            "firstMessage": "Hej! Jag ringer från hemtjänsten för den veckovisa hälsokollen. Har du en stund?",
            "clientId": 1,
            "portalId": 1,
            "name": "Gunnel Andersson",
            "phoneNumber": "+46731110001",
            "language": "sv"
        })
    );
    assert_eq!(report["dispatched"][0], message);

    let again = app
        .run_scheduler(start_time() + TimeDelta::minutes(5))
        .await;
    assert_eq!(counts(&again), [0, 0, 0, 0, 0]);
    assert_eq!(app.delivered_calls().await.len(), 1);
    assert_eq!(
        entry_of(&app, &token, &created["id"]).await["nextTryAt"],
        json!(start_time() + TimeDelta::days(2))
    );
}

async fn retries_back_off_by_the_multiplier_and_wait_for_calling_hours(backend: Backend) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let t0 = start_time();
    let created = start_for_gunnel(&app, &token, t0, 4).await;
    let id = &created["id"];
    let next_try = || async { entry_of(&app, &token, id).await["nextTryAt"].clone() };

    assert_eq!(app.run_scheduler(t0).await["sent"], 1);
    assert_eq!(next_try().await, json!(t0 + TimeDelta::days(2)));
    assert_eq!(
        app.run_scheduler(t0 + TimeDelta::days(2) - TimeDelta::seconds(1))
            .await["due"],
        0,
        "not due a second early"
    );
    assert_eq!(app.run_scheduler(t0 + TimeDelta::days(2)).await["sent"], 1);
    assert_eq!(next_try().await, json!(t0 + TimeDelta::days(5)));
    assert_eq!(app.run_scheduler(t0 + TimeDelta::days(5)).await["sent"], 1);
    let fourth = t0 + TimeDelta::hours(228);
    assert_eq!(next_try().await, json!(fourth), "+2, +3, then +4.5 days");

    // 2026-11-30T00:00Z is 01:00 in Stockholm: the call waits for 09:00 local (08:00Z).
    assert_eq!(fourth, at("2026-11-30T00:00:00Z"));
    let night = app.run_scheduler(fourth).await;
    assert_eq!(night["withinCallingHours"], false);
    assert_eq!(night["sent"], 0);
    assert_eq!(
        app.run_scheduler(at("2026-11-30T07:55:00Z")).await["sent"],
        0
    );
    let morning = app.run_scheduler(at("2026-11-30T08:00:00Z")).await;
    assert_eq!(
        counts(&morning),
        [1, 1, 1, 0, 1],
        "the last attempt closes: {morning}"
    );
    assert_eq!(next_try().await, Value::Null);

    let later = app.run_scheduler(t0 + TimeDelta::days(60)).await;
    assert_eq!(
        (&later["sent"], &later["alertsRaised"]),
        (&json!(0), &json!(1)),
        "no attempt after the last; its report never came: {later}"
    );
    let n = created["id"].as_i64().unwrap();
    assert_eq!(
        dedup_ids(&app).await,
        (1..=4).map(|a| format!("{n}-{a}")).collect::<Vec<_>>()
    );
}

async fn an_entry_out_of_retries_is_closed_and_the_client_can_be_started_again(backend: Backend) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let first = start_for_gunnel(&app, &token, start_time(), 1).await;
    app.take_dynamo_requests();
    let report = app.run_scheduler(start_time()).await;
    assert_eq!(counts(&report), [1, 1, 1, 0, 1]);
    app.expect_requests(&[
        ("Query", 11),
        ("BatchGetItem", 1),
        ("UpdateItem", 1),
        ("TransactWriteItems", 1),
    ]);
    assert_eq!(
        entry_of(&app, &token, &first["id"]).await["nextTryAt"],
        Value::Null
    );
    let later = app.run_scheduler(start_time() + TimeDelta::days(30)).await;
    assert_eq!(
        (&later["sent"], &later["alertsRaised"]),
        (&json!(0), &json!(1)),
        "no attempt after the last; its report never came: {later}"
    );

    let second = start_for_gunnel(&app, &token, start_time() + TimeDelta::days(1), 1).await;
    assert_ne!(
        second["id"], first["id"],
        "a closed entry does not block a new start"
    );
}

/// The entry with this id as the store has it, read directly.
async fn stored_entry(app: &TestApp, id: i32) -> Option<DueEntry> {
    app.api
        .services
        .store
        .entry_by_id(EntryId(id))
        .await
        .unwrap()
}

/// What call ingestion relies on: an entry is found by its id alone, open or closed.
async fn an_entry_is_found_by_its_id_alone_open_or_closed(backend: Backend) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let created = start_for_gunnel(&app, &token, start_time(), 1).await;
    let id = i32::try_from(created["id"].as_i64().unwrap()).unwrap();
    let open = stored_entry(&app, id).await.expect("open");
    assert_eq!(
        (
            open.portal_id,
            open.entry.client_id,
            open.entry.questionnaire_id
        ),
        (PortalId(1), 1, 11)
    );
    assert_eq!(open.schedule.attempts, 0);
    assert!(open.entry.next_try_at.is_some());

    app.run_scheduler(start_time()).await;
    let closed = stored_entry(&app, id).await.expect("closed");
    assert_eq!(closed.schedule.attempts, 1);
    assert_eq!(closed.entry.next_try_at, None);
    assert_eq!(closed.portal_id, 1);
    assert_eq!(stored_entry(&app, id + 1000).await, None);
}

/// The demo fixture plus entries for client 1 (called already: `phoneCallId` set), deleted
/// client 9, and inactive and unreachable clients added to portal 1.
fn fixture_with_entries_that_must_not_be_called() -> String {
    let mut fixture: Value = serde_json::from_str(DEMO_FIXTURE).unwrap();
    let clients = fixture["clients"].as_array_mut().unwrap();
    let template = clients[0].clone();
    for (id, inactive, phone) in [(50, true, "+46731110050"), (51, false, "")] {
        let mut client = template.clone();
        client["id"] = json!(id);
        client["nationalId"] = Value::Null;
        client["isInactive"] = json!(inactive);
        client["phone"] = json!(phone);
        client["primaryNumber"] = Value::Null;
        clients.push(client);
    }
    let entries = fixture["questionnaires"][0]["clients"]
        .as_array_mut()
        .unwrap();
    for (id, client, call) in [
        (60, 1, json!(1)),
        (61, 9, Value::Null),
        (62, 50, Value::Null),
        (63, 51, Value::Null),
    ] {
        entries.push(json!({
            "id": id,
            "clientId": client,
            "questionnaireId": 11,
            "phoneCallId": call,
            "createdAt": "2026-11-10T08:00:00Z",
            "nextTryAt": "2026-11-20T10:00:00Z"
        }));
    }
    fixture.to_string()
}

async fn only_reachable_clients_without_a_recorded_call_are_called(backend: Backend) {
    let app = spawn_app_with(backend, &fixture_with_entries_that_must_not_be_called()).await;
    // The demo's entries 41 and 42 are due at 2026-11-24T10:00Z; the added ones earlier.
    let first = app.run_scheduler(at("2026-11-20T12:00:00Z")).await;
    assert_eq!(
        counts(&first),
        [3, 0, 0, 2, 1],
        "entry 60 has a call and is not due; 61's client is deleted (closed); 62's client is \
         inactive and 63's has no number (skipped): {first}"
    );
    let second = app.run_scheduler(at("2026-11-24T10:00:00Z")).await;
    assert_eq!(counts(&second), [4, 2, 2, 2, 0], "{second}");
    let called: HashSet<i32> = app
        .delivered_calls()
        .await
        .into_iter()
        .map(|(_, message)| message.questionnaire_client_id)
        .collect();
    assert_eq!(called, HashSet::from([41, 42]));
}

async fn no_entry_is_read_or_called_outside_calling_hours_only_alerts_are_looked_at(
    backend: Backend,
) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    // 06:00 in Stockholm.
    let early = at("2026-11-21T05:00:00Z");
    start_for_gunnel(&app, &token, early, 3).await;
    app.take_dynamo_requests();
    let report = app.run_scheduler(early).await;
    assert_eq!(report["withinCallingHours"], false);
    assert_eq!(counts(&report), [0, 0, 0, 0, 0]);
    // The alerts' partitions, and the periods of unusual reading, which wait for no hour.
    app.expect_requests(&[("Query", 3)]);
    // 19:00 local is closed too; 09:00 local opens.
    assert_eq!(
        app.run_scheduler(at("2026-11-20T18:00:00Z")).await["withinCallingHours"],
        false
    );
    assert_eq!(
        app.run_scheduler(at("2026-11-21T08:00:00Z")).await["sent"],
        1
    );
}

async fn two_concurrent_passes_send_each_attempt_once(backend: Backend) {
    let app = spawn_app_with(backend, &fixture_with_due_entries(150)).await;
    let (one, two) = (app.api.scheduler(), app.api.scheduler());
    let (a, b) = tokio::join!(
        one.run_pass(start_time(), None),
        two.run_pass(start_time(), None)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    if backend == Backend::DynamoDb {
        // Over HTTP the passes interleave: both read every entry as due and race for it. In
        // memory the first pass claims before it first yields.
        assert_eq!((a.due, b.due), (150, 150), "{a:?} {b:?}");
    }
    assert_eq!(
        a.skipped + b.skipped,
        a.due + b.due - 150,
        "every lost claim is skipped"
    );
    assert_eq!(a.sent + b.sent, 150, "{a:?} {b:?}");
    assert_eq!(a.failed + b.failed, 0);
    let sent: Vec<String> = app
        .dialler
        .sent()
        .iter()
        .map(DiallerMessage::deduplication_id)
        .collect();
    let unique: HashSet<&String> = sent.iter().collect();
    assert_eq!(sent.len(), 150, "every attempt handed to the dialler once");
    assert_eq!(unique.len(), 150);
    let delivered = dedup_ids(&app).await;
    assert_eq!(delivered.len(), 150);
    assert_eq!(delivered.iter().collect::<HashSet<_>>(), unique);
}

/// A dialler that never answers: the pass awaiting it is killed by the test.
struct Stalled(Arc<tokio::sync::Notify>);

#[async_trait]
impl Dialler for Stalled {
    async fn dial(&self, _: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        self.0.notify_one();
        std::future::pending().await
    }
}

async fn a_pass_killed_after_claiming_is_completed_by_the_next_with_the_same_id(backend: Backend) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let created = start_for_gunnel(&app, &token, start_time(), 3).await;
    let reached = Arc::new(tokio::sync::Notify::new());
    let mut doomed = app.api.scheduler();
    doomed.dialler = Arc::new(Stalled(reached.clone()));
    tokio::select! {
        _ = doomed.run_pass(start_time(), None) => panic!("the stalled pass cannot finish"),
        _ = reached.notified() => {}
    }
    // The pass is dropped after its claim and before any send.
    assert!(app.dialler.sent().is_empty());

    let held = app
        .run_scheduler(start_time() + TimeDelta::seconds(30))
        .await;
    assert_eq!(
        held["due"], 0,
        "the claim's lease holds for a minute: {held}"
    );
    let resumed = app
        .run_scheduler(start_time() + TimeDelta::seconds(61))
        .await;
    assert_eq!(counts(&resumed), [1, 1, 1, 0, 0], "{resumed}");
    let id = created["id"].as_i64().unwrap();
    assert_eq!(
        dedup_ids(&app).await,
        [format!("{id}-1")],
        "the same attempt, not a new one"
    );
    assert_eq!(
        entry_of(&app, &token, &created["id"]).await["nextTryAt"],
        json!(start_time() + TimeDelta::seconds(61) + TimeDelta::days(2))
    );
    assert_eq!(
        app.run_scheduler(start_time() + TimeDelta::hours(1)).await["due"],
        0,
        "confirmed: not due again until the next try"
    );
}

async fn the_pass_time_must_be_a_timestamp(backend: Backend) {
    let app = spawn_quiet(backend).await;
    let answer = app
        .send(
            http::Request::post("/_dev/run-scheduler?now=tomorrow")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    answer.problem(StatusCode::BAD_REQUEST);
}

on_both_stores!(
    an_entry_is_found_by_its_id_alone_open_or_closed,
    a_due_entry_is_sent_once_with_what_the_dialler_needs,
    retries_back_off_by_the_multiplier_and_wait_for_calling_hours,
    an_entry_out_of_retries_is_closed_and_the_client_can_be_started_again,
    only_reachable_clients_without_a_recorded_call_are_called,
    no_entry_is_read_or_called_outside_calling_hours_only_alerts_are_looked_at,
    two_concurrent_passes_send_each_attempt_once,
    a_pass_killed_after_claiming_is_completed_by_the_next_with_the_same_id,
    the_pass_time_must_be_a_timestamp,
);
