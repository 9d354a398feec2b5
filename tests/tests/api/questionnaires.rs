//! Questionnaire scenarios, each on both stores: list, detail scoped to the portal, inserting
//! questions (also concurrently), and starting a questionnaire for clients.

use http::StatusCode;
use integration_tests::{Backend, TestApp, error_fields, on_both_stores, without_trace};
use serde_json::{Value, json};

use crate::demo::{AHMED, KARIN, SARA};
use crate::support::{ids, spawn_logged_in};

async fn detail(app: &TestApp, token: &str) -> Value {
    let answer = app.get("/questionnaires/11", Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    answer.json()
}

fn start(client_id: i64) -> Value {
    json!({
        "clientId": client_id,
        "questionnaireId": 11,
        "startDate": "2026-11-23T09:00:00+01:00",
        "interval": 2,
        "retries": 3,
        "intervalBackOffMultiplier": 1.5
    })
}

async fn questionnaires_are_listed_in_their_list_form(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/questionnaires", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    app.expect_requests(&[("GetItem", 1), ("Query", 1)]);
    let list = answer.json();
    assert_eq!(ids(&list, "id"), [11]);
    assert_eq!(list[0].as_object().unwrap().len(), 9, "list form: {list}");
    assert_eq!(list[0]["intervalBackOffMultiplier"], 1.5);
}

async fn the_detail_holds_only_the_callers_portals_entries_and_answers(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let mine = detail(&app, &karin).await;
    app.expect_requests(&[("GetItem", 1), ("Query", 2), ("TransactWriteItems", 1)]);
    assert_eq!(ids(&mine["questions"], "position"), [1, 2, 3]);
    assert_eq!(ids(&mine["clients"], "id"), [41]);
    assert_eq!(ids(&mine["answers"], "questionId"), [21, 22]);
    assert_eq!(mine["clients"][0]["clientId"], 2);

    let ahmed = app.login(AHMED).await;
    let theirs = detail(&app, &ahmed).await;
    assert_eq!(ids(&theirs["clients"], "id"), [42]);
    assert_eq!(theirs["answers"], json!([]));
    assert_eq!(
        theirs["questions"], mine["questions"],
        "definitions are shared"
    );

    // Questionnaire 11 is organisation 1's: to organisation 2 it is a missing one.
    let sara = app.login(SARA).await;
    let hidden = app
        .get("/questionnaires/11", Some(&sara))
        .await
        .problem(StatusCode::NOT_FOUND);
    let missing = app
        .get("/questionnaires/999", Some(&sara))
        .await
        .problem(StatusCode::NOT_FOUND);
    assert_eq!(without_trace(hidden), without_trace(missing));
}

async fn a_question_at_a_taken_position_moves_the_later_ones_down(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app
        .post_json(
            "/questionnaires/11/questions",
            Some(&token),
            json!({"position": 2, "prompt": " Did you sleep well? ", "type": "yesno", "metadata": null}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.json());
    app.expect_requests(&[
        ("GetItem", 1),
        ("Query", 1),
        ("UpdateItem", 1),
        ("TransactWriteItems", 1),
    ]);
    assert_eq!(answer.headers["location"], "/questionnaires/11");
    let added = answer.json();
    assert_eq!(added["position"], 2);
    assert_eq!(added["prompt"], "Did you sleep well?");
    assert_eq!(added["questionnaireId"], 11);
    let questions = detail(&app, &token).await["questions"].clone();
    assert_eq!(ids(&questions, "position"), [1, 2, 3, 4]);
    assert_eq!(
        ids(&questions, "id"),
        [21, added["id"].as_i64().unwrap(), 22, 23]
    );

    let appended = app
        .post_json(
            "/questionnaires/11/questions",
            Some(&token),
            json!({"position": 5, "prompt": "Anything else?", "type": "text"}),
        )
        .await;
    assert_eq!(appended.status, StatusCode::CREATED);
    let past_end = app
        .post_json(
            "/questionnaires/11/questions",
            Some(&token),
            json!({"position": 7, "prompt": "Too far", "type": "text"}),
        )
        .await
        .problem(StatusCode::CONFLICT);
    assert!(
        past_end["detail"].as_str().unwrap().contains("position"),
        "{past_end}"
    );
}

async fn concurrent_adds_keep_positions_unique_and_lose_no_question(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let adds = (0..10).map(|i| {
        let (app, token) = (&app, &token);
        async move {
            app.post_json(
                "/questionnaires/11/questions",
                Some(token),
                json!({"position": 1 + i % 3, "prompt": format!("Question {i}"), "type": "text"}),
            )
            .await
        }
    });
    for answer in futures::future::join_all(adds).await {
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.json());
    }
    let questions = detail(&app, &token).await["questions"].clone();
    assert_eq!(ids(&questions, "position"), (1..=13).collect::<Vec<_>>());
    let mut question_ids = ids(&questions, "id");
    question_ids.sort();
    question_ids.dedup();
    assert_eq!(question_ids.len(), 13);
}

async fn invalid_questions_are_refused_field_by_field(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = detail(&app, &token).await;
    let problem = app
        .post_json(
            "/questionnaires/11/questions",
            Some(&token),
            json!({"position": 0, "prompt": "  "}),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    let fields = error_fields(&problem);
    assert_eq!(fields, ["prompt"], "values are parsed first");
    let problem = app
        .post_json(
            "/questionnaires/11/questions",
            Some(&token),
            json!({"position": 0, "prompt": "Q", "type": "text"}),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&problem), ["position"]);
    for body in [
        json!({"position": 1, "prompt": "x".repeat(1001), "type": "text"}),
        json!({"position": 1, "prompt": "Q", "type": "text", "id": 5}),
        json!({"position": "1", "prompt": "Q", "type": "text"}),
    ] {
        app.post_json("/questionnaires/11/questions", Some(&token), body)
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
    app.post_json(
        "/questionnaires/999/questions",
        Some(&token),
        json!({"position": 1, "prompt": "Q", "type": "text"}),
    )
    .await
    .problem(StatusCode::NOT_FOUND);
    assert_eq!(detail(&app, &token).await, before);
}

async fn starting_opens_one_entry_per_client_and_never_a_second(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let mut first = start(1);
    first["questionnaireId"] = json!(0);
    app.take_dynamo_requests();
    let answer = app
        .post_json(
            "/questionnaires/11/start-for-clients",
            Some(&token),
            json!([first, start(3)]),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    app.expect_requests(&[
        ("GetItem", 1),
        ("BatchGetItem", 1),
        ("UpdateItem", 1),
        ("TransactWriteItems", 2),
    ]);
    let result = answer.json();
    assert_eq!(ids(&result["created"], "clientId"), [1, 3]);
    assert_eq!(result["alreadyScheduled"], json!([]));
    let entry = &result["created"][0];
    assert_eq!(entry["nextTryAt"], "2026-11-23T08:00:00Z");
    assert_eq!(entry["createdAt"], "2026-11-20T12:00:00Z");
    assert_eq!(entry["phoneCallId"], Value::Null);
    assert_eq!(entry["questionnaireId"], 11);

    // Client 2 has had entry 41 open since the fixture; 1 and 3 now have theirs.
    let again = app
        .post_json(
            "/questionnaires/11/start-for-clients",
            Some(&token),
            json!([start(1), start(2), start(4)]),
        )
        .await
        .json();
    assert_eq!(ids(&again["created"], "clientId"), [4]);
    assert_eq!(ids(&again["alreadyScheduled"], "clientId"), [1, 2]);
    assert_eq!(again["alreadyScheduled"][0], result["created"][0]);
    assert_eq!(again["alreadyScheduled"][1]["id"], 41);
    let clients = detail(&app, &token).await["clients"].clone();
    assert_eq!(ids(&clients, "clientId"), [2, 1, 3, 4]);
}

async fn a_client_listed_twice_is_started_once_with_its_first_listing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let mut later = start(3);
    later["startDate"] = json!("2026-12-01T09:00:00Z");
    let answer = app
        .post_json(
            "/questionnaires/11/start-for-clients",
            Some(&token),
            json!([start(3), start(4), later]),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let result = answer.json();
    assert_eq!(ids(&result["created"], "clientId"), [3, 4]);
    assert_eq!(result["created"][0]["nextTryAt"], "2026-11-23T08:00:00Z");
    let clients = detail(&app, &token).await["clients"].clone();
    assert_eq!(ids(&clients, "clientId"), [2, 3, 4]);
}

async fn a_start_with_any_bad_entry_writes_nothing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = detail(&app, &token).await;
    let path = "/questionnaires/11/start-for-clients";
    // Client 6 belongs to portal 2 and client 9 is deleted: the whole batch is refused.
    for foreign in [6, 9, 99999] {
        app.post_json(path, Some(&token), json!([start(1), start(foreign)]))
            .await
            .problem(StatusCode::NOT_FOUND);
    }
    let mut bad = start(3);
    bad["retries"] = json!(11);
    bad["interval"] = json!(-1);
    bad["intervalBackOffMultiplier"] = json!(0.5);
    bad["questionnaireId"] = json!(12);
    let problem = app
        .post_json(path, Some(&token), json!([start(1), bad, start(1)]))
        .await
        .problem(StatusCode::BAD_REQUEST);
    let fields = error_fields(&problem);
    assert_eq!(
        fields,
        [
            "[1].interval",
            "[1].intervalBackOffMultiplier",
            "[1].questionnaireId",
            "[1].retries",
        ]
    );
    let too_many: Vec<Value> = (1..=101).map(start).collect();
    app.post_json(path, Some(&token), json!(too_many))
        .await
        .problem(StatusCode::BAD_REQUEST);
    app.post_json(path, Some(&token), json!([]))
        .await
        .problem(StatusCode::BAD_REQUEST);
    let mut elsewhere = start(1);
    elsewhere["questionnaireId"] = json!(0);
    app.post_json(
        "/questionnaires/999/start-for-clients",
        Some(&token),
        json!([elsewhere]),
    )
    .await
    .problem(StatusCode::NOT_FOUND);
    assert_eq!(detail(&app, &token).await, before, "nothing was written");
}

on_both_stores!(
    questionnaires_are_listed_in_their_list_form,
    the_detail_holds_only_the_callers_portals_entries_and_answers,
    a_question_at_a_taken_position_moves_the_later_ones_down,
    concurrent_adds_keep_positions_unique_and_lose_no_question,
    invalid_questions_are_refused_field_by_field,
    starting_opens_one_entry_per_client_and_never_a_second,
    a_client_listed_twice_is_started_once_with_its_first_listing,
    a_start_with_any_bad_entry_writes_nothing,
);
