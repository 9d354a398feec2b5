//! What the dialler's and the platform's reports of a placed attempt do to its entry: a busy
//! line, no answer or voicemail, an invalid number or a refusal, another portal's entry, a
//! call too short to be a contact, and the last attempt reaching nobody.

use super::*;

/// A quiet app with Gunnel's entry (3 tries) started and its first attempt placed at
/// `start_time()`: the app, a session of Karin's and the entry.
async fn first_attempt_placed(backend: Backend) -> (TestApp, String, Value) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let created = start_for_gunnel(&app, &token, start_time(), 3).await;
    assert_eq!(app.run_scheduler(start_time()).await["sent"], 1);
    (app, token, created)
}

/// The dialler's report that attempt `attempt` of entry `id` reached nobody.
fn failed(event_id: &str, id: &Value, attempt: i32, outcome: &str, placed: DateTime<Utc>) -> Value {
    json!({
        "type": "call.failed", "eventId": event_id, "questionnaireClientId": id,
        "attempt": attempt, "toNumber": "+46731110001", "startDate": placed, "outcome": outcome,
        "detail": "SIP 486",
    })
}

async fn a_busy_line_is_called_again_in_half_an_hour_and_a_redelivery_changes_nothing(
    backend: Backend,
) {
    let (app, token, created) = first_attempt_placed(backend).await;
    let t0 = start_time();
    let id = &created["id"];

    let busy = failed("fail-1", id, 1, "busy", t0 + TimeDelta::minutes(1));
    let answer = app.deliver(1, &busy).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(answer.json(), json!({"phoneCallId": null}));
    let sooner = t0 + TimeDelta::minutes(31);
    assert_eq!(entry_of(&app, &token, id).await["nextTryAt"], json!(sooner));
    assert_eq!(
        app.run_scheduler(sooner - TimeDelta::seconds(1)).await["due"],
        0
    );
    assert_eq!(app.run_scheduler(sooner).await["sent"], 1, "attempt 2");
    let after_second = entry_of(&app, &token, id).await["nextTryAt"].clone();
    assert_eq!(after_second, json!(sooner + TimeDelta::days(3)));

    let again = app.deliver(1, &busy).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(
        again.json(),
        answer.json(),
        "a redelivery answers as the first"
    );
    assert_eq!(entry_of(&app, &token, id).await["nextTryAt"], after_second);
    // The same eventId with another report is no redelivery: refused, and nothing changes.
    let reused = failed(
        "fail-1",
        id,
        1,
        "invalid_number",
        t0 + TimeDelta::minutes(1),
    );
    app.deliver(1, &reused).await.problem(StatusCode::CONFLICT);
    assert_eq!(entry_of(&app, &token, id).await["nextTryAt"], after_second);
    let n = id.as_i64().unwrap();
    assert_eq!(dedup_ids(&app).await, [format!("{n}-1"), format!("{n}-2")]);
}

async fn no_answer_and_voicemail_keep_the_back_off(backend: Backend) {
    let (app, token, created) = first_attempt_placed(backend).await;
    let t0 = start_time();
    let id = &created["id"];
    for (n, outcome) in ["no_answer", "voicemail", "failed"].into_iter().enumerate() {
        let report = failed(&format!("quiet-{n}"), id, 1, outcome, t0);
        assert_eq!(app.deliver(1, &report).await.status, StatusCode::OK);
    }
    assert_eq!(
        entry_of(&app, &token, id).await["nextTryAt"],
        json!(t0 + TimeDelta::days(2))
    );
    assert_eq!(app.run_scheduler(t0 + TimeDelta::hours(1)).await["due"], 0);
    assert_eq!(app.run_scheduler(t0 + TimeDelta::days(2)).await["sent"], 1);
}

async fn an_invalid_number_or_a_refusal_ends_the_entry_and_a_late_report_changes_nothing(
    backend: Backend,
) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let t0 = start_time();
    for (n, outcome) in ["invalid_number", "rejected"].into_iter().enumerate() {
        let start = t0 + TimeDelta::days(10 * i64::try_from(n).unwrap());
        let created = start_for_gunnel(&app, &token, start, 3).await;
        let id = &created["id"];
        assert_eq!(app.run_scheduler(start).await["sent"], 1);
        let report = failed(&format!("end-{n}"), id, 1, outcome, start);
        assert_eq!(app.deliver(1, &report).await.status, StatusCode::OK);
        assert_eq!(
            entry_of(&app, &token, id).await["nextTryAt"],
            Value::Null,
            "{outcome}"
        );
        assert_eq!(
            app.run_scheduler(start + TimeDelta::days(5)).await["due"],
            0
        );
    }

    // An earlier attempt's outcome arriving after the next attempt was placed.
    let start = t0 + TimeDelta::days(30);
    let created = start_for_gunnel(&app, &token, start, 3).await;
    let id = &created["id"];
    assert_eq!(app.run_scheduler(start).await["sent"], 1);
    assert_eq!(
        app.run_scheduler(start + TimeDelta::days(2)).await["sent"],
        1
    );
    let late = failed("late-1", id, 1, "invalid_number", start);
    assert_eq!(app.deliver(1, &late).await.status, StatusCode::OK);
    assert_eq!(
        entry_of(&app, &token, id).await["nextTryAt"],
        json!(start + TimeDelta::days(5)),
        "attempt 2 stands"
    );
}

async fn a_report_for_another_portals_entry_is_acknowledged_and_changes_nothing(backend: Backend) {
    let (app, token, created) = first_attempt_placed(backend).await;
    let t0 = start_time();
    let id = &created["id"];
    let forged = failed("other-1", id, 1, "invalid_number", t0);
    let answer = app.deliver(2, &forged).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json(), json!({"phoneCallId": null}));
    assert_eq!(
        entry_of(&app, &token, id).await["nextTryAt"],
        json!(t0 + TimeDelta::days(2))
    );

    let unknown = app.deliver(1, &failed("bad-1", id, 1, "hung_up", t0)).await;
    let problem = unknown.problem(StatusCode::BAD_REQUEST);
    assert!(
        problem["errors"]["outcome"][0]
            .as_str()
            .unwrap()
            .contains("`hung_up`"),
        "{problem}"
    );
    let mut bad = failed("bad-2", id, 0, "busy", t0);
    bad["toNumber"] = json!("not a number");
    let problem = app.deliver(1, &bad).await.problem(StatusCode::BAD_REQUEST);
    let mut fields: Vec<&String> = problem["errors"].as_object().unwrap().keys().collect();
    fields.sort();
    assert_eq!(fields, ["attempt", "toNumber"], "{problem}");
}

/// The platform's `call.ended` of entry `id`'s call, `seconds` long, placed at `placed`.
fn ended(event_id: &str, id: &Value, placed: DateTime<Utc>, seconds: i64) -> Value {
    json!({
        "type": "call.ended", "eventId": event_id, "conversationUuid": format!("conv-{event_id}"),
        "startDate": placed, "endDate": placed + TimeDelta::seconds(seconds),
        "fromNumber": "+4687001000", "toNumber": "+46731110001", "direction": "outbound",
        "dynamicVariables": {"questionnaireClientId": id.to_string()},
        "transcript": [{"createdAt": placed, "by": "agent", "message": "Hej!", "category": 0}],
    })
}

async fn a_call_too_short_to_be_a_contact_is_recorded_but_leaves_the_entry_open(backend: Backend) {
    let (app, token, created) = first_attempt_placed(backend).await;
    let t0 = start_time();
    let id = &created["id"];

    let short = app.deliver(1, &ended("short-1", id, t0, 14)).await;
    assert_eq!(short.status, StatusCode::OK, "{}", short.json());
    assert!(short.json()["phoneCallId"].is_i64(), "the call is recorded");
    let after_short = entry_of(&app, &token, id).await;
    assert_eq!(after_short["phoneCallId"], Value::Null);
    assert_eq!(after_short["nextTryAt"], json!(t0 + TimeDelta::days(2)));

    assert_eq!(app.run_scheduler(t0 + TimeDelta::days(2)).await["sent"], 1);
    let placed = t0 + TimeDelta::days(2);
    let long = app.deliver(1, &ended("long-1", id, placed, 15)).await;
    assert_eq!(long.status, StatusCode::OK);
    let completed = entry_of(&app, &token, id).await;
    assert_eq!(completed["phoneCallId"], long.json()["phoneCallId"]);
    assert_eq!(completed["nextTryAt"], Value::Null);
}

/// How entry `id` ended, as the store holds it (interface v1 shows only `nextTryAt`).
async fn ended_as(app: &TestApp, id: &Value) -> (Option<EntryEnd>, usize) {
    let id = i32::try_from(id.as_i64().unwrap()).unwrap();
    let due = app
        .api
        .integrations_state()
        .store
        .entry_by_id(EntryId(id))
        .await
        .unwrap()
        .expect("the entry");
    (due.ended, due.outcomes.len())
}

async fn the_last_attempt_reaching_nobody_ends_the_entry_once_and_a_reached_one_never(
    backend: Backend,
) {
    let (app, token) = spawn_quiet(backend).await.logged_in(KARIN).await;
    let t0 = start_time();
    let created = start_for_gunnel(&app, &token, t0, 1).await;
    let id = &created["id"];
    assert_eq!(app.run_scheduler(t0).await["closed"], 1, "the last attempt");
    assert_eq!(
        ended_as(&app, id).await,
        (None, 0),
        "its outcome is awaited"
    );
    let busy = failed("last-1", id, 1, "busy", t0);
    assert_eq!(app.deliver(1, &busy).await.status, StatusCode::OK);
    assert_eq!(ended_as(&app, id).await, (Some(EntryEnd::Exhausted), 1));
    assert_eq!(app.deliver(1, &busy).await.status, StatusCode::OK);
    let another = failed("last-2", id, 1, "invalid_number", t0);
    assert_eq!(app.deliver(1, &another).await.status, StatusCode::OK);
    assert_eq!(
        ended_as(&app, id).await,
        (Some(EntryEnd::Exhausted), 2),
        "ended once; a later report is only kept"
    );

    // The last attempt answered by a call too short to be a contact.
    let start = t0 + TimeDelta::days(10);
    let short = start_for_gunnel(&app, &token, start, 1).await;
    assert_eq!(app.run_scheduler(start).await["sent"], 1);
    let answer = app
        .deliver(1, &ended("last-short", &short["id"], start, 5))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        ended_as(&app, &short["id"]).await,
        (Some(EntryEnd::Exhausted), 1)
    );

    // The last attempt reached the client: a stray failure report ends nothing.
    let start = t0 + TimeDelta::days(20);
    let reached = start_for_gunnel(&app, &token, start, 1).await;
    assert_eq!(app.run_scheduler(start).await["sent"], 1);
    let call = app
        .deliver(1, &ended("last-long", &reached["id"], start, 60))
        .await;
    assert_eq!(call.status, StatusCode::OK);
    let stray = failed("last-stray", &reached["id"], 1, "no_answer", start);
    assert_eq!(app.deliver(1, &stray).await.status, StatusCode::OK);
    assert_eq!(ended_as(&app, &reached["id"]).await, (None, 1));
}

on_both_stores!(
    the_last_attempt_reaching_nobody_ends_the_entry_once_and_a_reached_one_never,
    a_call_too_short_to_be_a_contact_is_recorded_but_leaves_the_entry_open,
    a_busy_line_is_called_again_in_half_an_hour_and_a_redelivery_changes_nothing,
    no_answer_and_voicemail_keep_the_back_off,
    an_invalid_number_or_a_refusal_ends_the_entry_and_a_late_report_changes_nothing,
    a_report_for_another_portals_entry_is_acknowledged_and_changes_nothing,
);
