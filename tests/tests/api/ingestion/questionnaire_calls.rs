//! Questionnaire calls ingested: an entry completed from its call's answers, answers held
//! until their call arrives, and a late call that completes an entry out of attempts.

use super::*;
use crate::support::start_entry;

async fn a_questionnaire_call_completes_its_entry_from_start_to_answers(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let plan = json!({
        "clientId": 4, "startDate": "2026-11-23T09:00:00+01:00",
        "interval": 2, "retries": 3, "intervalBackOffMultiplier": 1.5
    });
    let entry_id = start_entry(&app, &token, plan).await["id"]
        .as_i64()
        .unwrap();

    let first_pass: DateTime<Utc> = "2026-11-23T08:00:00Z".parse().unwrap();
    app.clock.set(first_pass);
    app.run_scheduler(first_pass).await;
    let dialled: Vec<_> = app
        .delivered_calls()
        .await
        .into_iter()
        .map(|(_, message)| message)
        .filter(|message| i64::from(message.questionnaire_client_id) == entry_id)
        .collect();
    assert_eq!(dialled.len(), 1, "the scheduler asked for one call");
    let message = &dialled[0];

    // The dialler calls the client and the platform reports the call with the entry id it was
    // given, as a string (as platforms pass variables), then its analysis with the answers.
    let call_start = first_pass + TimeDelta::minutes(1);
    let ended = json!({
        "type": "call.ended",
        "eventId": "evt-q1",
        "conversationUuid": "conv-q1",
        "startDate": call_start,
        "endDate": call_start + TimeDelta::minutes(2),
        "fromNumber": PORTAL_LINE,
        "toNumber": message.phone_number,
        "direction": "outbound",
        "dynamicVariables": {"questionnaireClientId": entry_id.to_string(), "attempt": message.attempt.to_string()},
        "transcript": [
            {"createdAt": call_start, "by": "agent", "message": "How are you feeling today, from 1 to 5?", "category": 0},
            {"createdAt": call_start + TimeDelta::seconds(5), "by": "client", "message": "Four.", "category": 1}
        ],
        "requests": []
    });
    app.clock.set(call_start + TimeDelta::minutes(3));
    app.take_dynamo_requests();
    let id = call_id(&app.deliver(1, &ended).await);
    // The entry is found by id in its index instead of the client by number.
    app.expect_requests(&[
        ("BatchGetItem", 1),
        ("Query", 1),
        ("UpdateItem", 2),
        ("TransactWriteItems", 2),
    ]);
    let mut analysis = analyzed("evt-q2", "conv-q1", "Feeling well.");
    analysis["answers"] = json!([
        {"questionId": 21, "answerText": "4", "answeredAt": call_start + TimeDelta::seconds(5)},
        {"questionId": 22, "answerText": "Yes, soup.", "answeredAt": call_start + TimeDelta::seconds(30)}
    ]);
    app.take_dynamo_requests();
    assert_eq!(call_id(&app.deliver(1, &analysis).await), id);
    app.expect_requests(&[("BatchGetItem", 1), ("Query", 1), ("TransactWriteItems", 2)]);

    // The morning's session has long expired: log in again, now.
    let token = app.login(KARIN).await;
    let call = &thread(&app, &token, id).await[0];
    assert_eq!(call["clientId"], 4);
    assert_eq!(call["isUnknown"], false);
    let variables: Value =
        serde_json::from_str(call["dynamicVariables"].as_str().unwrap()).unwrap();
    assert_eq!(variables["questionnaireClientId"], entry_id.to_string());

    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    let entry = detail["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == entry_id)
        .unwrap();
    assert_eq!(entry["phoneCallId"], id);
    assert_eq!(entry["nextTryAt"], Value::Null);
    let mut answers: Vec<&Value> = detail["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|answer| answer["questionnaireCallId"] == entry_id)
        .collect();
    answers.sort_by_key(|answer| answer["questionId"].as_i64());
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["answerText"], "4");
    assert_eq!(
        answers[0]["prompt"],
        "How are you feeling today, from 1 to 5?"
    );
    assert_eq!(answers[1]["answerText"], "Yes, soup.");

    // The retry the schedule had planned (two days later) never happens.
    for days in [2, 5, 10] {
        let later = first_pass + TimeDelta::days(days);
        app.run_scheduler(later).await;
    }
    let calls_for_entry = app
        .delivered_calls()
        .await
        .into_iter()
        .filter(|(_, message)| i64::from(message.questionnaire_client_id) == entry_id)
        .count();
    assert_eq!(calls_for_entry, 1);
}

async fn answers_held_before_the_call_reach_its_entry_and_foreign_entries_stay_untouched(
    backend: Backend,
) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    // Entry 41 (client 2, portal 1) is open; entry 42 belongs to portal 2.
    let mut analysis = analyzed("evt-a", "conv-q", "Fine.");
    analysis["answers"] = json!([
        {"questionId": 23, "answerText": "First thought.", "answeredAt": at(9)},
        {"questionId": 23, "answerText": "Nothing, thank you.", "answeredAt": at(8)},
        {"questionId": 99, "answerText": "Unasked.", "answeredAt": at(8)}
    ]);
    assert_eq!(app.deliver(1, &analysis).await.status, StatusCode::ACCEPTED);
    let mut call = ended("evt-e", "conv-q", "+46731110002");
    call["direction"] = json!("outbound");
    call["fromNumber"] = json!(PORTAL_LINE);
    call["toNumber"] = json!("+46731110002");
    call["dynamicVariables"] = json!({"questionnaireClientId": "41"});
    app.take_dynamo_requests();
    let id = call_id(&app.deliver(1, &call).await);
    // The entry and the questions (for the held answers' prompts) are read too.
    app.expect_requests(&[
        ("BatchGetItem", 1),
        ("Query", 2),
        ("UpdateItem", 3),
        ("TransactWriteItems", 2),
    ]);
    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    let entry = detail["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == 41)
        .unwrap();
    assert_eq!(entry["phoneCallId"], id);
    let mut answers: Vec<Value> = detail["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|answer| answer["questionnaireCallId"] == 41)
        .cloned()
        .collect();
    answers.sort_by_key(|answer| answer["questionId"].as_i64());
    // The fixture's answers to questions 21 and 22 stay; 23 is answered once, the last given.
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["answerText"], "4");
    assert_eq!(answers[2]["questionId"], 23);
    assert_eq!(answers[2]["answerText"], "Nothing, thank you.");
    assert_eq!(
        answers[2]["prompt"],
        "Is there anything you would like us to know?"
    );
    assert_eq!(answers[3]["questionId"], 99);
    assert_eq!(answers[3]["prompt"], Value::Null);

    // Portal 1 naming portal 2's entry records an ordinary call and leaves the entry alone.
    let mut foreign = ended("evt-f", "conv-f", CLIENT_3);
    foreign["dynamicVariables"] = json!({"questionnaireClientId": "42"});
    let foreign_id = call_id(&app.deliver(1, &foreign).await);
    assert_eq!(thread(&app, &token, foreign_id).await[0]["clientId"], 3);
    let ahmed = app.login("+46701000002").await;
    let theirs = app.get("/questionnaires/11", Some(&ahmed)).await.json();
    let entry_42 = theirs["clients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == 42)
        .unwrap();
    assert_eq!(entry_42["phoneCallId"], Value::Null);
}

async fn a_late_call_completes_an_entry_that_ran_out_of_attempts(backend: Backend) {
    // Entry 77 of client 3 is closed without a call: its last attempt went unanswered, or so
    // it seemed until the platform reported the call.
    let mut fixture = quiet_demo();
    fixture["questionnaires"][0]["clients"] = json!([{
        "id": 77, "clientId": 3, "questionnaireId": 11, "phoneCallId": null,
        "createdAt": "2026-11-10T08:00:00Z", "nextTryAt": null
    }]);
    let (app, token) = spawn_app_with(backend, &fixture.to_string())
        .await
        .logged_in(KARIN)
        .await;
    let mut call = ended("evt-late", "conv-late", PORTAL_LINE);
    call["direction"] = json!("outbound");
    call["toNumber"] = json!(CLIENT_3);
    call["dynamicVariables"] = json!({"questionnaireClientId": "77"});
    let id = call_id(&app.deliver(1, &call).await);
    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    assert_eq!(detail["clients"][0]["id"], 77);
    assert_eq!(detail["clients"][0]["phoneCallId"], id);
    // A second call naming the same entry is recorded, and the entry keeps its first call.
    let mut again = call.clone();
    again["eventId"] = json!("evt-late-2");
    again["conversationUuid"] = json!("conv-late-2");
    let second = call_id(&app.deliver(1, &again).await);
    assert_ne!(second, id);
    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    assert_eq!(detail["clients"][0]["phoneCallId"], id);
    assert_eq!(thread(&app, &token, second).await[0]["clientId"], 3);
}

on_both_stores!(
    a_questionnaire_call_completes_its_entry_from_start_to_answers,
    answers_held_before_the_call_reach_its_entry_and_foreign_entries_stay_untouched,
    a_late_call_completes_an_entry_that_ran_out_of_attempts,
);
