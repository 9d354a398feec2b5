//! The access log of clients' personal data, on both stores: every route that shows
//! or changes a client's data leaves exactly its record, denials are logged, a record that
//! cannot be written withholds the answer, nothing can change a record, and admins alone read
//! the log, each only their own portal's (1,000 cross-portal attempts, none through).

use std::sync::Arc;

use async_trait::async_trait;
use chrono::TimeDelta;
use http::{Method, StatusCode};
use integration_tests::faults::{Fault, FaultPlan};
use integration_tests::{
    Backend, TestApp, TestResponse, on_both_stores, spawn_app, spawn_app_with_faults, start_time,
    without_trace,
};
use local_api::DEMO_FIXTURE;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use shared::clock::Clock;
use shared::ids::ClientId;
use shared::store::access_log::{
    AccessLogWriter, AccessRecord, Accessor, Action, LogQuery, Outcome,
};
use shared::store::{StoreError, StoreResult};

/// Admins: Karin (portal 1) and Ahmed (portal 2) of organisation 1, Sara (portal 3) of
/// organisation 2. Emil is staff of portal 1.
const KARIN: &str = "+46701000001";
const AHMED: &str = "+46701000002";
const SARA: &str = "+46701000003";
const EMIL: &str = "+46701000004";

fn karin() -> Accessor {
    Accessor::Account {
        account_id: 1,
        name: "Karin Nyström".into(),
    }
}

/// What one record says, without its time, id and trace id.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    portal: i32,
    accessor: Accessor,
    action: Action,
    clients: Vec<i32>,
    calls: Vec<i32>,
    status: u16,
    outcome: Outcome,
}

fn seen(record: &AccessRecord) -> Seen {
    Seen {
        portal: record.portal_id,
        accessor: record.accessor.clone(),
        action: record.action,
        clients: record.client_ids.clone(),
        calls: record.call_ids.clone(),
        status: record.status,
        outcome: record.outcome,
    }
}

fn by_karin(action: Action, clients: Vec<i32>, calls: Vec<i32>, status: u16) -> Seen {
    Seen {
        portal: 1,
        accessor: karin(),
        action,
        clients,
        calls,
        status,
        outcome: Outcome::Allowed,
    }
}

fn sorted(mut ids: Vec<i32>) -> Vec<i32> {
    ids.retain(|id| *id > 0);
    ids.sort_unstable();
    ids.dedup();
    ids
}

fn ids(values: &Value, field: &str) -> Vec<i32> {
    values
        .as_array()
        .unwrap_or_else(|| panic!("a list: {values}"))
        .iter()
        .map(|value| value[field].as_i64().unwrap() as i32)
        .collect()
}

/// The records written since `before` records existed (all portals), as seen.
async fn new_records(app: &TestApp, before: &mut usize) -> Vec<Seen> {
    let all = app.access_records(&[1, 2, 3]).await;
    let new = all[*before..].iter().map(seen).collect();
    *before = all.len();
    new
}

fn ended_from(number: &str, event_id: &str) -> Value {
    let start = start_time() - TimeDelta::minutes(10);
    json!({
        "type": "call.ended", "eventId": event_id, "conversationUuid": format!("conv-{event_id}"),
        "startDate": start, "endDate": start + TimeDelta::minutes(2),
        "fromNumber": number, "toNumber": "+4687001000", "direction": "inbound",
        "transcript": [{"createdAt": start, "by": "caller", "message": "Hej!", "category": 1}],
        "requests": []
    })
}

/// Each route that reads or changes clients' data, in turn: its records, and nothing from
/// the routes that touch none (or a missing record).
async fn each_client_data_route_leaves_exactly_its_access_records(backend: Backend) {
    let app = spawn_app(backend).await;
    let token = app.login(KARIN).await;
    let mut count = 0;
    let step = |app: &TestApp| app.clock.advance(TimeDelta::seconds(1));

    step(&app);
    let thread = app.get("/phone-calls/1001", Some(&token)).await.json();
    let expected = by_karin(
        Action::ReadCall,
        sorted(ids(&thread, "clientId")),
        sorted(ids(&thread, "id")),
        200,
    );
    assert_eq!(expected.clients, vec![1]);
    assert_eq!(new_records(&app, &mut count).await, vec![expected]);

    step(&app);
    let requests = app
        .get("/phone-calls/1001/requests", Some(&token))
        .await
        .json();
    let mut clients = ids(&requests, "clientId");
    clients.push(1);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(
            Action::ReadCallRequests,
            sorted(clients),
            vec![1001],
            200
        )]
    );

    step(&app);
    let listed = app.get("/clients", Some(&token)).await.json();
    let listed = sorted(ids(&listed, "id"));
    assert_eq!(listed, vec![1, 2, 3, 4, 5]);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(Action::ListClients, listed, vec![], 200)]
    );

    step(&app);
    let patched = app
        .patch_json("/clients/2", Some(&token), json!({"city": "Solna"}))
        .await;
    assert_eq!(patched.status, StatusCode::OK);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(Action::UpdateClient, vec![2], vec![], 200)]
    );

    step(&app);
    let suggestion = app
        .post_json(
            "/organisations/suggest-unknown-client",
            Some(&token),
            json!({"summary": "Gunnel Andersson undrade när hemtjänsten kommer.", "fromNumber": "+46709990000"}),
        )
        .await;
    // Shown in a suggestion (200) and in a problem without one (404) alike.
    let body = suggestion.json();
    let shown = sorted(ids(&body["candidates"], "clientId"));
    assert!(shown.contains(&1), "{body}");
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(
            Action::SuggestClient,
            shown,
            vec![],
            suggestion.status.as_u16()
        )]
    );

    step(&app);
    let fixed = app
        .post_json(
            "/organisations/fix-unknown-client",
            Some(&token),
            json!({"phoneCallId": 1004, "clientId": 3}),
        )
        .await;
    assert_eq!(fixed.status, StatusCode::OK);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(Action::FixCall, vec![3], vec![1004], 200)]
    );

    step(&app);
    let detail = app.get("/questionnaires/11", Some(&token)).await.json();
    let entries = &detail["clients"];
    let calls: Vec<i32> = entries
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["phoneCallId"].as_i64().map(|id| id as i32))
        .collect();
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(
            Action::ReadQuestionnaire,
            sorted(ids(entries, "clientId")),
            sorted(calls),
            200
        )]
    );

    step(&app);
    let started = app
        .post_json(
            "/questionnaires/11/start-for-clients",
            Some(&token),
            json!([{"clientId": 4, "questionnaireId": 11, "startDate": "2026-11-25T09:00:00Z",
                    "interval": 2, "retries": 3, "intervalBackOffMultiplier": 1.5}]),
        )
        .await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.json());
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![by_karin(Action::StartQuestionnaire, vec![4], vec![], 200)]
    );

    step(&app);
    let imported = app
        .post_json(
            "/portals/import-clients",
            None,
            json!({"portalId": 1, "secret": app.api.import_secret(1),
                   "ssNs": ["19121212-1212", "19380412-2384"]}),
        )
        .await
        .json();
    let mut clients = ids(&imported["created"], "clientId");
    clients.extend(ids(&imported["existing"], "clientId"));
    assert_eq!(clients.len(), 2);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![Seen {
            accessor: Accessor::ImportSecret,
            ..by_karin(Action::ImportClients, sorted(clients), vec![], 200)
        }]
    );

    step(&app);
    let delivered = app.deliver(1, &ended_from("+46731110002", "e-1")).await;
    assert_eq!(delivered.status, StatusCode::OK);
    let call = delivered.json()["phoneCallId"].as_i64().unwrap() as i32;
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![Seen {
            accessor: Accessor::VoicePlatform,
            ..by_karin(Action::IngestCall, vec![2], vec![call], 200)
        }]
    );

    // Nobody's data: a missing call, contact details, the portal, the questionnaire list.
    step(&app);
    for path in [
        "/phone-calls/999",
        "/contact-details",
        "/portals/1",
        "/questionnaires",
    ] {
        app.get(path, Some(&token)).await;
    }
    assert_eq!(new_records(&app, &mut count).await, vec![]);
}

/// Denials: a fix that would set another portal's client's number, and staff asking for a
/// client's extract. Each is a 403 and a record saying so.
async fn a_denied_attempt_on_a_clients_data_is_logged_as_a_denial(backend: Backend) {
    let app = spawn_app(backend).await;
    let karin = app.login(KARIN).await;
    let emil = app.login(EMIL).await;
    let mut count = 0;
    let refused = app
        .post_json(
            "/organisations/fix-unknown-client",
            Some(&karin),
            json!({"phoneCallId": 1004, "clientId": 6, "primaryNumber": "+46709998877"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![Seen {
            outcome: Outcome::Denied,
            ..by_karin(Action::FixCall, vec![6], vec![1004], 403)
        }]
    );
    app.clock.advance(TimeDelta::seconds(1));
    let staff = app.get("/access-log/clients/1", Some(&emil)).await;
    assert_eq!(staff.status, StatusCode::FORBIDDEN);
    assert_eq!(
        new_records(&app, &mut count).await,
        vec![Seen {
            accessor: Accessor::Account {
                account_id: 4,
                name: "Emil Sandberg".into()
            },
            outcome: Outcome::Denied,
            ..by_karin(Action::ReadClientLog, vec![1], vec![], 403)
        }]
    );
}

/// An access log whose every write fails, as a table that is down would.
struct FailingLog;

#[async_trait]
impl AccessLogWriter for FailingLog {
    async fn append(&self, _records: &[AccessRecord]) -> StoreResult<()> {
        Err(StoreError::Unavailable("the access log is down".into()))
    }
}

/// No client data in a failed answer: only the problem, with nothing of the client in it.
fn withheld(response: &TestResponse) {
    let problem = response.problem(StatusCode::SERVICE_UNAVAILABLE);
    let text = problem.to_string();
    for secret in ["Gunnel", "Andersson", "+4673111", "1001"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

#[tokio::test]
async fn memory_a_request_whose_record_cannot_be_written_answers_503_and_shows_nothing() {
    let app = spawn_app(Backend::Memory).await;
    let token = app.login(KARIN).await;
    let app = app.with_access_log(Arc::new(FailingLog));
    withheld(&app.get("/phone-calls/1001", Some(&token)).await);
    withheld(&app.get("/clients", Some(&token)).await);
    withheld(&app.get("/access-log/clients/1", Some(&token)).await);
    // A request that touches no client's data does not need the log.
    assert_eq!(
        app.get("/portals/1", Some(&token)).await.status,
        StatusCode::OK
    );
}

/// On DynamoDB, through the fault plan: the access record is the last request a data request
/// makes; failed, the answer is a 503 with nothing of the data. With the fault gone the same
/// request answers and leaves its record.
#[tokio::test]
async fn dynamodb_a_request_whose_record_cannot_be_written_answers_503_and_shows_nothing() {
    let plan = FaultPlan::default();
    let app = spawn_app_with_faults(
        DEMO_FIXTURE,
        &plan,
        aws_config::retry::RetryConfig::disabled(),
    )
    .await;
    let token = app.login(KARIN).await;
    for path in ["/phone-calls/1001", "/clients", "/access-log/clients/1"] {
        plan.disarm();
        assert_eq!(app.get(path, Some(&token)).await.status, StatusCode::OK);
        let (_, requests) = plan.disarm();
        for fault in [Fault::Throttled, Fault::ServerError] {
            let before = app.access_records(&[1]).await.len();
            plan.arm(requests, fault);
            let failed = app.get(path, Some(&token)).await;
            let (fired, _) = plan.disarm();
            assert!(fired, "{path}: request {requests} is the access record");
            withheld(&failed);
            assert_eq!(app.access_records(&[1]).await.len(), before, "{path}");
        }
    }
}

/// No route changes or removes a record, and no function's policy allows it: the only write
/// any function may make to the log table is a put (each conditional on a new key in code).
async fn no_route_can_change_or_remove_a_record(backend: Backend) {
    let app = spawn_app(backend).await;
    let token = app.login(KARIN).await;
    app.get("/clients", Some(&token)).await;
    let before = app.access_records(&[1]).await;
    let id = &before[0].id;
    for path in [
        "/access-log",
        "/access-log/clients/1",
        "/access-log/reviews",
    ] {
        for method in [Method::PUT, Method::PATCH, Method::DELETE] {
            let answer = app
                .send_json(method.clone(), path, Some(&token), json!({"id": id}))
                .await;
            assert_eq!(
                answer.status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
        }
    }
    let mut after = app.access_records(&[1]).await;
    after.truncate(before.len());
    assert_eq!(after, before, "the records are as they were");
}

/// Every string in a YAML value, through sequences and CloudFormation tags (`!If`).
fn strings_in<'a>(value: &'a serde_yaml::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_yaml::Value::String(one) => out.push(one),
        serde_yaml::Value::Sequence(many) => many.iter().for_each(|v| strings_in(v, out)),
        serde_yaml::Value::Tagged(tagged) => strings_in(&tagged.value, out),
        _ => {}
    }
}

#[test]
fn no_functions_policy_allows_changing_or_deleting_an_access_record() {
    let template: serde_yaml::Value =
        serde_yaml::from_str(shared::store::schema::TEMPLATE).unwrap();
    let resources = template["Resources"].as_mapping().unwrap();
    let mut appenders = Vec::new();
    for (name, resource) in resources {
        let name = name.as_str().unwrap();
        if resource["Type"] != "AWS::Serverless::Function" {
            continue;
        }
        // A function without policies may do nothing to any table.
        let policies = resource["Properties"]["Policies"].as_sequence();
        for policy in policies.into_iter().flatten() {
            let statements = policy["Statement"]
                .as_sequence()
                .unwrap_or_else(|| panic!("{name}: inline policies only"));
            for statement in statements {
                let text = format!("{:?}", statement["Resource"]);
                let mut actions = Vec::new();
                strings_in(&statement["Action"], &mut actions);
                assert!(
                    !actions.iter().any(|a| a.contains('*')),
                    "{name}: no wildcard actions"
                );
                if !text.contains("AccessLogTable") {
                    continue;
                }
                assert!(!text.contains("/index"), "{name}: the log has no index");
                let allowed: &[&str] = if name == "AccessLogFunction" {
                    &[
                        "dynamodb:PutItem",
                        "dynamodb:Query",
                        "dynamodb:BatchGetItem",
                    ]
                } else {
                    &["dynamodb:PutItem"]
                };
                for action in &actions {
                    assert!(allowed.contains(action), "{name} may {action} the log");
                }
                if actions.contains(&"dynamodb:PutItem") {
                    appenders.push(name.to_string());
                }
            }
        }
    }
    appenders.sort();
    assert_eq!(
        appenders,
        [
            "AccessLogFunction",
            "ClientsFunction",
            "IntegrationsFunction",
            "OrganisationsFunction",
            "PhoneCallsFunction",
            "PortalsFunction",
            "QuestionnaireSchedulerFunction",
            "QuestionnairesFunction"
        ]
    );
}

/// A client's extract: every access from every portal of the organisation, newest first,
/// page by page; another portal's admin or organisation sees a missing client; staff 403.
async fn a_clients_extract_lists_every_access_newest_first_in_pages(backend: Backend) {
    let app = spawn_app(backend).await;
    let karin = app.login(KARIN).await;
    let ahmed = app.login(AHMED).await;
    let sara = app.login(SARA).await;
    let emil = app.login(EMIL).await;
    app.clock.advance(TimeDelta::seconds(1));
    app.get("/phone-calls/1001", Some(&emil)).await;
    app.clock.advance(TimeDelta::seconds(1));
    // Ahmed, in portal 2, is shown client 1 among the organisation's candidates.
    let suggestion = app
        .post_json(
            "/organisations/suggest-unknown-client",
            Some(&ahmed),
            json!({"summary": "Gunnel Andersson ringde.", "fromNumber": "+46731110001"}),
        )
        .await;
    assert!(suggestion.json().to_string().contains("\"clientId\":1"));
    app.clock.advance(TimeDelta::seconds(1));
    app.get("/clients", Some(&karin)).await;
    app.clock.advance(TimeDelta::seconds(1));

    let extract = app.get("/access-log/clients/1", Some(&karin)).await;
    assert_eq!(extract.status, StatusCode::OK);
    let entries = extract.json();
    let summary: Vec<(i64, String, String)> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["portalId"].as_i64().unwrap(),
                entry["action"].as_str().unwrap().to_string(),
                entry["accessor"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "clients.list".to_string(), "Karin Nyström".to_string()),
            (2, "client.suggest".into(), "Ahmed Hassan".into()),
            (1, "call.read".into(), "Emil Sandberg".into()),
        ]
    );
    assert!(entries[0]["at"].as_str() > entries[2]["at"].as_str());

    // Pages of one, following Link headers, give the same entries (plus the extract itself).
    app.clock.advance(TimeDelta::seconds(1));
    let mut paged = Vec::new();
    let mut next = Some("/access-log/clients/1?limit=1".to_string());
    while let Some(path) = next {
        let page = app.get(&path, Some(&karin)).await;
        assert_eq!(page.status, StatusCode::OK);
        paged.extend(page.json().as_array().unwrap().clone());
        next = page.headers.get("link").map(|link| {
            let link = link.to_str().unwrap();
            link[1..link.find('>').unwrap()].to_string()
        });
        app.clock.advance(TimeDelta::seconds(1));
    }
    assert_eq!(paged.len(), 4, "the first extract, then the three accesses");
    assert_eq!(paged[0]["action"], "access-log.client.read");
    assert_eq!(paged[1..], entries.as_array().unwrap()[..]);

    // Ahmed's and Sara's: a missing client, as a missing id is.
    let missing = app.get("/access-log/clients/999", Some(&ahmed)).await;
    for token in [&ahmed, &sara] {
        let other = app.get("/access-log/clients/1", Some(token)).await;
        assert_eq!(
            without_trace(other.problem(StatusCode::NOT_FOUND)),
            without_trace(missing.problem(StatusCode::NOT_FOUND))
        );
    }
    assert_eq!(
        app.get("/access-log/clients/1?cursor=bad", Some(&karin))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    // A cursor typed by hand is a position like any other: one before `from` pages nothing.
    let early = app
        .get(
            "/access-log?from=2026-01-01T00:00:00Z&cursor=2025-01-01T00:00:00.000000Z%23x%230",
            Some(&karin),
        )
        .await;
    assert_eq!(early.status, StatusCode::OK);
    assert_eq!(early.json(), json!([]));
    // Another organisation's admin filtering her own log by client 1 puts nothing into
    // client 1's extract: only a client of the caller's portal is recorded.
    let before = app.get("/access-log/clients/1", Some(&karin)).await.json();
    let filtered = app.get("/access-log?clientId=1", Some(&sara)).await;
    assert_eq!(filtered.status, StatusCode::OK);
    assert_eq!(filtered.json(), json!([]));
    let after = app.get("/access-log/clients/1", Some(&karin)).await.json();
    assert_eq!(
        after.as_array().unwrap().len(),
        before.as_array().unwrap().len() + 1
    );
    assert_eq!(
        after[0]["action"], "access-log.client.read",
        "Karin's read of it, only"
    );
    assert!(
        after
            .as_array()
            .unwrap()
            .iter()
            .all(|entry| entry["portalId"] != 3)
    );
}

/// The portal's log by account, client and time, in pages, and reviews that record their
/// sample, reviewer and conclusion.
async fn admins_filter_the_portal_log_and_record_reviews_of_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let karin = app.login(KARIN).await;
    let emil = app.login(EMIL).await;
    let first = start_time() + TimeDelta::minutes(1);
    app.clock.set(first);
    app.get("/phone-calls/1001", Some(&emil)).await;
    app.clock.advance(TimeDelta::minutes(1));
    app.get("/phone-calls/1003", Some(&karin)).await;
    app.clock.advance(TimeDelta::minutes(1));
    app.get("/clients", Some(&emil)).await;
    app.clock.advance(TimeDelta::minutes(1));

    let list = |query: &str| format!("/access-log?{query}");
    let emils = app.get(&list("accountId=4"), Some(&karin)).await.json();
    assert_eq!(
        emils
            .as_array()
            .unwrap()
            .iter()
            .map(|record| record["action"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["clients.list", "call.read"]
    );
    let client_5 = app.get(&list("clientId=5"), Some(&karin)).await.json();
    let actions: Vec<&str> = client_5
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["clients.list", "call.read"]);
    assert!(
        client_5
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["clientIds"] == json!([5]))
    );
    let window = format!(
        "from={}&to={}",
        (first + TimeDelta::seconds(30)).to_rfc3339(),
        (first + TimeDelta::seconds(90)).to_rfc3339()
    )
    .replace('+', "%2B");
    let middle = app.get(&list(&window), Some(&karin)).await.json();
    assert_eq!(middle.as_array().unwrap().len(), 1, "{middle}");
    assert_eq!(middle[0]["callIds"], json!([1003]));

    let page = app.get(&list("accountId=4&limit=1"), Some(&karin)).await;
    let link = page.headers["link"].to_str().unwrap().to_string();
    assert!(link.contains("accountId=4"), "{link}");
    let next = app
        .get(&link[1..link.find('>').unwrap()], Some(&karin))
        .await
        .json();
    assert_eq!(next[0]["action"], "call.read");

    for bad in [
        "from=yesterday",
        "accountId=0",
        "limit=0",
        "to=2020-01-01T00:00:00Z&from=2021-01-01T00:00:00Z",
        "unknown=1",
    ] {
        let answer = app.get(&list(bad), Some(&karin)).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(
        app.get("/access-log", Some(&emil)).await.status,
        StatusCode::FORBIDDEN
    );

    let review = app
        .post_json(
            "/access-log/reviews",
            Some(&karin),
            json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2,
                   "conclusion": "All sampled accesses were part of care."}),
        )
        .await;
    assert_eq!(review.status, StatusCode::CREATED, "{}", review.json());
    let review = review.json();
    assert_eq!(review["sampleSize"], 2);
    assert_eq!(review["drawn"].as_array().unwrap().len(), 2);
    assert_eq!(review["records"].as_array().unwrap().len(), 2);
    assert_eq!(review["reviewer"]["name"], "Karin Nyström");
    let population = review["population"].as_u64().unwrap();
    assert!(population >= 3, "{review}");
    for record in review["records"].as_array().unwrap() {
        assert!(review["drawn"].as_array().unwrap().contains(&record["id"]));
    }
    let reviews = app.get("/access-log/reviews", Some(&karin)).await.json();
    assert_eq!(reviews.as_array().unwrap().len(), 1);
    assert_eq!(reviews[0]["id"], review["id"]);
    assert_eq!(reviews[0]["drawn"], review["drawn"]);
    for bad in [
        json!({"from": start_time(), "to": start_time(), "sampleSize": 2, "conclusion": "x"}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 0, "conclusion": "x"}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2, "conclusion": " "}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2}),
    ] {
        let answer = app
            .post_json("/access-log/reviews", Some(&karin), bad.clone())
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let staff = app
        .post_json(
            "/access-log/reviews",
            Some(&emil),
            json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2, "conclusion": "x"}),
        )
        .await;
    assert_eq!(staff.status, StatusCode::FORBIDDEN);
    assert_eq!(
        app.get("/access-log/reviews", Some(&karin))
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        1,
        "refused reviews are not recorded"
    );
}

/// 1,000 attempts by other portals' admins, another organisation's admin and portal 1's
/// staff to read portal 1's log through every log route, with forged cursors and filters:
/// none returns anything of portal 1.
async fn a_thousand_cross_portal_attempts_on_the_log_routes_read_nothing(backend: Backend) {
    let app = spawn_app(backend).await;
    let karin = app.login(KARIN).await;
    app.get("/phone-calls/1001", Some(&karin)).await;
    app.get("/clients", Some(&karin)).await;
    let review = app
        .post_json(
            "/access-log/reviews",
            Some(&karin),
            json!({"from": start_time(), "to": start_time() + TimeDelta::hours(1),
                   "sampleSize": 1, "conclusion": "Portal 1's own review."}),
        )
        .await;
    assert_eq!(review.status, StatusCode::CREATED);
    let portal_1_ids: Vec<String> = app
        .access_records(&[1])
        .await
        .into_iter()
        .map(|record| record.id)
        .collect();
    let tokens = [
        (app.login(AHMED).await, 2),
        (app.login(SARA).await, 3),
        (app.login(EMIL).await, 1),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let mut through = Vec::new();
    let attempts = 1000;
    for _ in 0..attempts {
        let (token, portal) = &tokens[rng.random_range(0..tokens.len())];
        let client = [1, 2, 3, 4, 5, 9][rng.random_range(0..6)];
        let forged = portal_1_ids[rng.random_range(0..portal_1_ids.len())]
            .replace('#', "%23")
            .replace('=', "%3D");
        let path = match rng.random_range(0..6) {
            0 => format!("/access-log/clients/{client}"),
            1 => format!("/access-log/clients/{client}?limit=1&cursor={forged}"),
            2 => format!("/access-log?clientId={client}"),
            3 => "/access-log?accountId=1".to_string(),
            4 => format!("/access-log?limit=5&cursor={forged}"),
            _ => "/access-log/reviews".to_string(),
        };
        let answer = app.get(&path, Some(token)).await;
        let body = String::from_utf8_lossy(&answer.body).to_string();
        let leaked = match answer.status.as_u16() {
            403 | 404 => false,
            200 => answer
                .json()
                .as_array()
                .unwrap()
                .iter()
                .any(|item| item["portalId"] != *portal || body.contains("Karin")),
            other => panic!("{path}: {other} {body}"),
        };
        if leaked || (*portal == 1 && answer.status != StatusCode::FORBIDDEN) {
            through.push(path);
        }
    }
    assert_eq!(
        through,
        Vec::<String>::new(),
        "{} of {attempts}",
        through.len()
    );
}

on_both_stores!(
    each_client_data_route_leaves_exactly_its_access_records,
    a_denied_attempt_on_a_clients_data_is_logged_as_a_denial,
    no_route_can_change_or_remove_a_record,
    a_clients_extract_lists_every_access_newest_first_in_pages,
    admins_filter_the_portal_log_and_record_reviews_of_it,
    a_thousand_cross_portal_attempts_on_the_log_routes_read_nothing,
);

/// A list of a thousand clients is logged in a few concurrent transactions (the record and a
/// copy per client, 100 items each), not a thousand writes one after another.
#[tokio::test]
async fn dynamodb_a_list_of_a_thousand_clients_costs_eleven_transactions_not_a_thousand_writes() {
    let app = integration_tests::spawn_app_with(
        Backend::DynamoDb,
        &integration_tests::fixture_with_clients(1000),
    )
    .await;
    let token = app.login(KARIN).await;
    app.take_dynamo_requests();
    let listed = app.get("/clients", Some(&token)).await;
    assert_eq!(listed.status, StatusCode::OK);
    let listed = listed.json().as_array().unwrap().len();
    assert!(listed > 1000, "{listed}");
    let items = 1 + listed;
    let requests = app.take_dynamo_requests().unwrap();
    assert_eq!(
        requests.get("TransactWriteItems"),
        Some(&items.div_ceil(100))
    );
    assert_eq!(requests.get("PutItem"), None);
    let records = app.access_records(&[1]).await;
    let record = records.last().unwrap();
    assert_eq!(record.client_ids.len(), listed);
    for client in [1, 100_000, 100_999] {
        let extract = app
            .api
            .services
            .store
            .client_log(ClientId(client), None, &LogQuery::default())
            .await
            .unwrap();
        assert_eq!(extract.items.len(), 1, "client {client}");
        assert_eq!(extract.items[0].id, record.id);
    }
}
