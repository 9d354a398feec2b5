//! Faults, on DynamoDB (moto): for every write endpoint, each of its DynamoDB requests in turn
//! is throttled, answered with a 500, or applied with its answer lost. After each, the items
//! the request touched are all as before or all as after (no half-write), the API answers
//! with its result or a 500/503 problem that names no internals, and the caller's retry of the
//! same request ends in the same items as a run without faults. The in-memory store has no
//! requests to fail: each of its writes is one step under one lock.

use std::collections::BTreeMap;

use chrono::Duration;
use http::{Method, StatusCode};
use integration_tests::faults::{FAULTS, FaultPlan};
use integration_tests::{
    TestApp, TestResponse, copy_of_first_client, personnummer, quiet_demo, spawn_app_with_faults,
};
use serde_json::{Value, json};

use crate::demo::KARIN;

/// Every write endpoint, as a request that can be made afresh for round `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    PatchClient,
    PutContactDetail,
    AddQuestion,
    StartQuestionnaire,
    ImportClients,
    FixUnknownCall,
    RequestOtp,
    ValidateOtp,
    Logout,
    CallEnded,
    CallAnalyzed,
}

const WRITES: [Write; 11] = [
    Write::PatchClient,
    Write::PutContactDetail,
    Write::AddQuestion,
    Write::StartQuestionnaire,
    Write::ImportClients,
    Write::FixUnknownCall,
    Write::RequestOtp,
    Write::ValidateOtp,
    Write::Logout,
    Write::CallEnded,
    Write::CallAnalyzed,
];

/// A request as the caller would send it again.
struct Call {
    method: Method,
    path: String,
    token: Option<String>,
    body: Value,
    /// Signed for this portal as a voice-platform delivery.
    signed_for: Option<i32>,
}

impl Write {
    /// Whether sending the same request again after it took effect changes nothing more. The
    /// others answer a retry as a new request (another question) or refuse it (a used code, an
    /// ended session): their callers must not retry blindly once the first one was applied.
    fn idempotent(self) -> bool {
        !matches!(self, Self::AddQuestion | Self::ValidateOtp | Self::Logout)
    }

    /// Prepares round `i` (without faults) and returns its request.
    async fn prepare(self, app: &TestApp, token: &str, i: usize) -> Call {
        let call = |method: Method, path: &str, body: Value| Call {
            method,
            path: path.to_string(),
            token: Some(token.to_string()),
            body,
            signed_for: None,
        };
        match self {
            Self::PatchClient => call(
                Method::PATCH,
                "/clients/1",
                json!({ "city": format!("Stad {i}"), "zipCode": format!("{i:05}") }),
            ),
            Self::PutContactDetail => call(
                Method::PUT,
                "/contact-details/302",
                json!({
                    "name": format!("Kvällspersonal {i}"), "contactNumber": "+4687001060",
                    "contactEmail": null, "contactBetweenStart": "16:00",
                    "contactBetweenEnd": "22:00", "priority": 2, "isActive": true
                }),
            ),
            Self::AddQuestion => {
                // Appended, so every round touches the same kinds of items.
                let detail = app.get("/questionnaires/11", Some(token)).await.json();
                let last = detail["questions"].as_array().unwrap().len();
                call(
                    Method::POST,
                    "/questionnaires/11/questions",
                    json!({
                        "position": last + 1, "prompt": format!("Fråga {i}?"),
                        "type": "yesno", "metadata": null
                    }),
                )
            }
            Self::StartQuestionnaire => call(
                Method::POST,
                "/questionnaires/11/start-for-clients",
                json!([{
                    "clientId": 100 + i, "questionnaireId": 11,
                    "startDate": "2026-11-23T09:00:00Z", "interval": 2, "retries": 3,
                    "intervalBackOffMultiplier": 1.5
                }]),
            ),
            Self::ImportClients => Call {
                token: None,
                ..call(
                    Method::POST,
                    "/portals/import-clients",
                    json!({
                        "ssNs": [personnummer(5_000 + i as u32)], "portalId": 1,
                        "secret": app.api.import_secret(1)
                    }),
                )
            },
            Self::FixUnknownCall => call(
                Method::POST,
                "/organisations/fix-unknown-client",
                json!({
                    "phoneCallId": 1004, "clientId": if i % 2 == 1 { 1 } else { 3 },
                    "primaryNumber": format!("+467011{i:05}")
                }),
            ),
            Self::RequestOtp => {
                // A round sends up to three codes (a retry, the SDK's own); an hour apart,
                // they stay inside the limit of five per number and hour.
                app.clock.advance(Duration::minutes(61));
                Call {
                    token: None,
                    ..call(
                        Method::POST,
                        "/authentication/request-otp",
                        json!({ "phoneNumber": KARIN }),
                    )
                }
            }
            Self::ValidateOtp => {
                app.clock.advance(Duration::minutes(61));
                let issued = app.request_otp(KARIN).await.json();
                Call {
                    token: None,
                    ..call(
                        Method::POST,
                        "/authentication/validate-otp",
                        json!({
                            "phoneNumber": KARIN, "requestId": issued["requestId"],
                            "otp": app.last_code(KARIN)
                        }),
                    )
                }
            }
            Self::Logout => {
                app.clock.advance(Duration::minutes(61));
                let session = app.login(KARIN).await;
                Call {
                    token: Some(session),
                    ..call(
                        Method::POST,
                        "/authentication/logout",
                        json!({ "all": false }),
                    )
                }
            }
            Self::CallEnded => Call {
                token: None,
                signed_for: Some(1),
                ..call(Method::POST, "/integrations/voice/events", call_ended(i))
            },
            Self::CallAnalyzed => {
                let ended = app.deliver(1, &call_ended(i)).await;
                assert_eq!(ended.status, StatusCode::OK, "{}", ended.json());
                Call {
                    token: None,
                    signed_for: Some(1),
                    ..call(
                        Method::POST,
                        "/integrations/voice/events",
                        json!({
                            "type": "call.analyzed", "eventId": format!("evt-analysed-{i}"),
                            "conversationUuid": format!("conv-fault-{i}"),
                            "summary": "Wants Thursday's visit moved.", "purpose": "Rescheduling",
                            "confidence": 90, "confidenceReason": "Number matches.",
                            "satisfaction": 4, "satisfactionReason": "Calm.", "answers": []
                        }),
                    )
                }
            }
        }
    }
}

/// A call of client 3 (by her number) with two lines and one request.
fn call_ended(i: usize) -> Value {
    json!({
        "type": "call.ended", "eventId": format!("evt-fault-{i}"),
        "conversationUuid": format!("conv-fault-{i}"),
        "startDate": "2026-11-20T11:40:00Z", "endDate": "2026-11-20T11:43:00Z",
        "fromNumber": "+46731110003", "toNumber": "+4687001000", "direction": "inbound",
        "dynamicVariables": null,
        "transcript": [
            {"createdAt": "2026-11-20T11:40:02Z", "by": "agent", "message": "Hej!", "category": 0},
            {"createdAt": "2026-11-20T11:40:09Z", "by": "caller", "message": "Flytta besöket.", "category": 1}
        ],
        "requests": [{"request": "Move Thursday's visit.", "transcriptLineIndex": 1}]
    })
}

async fn send(app: &TestApp, call: &Call) -> TestResponse {
    if let Some(portal) = call.signed_for {
        return app.deliver(portal, &call.body).await;
    }
    app.send_json(
        call.method.clone(),
        &call.path,
        call.token.as_deref(),
        call.body.clone(),
    )
    .await
}

/// The kind of an item key: digits and long tokens (hashes, uuids) blotted out, so that the
/// same write made for another id or session has the same shape.
fn key_shape(key: &str) -> String {
    let mut shape = String::new();
    for word in key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')) {
        if word.len() >= 16 {
            shape.push('*');
        } else {
            // One `#` per run of digits, however long.
            for c in word.chars() {
                if !c.is_ascii_digit() {
                    shape.push(c);
                } else if !shape.ends_with('#') {
                    shape.push('#');
                }
            }
        }
        shape.push('/');
    }
    shape
}

/// The table and key of a snapshot line.
fn key_of(line: &str) -> String {
    let (table, item) = line.split_once(' ').unwrap();
    let attribute = |name: &str| {
        let start = item
            .find(&format!("{name}=S(\""))
            .map(|at| at + name.len() + 4);
        start
            .map(|at| item[at..].split("\")").next().unwrap().to_string())
            .unwrap_or_default()
    };
    // Table names carry a run id; only which table counts.
    format!("{} {} {}", &table[..4], attribute("pk"), attribute("sk"))
}

/// The shapes of the items that differ between two snapshots, counters and reading tallies
/// left out: a burnt id is a gap, not a half-write, and an account's tally of the clients it
/// opened this hour is grown by the first of the rounds only.
fn changes(before: &[String], after: &[String]) -> Vec<String> {
    let index = |lines: &[String]| -> BTreeMap<String, String> {
        lines
            .iter()
            .map(|line| (key_of(line), line.clone()))
            .collect()
    };
    let (before, after) = (index(before), index(after));
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let mut shapes: Vec<String> = keys
        .into_iter()
        .filter(|key| {
            before.get(*key) != after.get(*key)
                && !key.contains(" COUNTER ")
                && !key.contains(" READING#")
        })
        .map(|key| key_shape(key))
        .collect();
    shapes.sort();
    shapes
}

/// A 500 or 503 problem that says nothing of what failed inside.
fn assert_clean_failure(answer: &TestResponse, what: &str) {
    assert!(
        [
            StatusCode::INTERNAL_SERVER_ERROR,
            StatusCode::SERVICE_UNAVAILABLE
        ]
        .contains(&answer.status),
        "{what}: {} {}",
        answer.status,
        String::from_utf8_lossy(&answer.body)
    );
    answer.problem(answer.status);
    let text = String::from_utf8_lossy(&answer.body).to_lowercase();
    for internal in [
        "exception",
        "dynamodb",
        "amazonaws",
        "injected",
        "timeout",
        "moto",
    ] {
        assert!(
            !text.contains(internal),
            "{what}: the problem names {internal}: {text}"
        );
    }
    if answer.status == StatusCode::SERVICE_UNAVAILABLE {
        assert!(
            answer.headers.contains_key("retry-after"),
            "{what}: 503 without Retry-After"
        );
    }
}

/// Figures of one sweep, for docs/reliability.md.
#[derive(Debug, Default)]
struct Tally {
    injected: usize,
    answered_ok: usize,
    answered_5xx: usize,
    applied_before_failure: usize,
    retried: usize,
}

/// Runs every write endpoint with each of its requests failed in turn by each fault.
async fn sweep(retry: aws_config::retry::RetryConfig) -> Tally {
    let fixture = fault_fixture();
    let mut tally = Tally::default();
    for write in WRITES {
        let started = std::time::Instant::now();
        let plan = FaultPlan::default();
        let app = spawn_app_with_faults(&fixture, &plan, retry.clone()).await;
        let token = app.login(KARIN).await;

        // Round 0 settles one-off effects (the first fix of an unknown call); round 1 is the
        // reference: what a write without faults touches, and how many requests it makes.
        let warm_up = write.prepare(&app, &token, 0).await;
        assert!(
            send(&app, &warm_up).await.status.is_success(),
            "{write:?} warm-up"
        );
        let reference_call = write.prepare(&app, &token, 1).await;
        let before = app.snapshot().await;
        plan.disarm();
        let answer = send(&app, &reference_call).await;
        let (_, requests) = plan.disarm();
        assert!(
            answer.status.is_success(),
            "{write:?}: {}",
            String::from_utf8_lossy(&answer.body)
        );
        let reference = changes(&before, &app.snapshot().await);
        assert!(!reference.is_empty(), "{write:?} changes something");

        let mut round = 1;
        for n in 1..=requests {
            for fault in FAULTS {
                round += 1;
                let what = format!("{write:?}, request {n} of {requests}: {fault:?}");
                let call = write.prepare(&app, &token, round).await;
                let before = app.snapshot().await;
                plan.arm(n, fault);
                let first = send(&app, &call).await;
                let (fired, _) = plan.disarm();
                assert!(fired, "{what}: the fault fired");
                tally.injected += 1;
                let after_first = changes(&before, &app.snapshot().await);
                if first.status.is_success() {
                    tally.answered_ok += 1;
                    assert_eq!(after_first, reference, "{what}: answered {}", first.status);
                    continue;
                }
                tally.answered_5xx += 1;
                assert_clean_failure(&first, &what);
                assert!(
                    after_first.is_empty() || after_first == reference,
                    "{what}: half-written: {after_first:#?}\nexpected none or {reference:#?}"
                );
                if !after_first.is_empty() {
                    eprintln!("{what}: applied, answered {}", first.status);
                    tally.applied_before_failure += 1;
                    if !write.idempotent() {
                        continue;
                    }
                }
                tally.retried += 1;
                let second = send(&app, &call).await;
                assert!(
                    second.status.is_success(),
                    "{what}: the retry got {} {}",
                    second.status,
                    String::from_utf8_lossy(&second.body)
                );
                assert_eq!(
                    changes(&before, &app.snapshot().await),
                    reference,
                    "{what}: retried"
                );
            }
        }
        eprintln!("{write:?}: {requests} requests, {:?}", started.elapsed());
    }
    tally
}

/// The demo fixture without questionnaire entries, plus clients 100 to 119 of portal 1 for
/// questionnaires to be started for (few: every round scans the tables twice or three times).
fn fault_fixture() -> String {
    let mut fixture = quiet_demo();
    for id in 100..120 {
        let client = copy_of_first_client(&fixture, id, format!("+4673300{id:04}"));
        fixture["clients"].as_array_mut().unwrap().push(client);
    }
    fixture.to_string()
}

#[tokio::test]
async fn each_failed_request_of_a_write_leaves_it_whole_and_a_retry_completes_it() {
    // No SDK retries: every injected fault reaches the store and the handler.
    let tally = sweep(aws_config::retry::RetryConfig::disabled()).await;
    eprintln!("without SDK retries: {tally:?}");
    assert!(tally.answered_5xx > 0 && tally.applied_before_failure > 0);
}

#[tokio::test]
async fn the_production_retry_settings_absorb_a_single_failed_request() {
    let (retry, _) = shared::runtime::sdk_retry_and_timeouts();
    let tally = sweep(retry).await;
    eprintln!("with the production SDK retries: {tally:?}");
    assert!(tally.injected > 100);
    assert_eq!(
        tally.answered_ok, tally.injected,
        "every single fault was retried away"
    );
}

#[test]
fn key_shapes_blot_out_ids_and_tokens() {
    assert_eq!(
        key_shape("data CLIENT#0000000001 CLIENT"),
        key_shape("data CLIENT#0000000203 CLIENT")
    );
    assert_ne!(
        key_shape("data CLIENT#1 CLIENT"),
        key_shape("data CALL#1 CALL")
    );
    assert_eq!(
        key_shape("auth SESSION#q2bH0m9bVf1kQe3r5t7u9w SESSION"),
        key_shape("auth SESSION#Zz8yX7wV6uT5sR4qP3oN2m SESSION")
    );
}
