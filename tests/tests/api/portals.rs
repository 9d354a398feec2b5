//! Portal scenarios, each on both stores: reading one's own portal, and the secret-protected
//! client import with its idempotency and rate limit.

use std::collections::{HashMap, HashSet};

use chrono::Duration;
use http::StatusCode;
use integration_tests::{
    Backend, TestApp, TestResponse, on_both_stores, personnummer, spawn_app, without_trace,
};
use serde_json::{Value, json};

use crate::demo::KARIN;
use crate::support::{each, spawn_logged_in, texts};

const IMPORT: &str = "/portals/import-clients";

async fn import(app: &TestApp, portal_id: i32, secret: &str, ids: &[String]) -> TestResponse {
    app.post_json(
        IMPORT,
        None,
        json!({ "ssNs": ids, "portalId": portal_id, "secret": secret }),
    )
    .await
}

fn pairs(list: &Value) -> Vec<(i64, String)> {
    each(list, |entry| {
        (
            entry["clientId"].as_i64().unwrap(),
            entry["nationalId"].as_str().unwrap().to_string(),
        )
    })
}

async fn a_staff_member_reads_their_own_portal(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/portals/1", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    app.expect_requests(&[("GetItem", 2)]);
    let portal = answer.json();
    assert_eq!(portal["name"], "Hemtjänst Solna");
    assert_eq!(portal["organisationId"], 1);
    assert_eq!(portal["extECareCompanyCode"], "SOL01");
    assert_eq!(portal.as_object().unwrap().len(), 9);
}

async fn another_portal_and_a_missing_one_are_alike_forbidden(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let taken = app.get("/portals/2", Some(&token)).await;
    let other_organisation = app.get("/portals/3", Some(&token)).await;
    let missing = app.get("/portals/999", Some(&token)).await;
    let [taken, other_organisation, missing] = [taken, other_organisation, missing]
        .map(|answer| without_trace(answer.problem(StatusCode::FORBIDDEN)));
    assert_eq!(taken, missing);
    assert_eq!(other_organisation, missing);
    // Only the session checks: a foreign id is refused without a read.
    app.expect_requests(&[("GetItem", 3)]);
    app.get("/portals/0", Some(&token))
        .await
        .problem(StatusCode::BAD_REQUEST);
    app.get("/portals/1", None)
        .await
        .problem(StatusCode::UNAUTHORIZED);
}

async fn an_import_creates_each_new_national_id_once_and_reports_the_rest(backend: Backend) {
    let app = spawn_app(backend).await;
    let secret = app.api.import_secret(1);
    let ids: Vec<String> = [
        "19380412-2384", // Gunnel Andersson, client 1
        "193605221237",  // Edvin Holm, client 9, deleted: still the portal's
        "19121212-1212", // new
        "121212+1212",   // the same person, ten digits with the centenarian separator
        "NO 1234-5678",  // another country's form
        "19380412-2386", // wrong check digit
        "20991231-0000", // not born yet
        "12#4",
    ]
    .map(String::from)
    .to_vec();
    app.take_dynamo_requests();
    let answer = import(&app, 1, &secret, &ids).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    // The claims, the id range, one transaction of clients, and the access record.
    app.expect_requests(&[
        ("BatchGetItem", 2),
        ("UpdateItem", 1),
        ("TransactWriteItems", 2),
    ]);
    let result = answer.json();
    let created = pairs(&result["created"]);
    assert_eq!(
        created
            .iter()
            .map(|(_, id)| id.as_str())
            .collect::<Vec<_>>(),
        ["191212121212", "NO12345678"]
    );
    assert!(
        created.iter().all(|(id, _)| *id > 9),
        "ids continue above the fixture's"
    );
    assert_eq!(
        pairs(&result["existing"]),
        [
            (1, "193804122384".to_string()),
            (9, "193605221237".to_string())
        ]
    );
    let invalid = &result["invalid"];
    assert_eq!(
        texts(invalid, "nationalId"),
        ["19380412-2386", "20991231-0000", "12#4"]
    );
    let reasons = texts(invalid, "reason");
    assert!(reasons[0].contains("check digit"), "{reasons:?}");

    // The same request again creates nothing and costs two reads, and the access record of
    // the clients it found.
    let again = import(&app, 1, &secret, &ids).await;
    assert_eq!(again.status, StatusCode::OK);
    app.expect_requests(&[("BatchGetItem", 2), ("TransactWriteItems", 1)]);
    let again = again.json();
    assert_eq!(again["created"], json!([]));
    let mut existing = pairs(&again["existing"]);
    existing.sort();
    let mut expected = created.clone();
    expected.push((1, "193804122384".into()));
    expected.push((9, "193605221237".into()));
    expected.sort();
    assert_eq!(existing, expected);

    let token = app.login(KARIN).await;
    let clients = app.get("/clients", Some(&token)).await.json();
    let new = clients
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["nationalId"] == "NO12345678")
        .expect("the imported client is listed");
    assert_eq!(new["portalId"], 1);
    assert_eq!(new["name"], Value::Null);
    assert_eq!(new["totalCalls"], 0);
}

async fn a_thousand_ids_are_written_in_transactions_of_fifty_clients(backend: Backend) {
    let app = spawn_app(backend).await;
    let ids: Vec<String> = (0..1000).map(personnummer).collect();
    app.take_dynamo_requests();
    let answer = import(&app, 2, &app.api.import_secret(2), &ids).await;
    assert_eq!(answer.status, StatusCode::OK);
    // 20 transactions of 50 clients, then the access record of 1,000 clients: 11 more.
    app.expect_requests(&[
        ("BatchGetItem", 11),
        ("UpdateItem", 1),
        ("TransactWriteItems", 20 + 11),
    ]);
    let created = pairs(&answer.json()["created"]);
    assert_eq!(created.len(), 1000);
    let client_ids: Vec<i64> = created.iter().map(|(id, _)| *id).collect();
    let first = client_ids[0];
    assert_eq!(client_ids, (first..first + 1000).collect::<Vec<_>>());

    let too_many: Vec<String> = (0..1001).map(personnummer).collect();
    let refused = import(&app, 2, &app.api.import_secret(2), &too_many).await;
    let problem = refused.problem(StatusCode::BAD_REQUEST);
    assert!(problem["errors"]["ssNs"].is_array(), "{problem}");
}

async fn ten_concurrent_identical_imports_create_each_client_once(backend: Backend) {
    let app = spawn_app(backend).await;
    let secret = app.api.import_secret(1);
    let ids: Vec<String> = (0..60).map(|n| personnummer(n * 7 + 3)).collect();
    let answers = futures::future::join_all((0..10).map(|_| import(&app, 1, &secret, &ids))).await;
    let mut created: HashMap<String, i64> = HashMap::new();
    for answer in &answers {
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
        let body = answer.json();
        assert_eq!(
            body["created"].as_array().unwrap().len() + body["existing"].as_array().unwrap().len(),
            60
        );
        for (client_id, national_id) in pairs(&body["created"]) {
            assert!(
                created.insert(national_id.clone(), client_id).is_none(),
                "{national_id} created twice"
            );
        }
    }
    assert_eq!(created.len(), 60, "every id created by exactly one request");
    for answer in &answers {
        for (client_id, national_id) in pairs(&answer.json()["existing"]) {
            assert_eq!(created.get(&national_id), Some(&client_id), "{national_id}");
        }
    }
    let token = app.login(KARIN).await;
    let clients = app.get("/clients", Some(&token)).await.json();
    let listed: Vec<&str> = clients
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["nationalId"].as_str())
        .filter(|id| created.contains_key(*id))
        .collect();
    assert_eq!(listed.len(), 60);
    assert_eq!(listed.iter().collect::<HashSet<_>>().len(), 60);
}

async fn a_wrong_secret_another_portals_secret_and_an_unknown_portal_get_the_same_401(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    let ids = vec![personnummer(1)];
    app.take_dynamo_requests();
    let wrong = import(&app, 1, &"x".repeat(43), &ids).await;
    let wrong = without_trace(wrong.problem(StatusCode::UNAUTHORIZED));
    app.expect_requests(&[("BatchGetItem", 1), ("PutItem", 1)]);
    // Not shaped like a secret at all: the same answer, without a read or a count.
    for junk in [
        "not-the-secret",
        "",
        &"x".repeat(44),
        &format!("{}\0", "x".repeat(42)),
    ] {
        let answer = import(&app, 1, junk, &ids).await;
        assert_eq!(
            without_trace(answer.problem(StatusCode::UNAUTHORIZED)),
            wrong
        );
    }
    app.expect_requests(&[]);
    let foreign = import(&app, 1, &app.api.import_secret(2), &ids).await;
    assert_eq!(
        without_trace(foreign.problem(StatusCode::UNAUTHORIZED)),
        wrong
    );
    let unknown = import(&app, 777, &app.api.import_secret(777), &ids).await;
    assert_eq!(
        without_trace(unknown.problem(StatusCode::UNAUTHORIZED)),
        wrong
    );
    let empty = import(&app, 1, "", &ids).await;
    assert_eq!(
        without_trace(empty.problem(StatusCode::UNAUTHORIZED)),
        wrong
    );
    let token = app.login(KARIN).await;
    let clients = app.get("/clients", Some(&token)).await.json();
    assert_eq!(clients.as_array().unwrap().len(), 5, "nothing was imported");
}

async fn the_eleventh_failure_in_fifteen_minutes_is_rate_limited(backend: Backend) {
    let app = spawn_app(backend).await;
    let ids = vec![personnummer(2)];
    let secret = app.api.import_secret(1);
    for attempt in 1..=10 {
        let answer = import(&app, 1, &format!("{:0>43}", attempt), &ids).await;
        answer.problem(StatusCode::UNAUTHORIZED);
        app.clock.advance(Duration::seconds(30));
    }
    // Locked: even the right secret waits, so guessing learns nothing.
    let locked = import(&app, 1, &secret, &ids).await;
    locked.problem(StatusCode::TOO_MANY_REQUESTS);
    let retry_after = locked.retry_after();
    // The first failure was 5 minutes ago; it leaves the window in 10 minutes.
    assert_eq!(retry_after, 600);
    import(&app, 1, &"1".repeat(43), &ids)
        .await
        .problem(StatusCode::TOO_MANY_REQUESTS);
    // Other portals are not affected.
    let other = import(&app, 2, &app.api.import_secret(2), &ids).await;
    assert_eq!(other.status, StatusCode::OK);

    app.clock.advance(Duration::seconds(retry_after));
    let open = import(&app, 1, &secret, &ids).await;
    assert_eq!(open.status, StatusCode::OK, "{}", open.json());
}

async fn malformed_import_requests_are_refused(backend: Backend) {
    let app = spawn_app(backend).await;
    let secret = app.api.import_secret(1);
    for body in [
        json!({"ssNs": ["x"], "portalId": 1}),
        json!({"ssNs": "193804122384", "portalId": 1, "secret": secret}),
        json!({"ssNs": [], "portalId": 0, "secret": secret}),
        json!({"ssNs": [], "portalId": 2147483648i64, "secret": secret}),
        json!({"ssNs": [], "portalId": 1, "secret": secret, "admin": true}),
    ] {
        app.post_json(IMPORT, None, body.clone())
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
    let huge = format!(
        r#"{{"ssNs":["{}"],"portalId":1,"secret":"{secret}"}}"#,
        "1".repeat(1024 * 1024)
    );
    app.post_raw(IMPORT, None, "application/json", huge.into_bytes())
        .await
        .problem(StatusCode::PAYLOAD_TOO_LARGE);
}

on_both_stores!(
    a_staff_member_reads_their_own_portal,
    another_portal_and_a_missing_one_are_alike_forbidden,
    an_import_creates_each_new_national_id_once_and_reports_the_rest,
    a_thousand_ids_are_written_in_transactions_of_fifty_clients,
    ten_concurrent_identical_imports_create_each_client_once,
    a_wrong_secret_another_portals_secret_and_an_unknown_portal_get_the_same_401,
    the_eleventh_failure_in_fifteen_minutes_is_rate_limited,
    malformed_import_requests_are_refused,
);
