//! Every function binary as Lambda runs it: started under the Lambda Runtime API emulator
//! (`cargo lambda watch --only-lambda-apis`), its AWS clients on moto, and invoked with each
//! of its sample events in `events/`; the API Gateway answers are checked for status,
//! content type and body shape, the scheduler's for its report.

use std::path::{Path, PathBuf};

use integration_tests::emulator::{
    Environment, IMPORT_MASTER, Live, OTP_HASH_KEY, Running, WEBHOOK_MASTER, check_answer, invoke,
    invoke_client, start_emulator, start_function,
};
use integration_tests::{ENDPOINTS, Endpoint, SCHEDULED_EVENT, sample_event};
use serde_json::Value;

/// The workspace's binaries, next to this test's own executable (`target/<profile>/deps`).
fn binary(name: &str) -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let path = deps.parent().unwrap().parent().unwrap().join(name);
    assert!(
        path.exists(),
        "{} is missing: build the function binaries first (cargo build --workspace --bins)",
        path.display()
    );
    path
}

/// Starts a function binary; its log is appended to `log`.
fn start(name: &str, port: u16, env: &Environment, log: &Path) -> Running {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    start_function(&binary(name), name, port, env, &[], &log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_function_binary_answers_its_sample_events_through_the_runtime_api() {
    // The demo fixture in fresh tables on moto, and a session made through the API at the
    // real time (the binaries run on the system clock).
    let live = Live::new().await;
    let env = &live.env;

    let (_emulator, port) = start_emulator();
    let client = invoke_client();
    let log = std::env::temp_dir().join(format!("runtime-emulator-{}.log", uuid::Uuid::new_v4()));
    // The events in their order; a function is started when its first event of a run comes
    // (authentication twice: its logout ends the session the others use).
    let mut running: Option<(&str, Running)> = None;
    let mut invoked = 0;
    for endpoint in ENDPOINTS {
        let Endpoint {
            event: name,
            function,
            ..
        } = endpoint;
        if running
            .as_ref()
            .is_none_or(|(current, _)| current != function)
        {
            // The previous function stops first, so it cannot take the next invocation.
            drop(running.take());
            running = Some((function, start(function, port, env, &log)));
        }
        let answer = invoke(&client, port, live.event(name)).await;
        check_answer(endpoint, &answer);
        invoked += 1;
    }
    drop(running);
    assert_eq!(invoked, ENDPOINTS.len());

    let _scheduler = start("questionnaire-scheduler", port, env, &log);
    let report = invoke(&client, port, sample_event(SCHEDULED_EVENT)).await;
    for field in ["due", "claimed", "sent", "failed", "withinCallingHours"] {
        assert!(
            report.get(field).is_some(),
            "scheduler report lacks {field}: {report}"
        );
    }
    assert_eq!(report["failed"], 0);
    drop(_scheduler);

    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    check_logs(
        &text,
        &[&live.token, &live.import_secret, &live.webhook_secret],
    );
}

/// One `request` line per API invocation, with the ids on it, and nothing secret anywhere.
fn check_logs(text: &str, secrets: &[&str]) {
    let lines: Vec<Value> = text
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON log line ({e}): {line}"))
        })
        .collect();
    for Endpoint {
        event: name,
        status: expected,
        ..
    } in ENDPOINTS
    {
        let trace_id = format!("evt-{name}");
        let requests: Vec<&Value> = lines
            .iter()
            .filter(|line| line["span"]["trace_id"] == trace_id.as_str())
            .filter(|line| line["fields"]["message"] == "request")
            .collect();
        assert_eq!(requests.len(), 1, "{name}: one request line");
        let line = requests[0];
        let fields = &line["fields"];
        assert_eq!(fields["status"], *expected, "{name}: {line}");
        assert!(
            fields["method"].is_string()
                && fields["route"].as_str().is_some_and(|r| r.starts_with('/')),
            "{name}: {line}"
        );
        assert!(fields["latency_ms"].is_number(), "{name}: {line}");
        assert!(
            fields["dynamodb_requests"].as_u64().is_some(),
            "{name}: {line}"
        );
        if *name == "phone-calls-get" {
            // The session check, the two Queries of DESIGN.md's budget and the access record.
            assert_eq!(fields["dynamodb_requests"], 4, "{line}");
            assert_eq!(fields["route"], "/phone-calls/{id}", "{line}");
        }
        let lambda_id = line["span"]["lambda_request_id"].as_str().unwrap_or("-");
        assert!(lambda_id != "-" && !lambda_id.is_empty(), "{name}: {line}");
    }
    // Every line written while an invocation was served carries its ids: ours (`trace_id`,
    // `lambda_request_id`) inside an HTTP request, the runtime's (`requestId`, `xrayTraceId`)
    // around it (the scheduler's lines).
    for line in &lines {
        let span = &line["span"];
        if !span.is_null() {
            let ours = span["trace_id"].is_string() && span["lambda_request_id"].is_string();
            let runtime = span["requestId"].is_string() && span["xrayTraceId"].is_string();
            assert!(ours || runtime, "{line}");
        }
    }
    // No secret, token, OTP key or national id (those of the import event) in any line.
    let mut forbidden: Vec<&str> = secrets.to_vec();
    forbidden.extend([
        IMPORT_MASTER,
        WEBHOOK_MASTER,
        OTP_HASH_KEY,
        "19121212-1212",
        "191212121212",
        "19380412-2384",
        "193804122384",
    ]);
    for needle in forbidden {
        assert!(!text.contains(needle), "a log line carries {needle:?}");
    }
}
