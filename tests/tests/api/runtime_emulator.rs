//! Every function binary as Lambda runs it: started under the Lambda Runtime API emulator
//! (`cargo lambda watch --only-lambda-apis`), its AWS clients on moto, and invoked with each
//! of its sample events in `events/`; the API Gateway answers are checked for status,
//! content type and body shape, the scheduler's for its report. Their business metrics are read
//! back from their output as CloudWatch would extract them.

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
            // The session check, the two Queries of DESIGN.md's budget, the access record and
            // the count of the clients the account opened this hour.
            assert_eq!(fields["dynamodb_requests"], 5, "{line}");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_write_their_business_metrics_as_emf_lines_that_name_nobody() {
    let live = Live::new().await;
    let env = &live.env;
    let (_emulator, port) = start_emulator();
    let client = invoke_client();
    let log = std::env::temp_dir().join(format!("metrics-emulator-{}.log", uuid::Uuid::new_v4()));
    let namespace = "CareCallsUnderTest";
    // A log level above INFO, at which Lambda drops a JSON line that says no level.
    let extra = [
        ("METRICS_NAMESPACE", namespace),
        ("AWS_LAMBDA_LOG_LEVEL", "WARN"),
    ];
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap()
    };

    // A client calls in and says she has fallen: the call is stored, its urgent alert opened
    // and its first SMS sent within the delivery. Then a login code, then a scheduler pass.
    for (function, event) in [
        ("integrations", "integrations-voice-call-ended-urgent"),
        ("authentication", "authentication-request-otp"),
    ] {
        let running = start_function(&binary(function), function, port, env, &extra, &open());
        let endpoint = ENDPOINTS.iter().find(|e| e.event == event).unwrap();
        check_answer(endpoint, &invoke(&client, port, live.event(event)).await);
        drop(running);
    }
    let scheduler = start_function(
        &binary("questionnaire-scheduler"),
        "questionnaire-scheduler",
        port,
        env,
        &extra,
        &open(),
    );
    let report = invoke(&client, port, sample_event(SCHEDULED_EVENT)).await;
    assert_eq!(report["failed"], 0, "{report}");
    drop(scheduler);

    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    let documents = emf_documents(&text, namespace);

    let call = metrics_of(
        &documents,
        "traceId",
        "evt-integrations-voice-call-ended-urgent",
    );
    assert_eq!(call.get("CallsIngested"), Some(&1.0), "{call:?}");
    assert_eq!(call.get("AlertsOpened"), Some(&1.0), "{call:?}");
    assert!(
        call.get("EscalationSteps").is_some_and(|sent| *sent >= 1.0),
        "{call:?}"
    );
    // The call's ingestion and the disclosure of the alert's SMS.
    assert_eq!(call.get("AccessRecordsWritten"), Some(&2.0), "{call:?}");
    for absent in ["SmsFailed", "AccessRecordsFailed"] {
        assert!(!call.contains_key(absent), "{absent}: {call:?}");
    }
    let login = metrics_of(&documents, "traceId", "evt-authentication-request-otp");
    assert_eq!(login.get("CodesSent"), Some(&1.0), "{login:?}");
    assert!(!login.contains_key("CodesRefused"), "{login:?}");
    let pass: Vec<&Value> = documents
        .iter()
        .filter(|document| document.get("traceId").is_none())
        .collect();
    let pass = metrics_of_documents(&pass);
    for always in ["SchedulerPassSeconds", "AlertsUnnotified"] {
        assert!(pass.contains_key(always), "{always}: {pass:?}");
    }

    // Nothing about the caller, the client or whom the SMS went to, in any metrics line.
    let client_number = "46731110003";
    let forbidden = [
        client_number,
        "0731110003",
        "4687001000",
        "46701000001",
        "+46",
        "Margareta",
        "Lindqvist",
        "19350101-1427",
        "193501011427",
        "350101-1427",
    ];
    for document in &documents {
        let line = document.to_string();
        for needle in forbidden {
            assert!(
                !line.contains(needle),
                "a metrics line carries {needle:?}: {line}"
            );
        }
    }
}

/// Every line of `text` that holds an EMF document, checked to be one as CloudWatch extracts
/// it: a JSON object of its own on its line (not inside a log line's fields), one metric
/// directive in `namespace` with no dimension, values for each metric it names, and otherwise
/// only the invocation's ids and Lambda's `level`.
fn emf_documents(text: &str, namespace: &str) -> Vec<Value> {
    let known: Vec<&str> = shared::metrics::ALL
        .iter()
        .map(|(name, _, _)| *name)
        .collect();
    let mut documents = Vec::new();
    for line in text
        .lines()
        .filter(|line| line.contains("CloudWatchMetrics"))
    {
        let document: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("a metrics line that is not JSON ({e}): {line}"));
        let directives = document["_aws"]["CloudWatchMetrics"]
            .as_array()
            .unwrap_or_else(|| panic!("no EMF metadata at the top of the line: {line}"));
        assert!(document["_aws"]["Timestamp"].is_u64(), "{line}");
        assert_eq!(directives.len(), 1, "{line}");
        let directive = &directives[0];
        assert_eq!(directive["Namespace"], namespace, "{line}");
        let dimension_sets = directive["Dimensions"].as_array().unwrap();
        assert!(
            dimension_sets
                .iter()
                .all(|set| set.as_array().is_some_and(Vec::is_empty)),
            "a dimension: {line}"
        );
        let mut names = Vec::new();
        for metric in directive["Metrics"].as_array().unwrap() {
            let name = metric["Name"].as_str().unwrap();
            assert!(known.contains(&name), "an unknown metric {name}: {line}");
            assert!(
                matches!(metric["Unit"].as_str(), Some("Count" | "Seconds")),
                "{line}"
            );
            let value = &document[name];
            assert!(
                value.is_number()
                    || value
                        .as_array()
                        .is_some_and(|v| v.iter().all(Value::is_number)),
                "{name} has no value: {line}"
            );
            names.push(name);
        }
        assert!(!names.is_empty(), "{line}");
        for (key, value) in document.as_object().unwrap() {
            match key.as_str() {
                "_aws" => {}
                "requestId" | "xrayTraceId" | "traceId" => assert!(value.is_string(), "{line}"),
                "level" => assert_eq!(value, "WARN", "{line}"),
                name => assert!(names.contains(&name), "a property {name}: {line}"),
            }
        }
        assert!(document["requestId"].is_string(), "{line}");
        documents.push(document);
    }
    assert!(
        !documents.is_empty(),
        "no metrics line in the functions' output:\n{text}"
    );
    documents
}

/// The metrics of the documents whose property `key` is `value`, each summed over them.
fn metrics_of(
    documents: &[Value],
    key: &str,
    value: &str,
) -> std::collections::BTreeMap<String, f64> {
    let matching: Vec<&Value> = documents
        .iter()
        .filter(|document| document[key] == value)
        .collect();
    metrics_of_documents(&matching)
}

fn metrics_of_documents(documents: &[&Value]) -> std::collections::BTreeMap<String, f64> {
    let mut metrics = std::collections::BTreeMap::new();
    for document in documents {
        for metric in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]
            .as_array()
            .unwrap()
        {
            let name = metric["Name"].as_str().unwrap();
            let value = match &document[name] {
                Value::Array(values) => values.iter().filter_map(Value::as_f64).sum(),
                value => value.as_f64().unwrap(),
            };
            *metrics.entry(name.to_string()).or_insert(0.0) += value;
        }
    }
    metrics
}
