//! The access log of clients' personal data, on both stores: every route that shows
//! or changes a client's data leaves exactly its record, denials are logged, a record that
//! cannot be written withholds the answer, nothing can change a record, and admins alone read
//! the log, each only their own portal's (1,000 cross-portal attempts, none through).

mod reading;

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

use crate::demo::{AHMED, EMIL, KARIN, SARA};
use crate::support::spawn_logged_in;

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
    let (app, token) = spawn_logged_in(backend, KARIN).await;
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
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
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
    let (app, token) = spawn_app(Backend::Memory).await.logged_in(KARIN).await;
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
    let (app, token) = spawn_logged_in(backend, KARIN).await;
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
            "ContactDetailsFunction",
            "IntegrationsFunction",
            "OrganisationsFunction",
            "PhoneCallsFunction",
            "PortalsFunction",
            "QuestionnaireSchedulerFunction",
            "QuestionnairesFunction"
        ]
    );
}

on_both_stores!(
    each_client_data_route_leaves_exactly_its_access_records,
    a_denied_attempt_on_a_clients_data_is_logged_as_a_denial,
    no_route_can_change_or_remove_a_record,
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
