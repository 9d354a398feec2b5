//! Every function as `sam local` runs it (scripts/sam-local.sh starts this inside its moto and
//! its own dockerd): the demo data and a session on moto, the template's secrets in moto's
//! Secrets Manager, then `sam local start-api` with the README walkthrough's first requests,
//! `sam local start-lambda` invoked with each function's sample events, the answers checked as
//! the runtime-emulator test checks them and the logs for secrets, and one `sam local invoke`
//! of a function whose secret is missing. Panics (exit code 101) on the first failure.
//!
//! usage: sam-local-check <built template> <work dir>

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use http::Method;
use integration_tests::emulator::{
    IMPORT_MASTER, Live, OTP_HASH_KEY, RETELL_API_KEY, Running, WEBHOOK_MASTER, check_answer,
    free_port, wait_for_port,
};
use integration_tests::local_http::LocalApiClient;
use integration_tests::{ENDPOINTS, Endpoint, SCHEDULED_EVENT, local_sdk_config, moto_endpoint};
use serde_json::{Value, json};

/// The template's logical id of a function crate: `phone-calls` is `PhoneCallsFunction`.
fn logical_id(function: &str) -> String {
    let mut id: String = function
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    id.push_str("Function");
    id
}

fn sam() -> PathBuf {
    PathBuf::from(std::env::var("SAM").unwrap_or_else(|_| ".venv/bin/sam".into()))
}

/// The arguments every `sam local` command here takes.
fn common_args<'a>(template: &'a str, env_vars: &'a str) -> [&'a str; 5] {
    [
        "--template",
        template,
        "--env-vars",
        env_vars,
        "--skip-pull-image",
    ]
}

/// One `sam local invoke`: whether sam succeeded, its stdout (the function's answer), its
/// stderr (everything logged), and how long it took.
fn run_invoke(
    template: &str,
    env_vars: &str,
    function: &str,
    event: &Path,
) -> (bool, String, String, u128) {
    let started = Instant::now();
    let output = Command::new(sam())
        .args(["local", "invoke", &logical_id(function), "--event"])
        .arg(event)
        .args(common_args(template, env_vars))
        .stdin(Stdio::null())
        .output()
        .expect("sam runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
        started.elapsed().as_millis(),
    )
}

/// `sam local <command>` (`start-api` or `start-lambda`) on a free port with warm containers,
/// its output to `log`: the running process, stopped when dropped, and a client of it.
fn serve(template: &str, env_vars: &str, command: &str, log: &Path) -> (Running, LocalApiClient) {
    let port = free_port();
    let log = std::fs::File::create(log).unwrap();
    let child = Command::new(sam())
        .args(["local", command, "--port", &port.to_string()])
        .args(common_args(template, env_vars))
        .args(["--warm-containers", "LAZY"])
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("sam local {command} starts: {e}"));
    let running = Running(child);
    wait_for_port(port, &format!("sam local {command}"));
    (
        running,
        LocalApiClient::new(&format!("http://127.0.0.1:{port}")),
    )
}

/// `sam local start-lambda` on a free port with warm containers: one SAM process for every
/// sample event (a `sam local invoke` spends about 10 s starting SAM and its container for
/// each), invoked through the Lambda Invoke API as the AWS SDK calls it. Its output, with the
/// functions' log lines, goes to the returned file.
fn start_lambda(template: &str, env_vars: &str, work: &Path) -> (StartLambda, PathBuf) {
    let log_path = work.join("start-lambda.log");
    let (running, client) = serve(template, env_vars, "start-lambda", &log_path);
    (
        StartLambda {
            client,
            _running: running,
        },
        log_path,
    )
}

/// A running `sam local start-lambda`, stopped when dropped.
struct StartLambda {
    client: LocalApiClient,
    _running: Running,
}

impl StartLambda {
    /// One invocation that must succeed: the function's answer and the time it took.
    async fn invoke(&self, function: &str, event: &str) -> (Value, u128) {
        let event: Value = serde_json::from_str(event).expect("a sample event is JSON");
        let path = format!("/2015-03-31/functions/{}/invocations", logical_id(function));
        let started = Instant::now();
        let (status, answer) = tokio::time::timeout(
            Duration::from_secs(120),
            self.client.call(Method::POST, &path, None, Some(&event)),
        )
        .await
        .unwrap_or_else(|_| panic!("{function}: no answer from start-lambda within 120 s"))
        .unwrap_or_else(|e| panic!("{function}: {e}"));
        assert_eq!(status, 200, "invoking {function}: {answer}");
        assert!(
            answer.get("errorMessage").is_none(),
            "{function} failed: {answer}"
        );
        (answer, started.elapsed().as_millis())
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, template, work] = args.as_slice() else {
        panic!("usage: sam-local-check <built template> <work dir>");
    };
    let work = PathBuf::from(work);
    std::fs::create_dir_all(&work).unwrap();

    let live = Live::new().await;
    let secrets = aws_sdk_secretsmanager::Client::new(&local_sdk_config(moto_endpoint()));
    let mut arns = Vec::new();
    for (name, value) in [
        ("otp-hash-key", OTP_HASH_KEY),
        ("import-master", IMPORT_MASTER),
        ("webhook-master", WEBHOOK_MASTER),
        ("retell-api-key", RETELL_API_KEY),
    ] {
        let created = secrets
            .create_secret()
            .name(format!("sam-local-{name}-{}", uuid::Uuid::new_v4()))
            .secret_string(value)
            .send()
            .await
            .expect("moto creates the secret");
        arns.push(created.arn.expect("an ARN"));
    }
    // SAM passes a function only the variables its template declares; these override them.
    let env_vars = work.join("env-vars.json");
    std::fs::write(
        &env_vars,
        json!({"Parameters": {
            "DATA_TABLE": live.env.data_table,
            "AUTH_TABLE": live.env.auth_table,
            "ACCESS_LOG_TABLE": live.env.access_log_table,
            "DIALLER_QUEUE_URL": live.env.queue_url,
            "OTP_HASH_KEY_SECRET_ARN": arns[0],
            "IMPORT_SECRET_ARN": arns[1],
            "WEBHOOK_SECRET_ARN": arns[2],
            "RETELL_API_KEY_ARN": arns[3],
        }})
        .to_string(),
    )
    .unwrap();
    let env_vars = env_vars.to_str().unwrap();

    start_api_walkthrough(template, env_vars, &live.token, &work).await;

    let (lambda, lambda_log) = start_lambda(template, env_vars, &work);
    println!(
        "{:<40} {:<26} {:>6} {:>8}",
        "event", "function", "status", "ms"
    );
    for endpoint in ENDPOINTS {
        let Endpoint {
            event: name,
            function,
            status: expected,
            ..
        } = endpoint;
        let (answer, took) = lambda.invoke(function, &live.event(name)).await;
        check_answer(endpoint, &answer);
        println!("{name:<40} {function:<26} {expected:>6} {took:>8}");
    }
    let (report, took) = lambda
        .invoke("questionnaire-scheduler", &live.event(SCHEDULED_EVENT))
        .await;
    for field in ["due", "claimed", "sent", "failed", "withinCallingHours"] {
        assert!(
            report.get(field).is_some(),
            "scheduler report lacks {field}: {report}"
        );
    }
    assert_eq!(report["failed"], 0, "{report}");
    println!(
        "{SCHEDULED_EVENT:<40} {:<26} {:>6} {took:>8}",
        "questionnaire-scheduler", "-"
    );
    // Stopping start-lambda stops its containers; what they logged is then in its log.
    // Answers may carry what the caller sent (an import's national ids); logs never.
    drop(lambda);
    let logged = std::fs::read_to_string(&lambda_log).unwrap();
    // Each sample event carries the trace id `evt-<name>`, which every line of its request logs.
    for Endpoint { event: name, .. } in ENDPOINTS {
        assert!(
            logged.contains(&format!("\"trace_id\":\"evt-{name}\"")),
            "no log line of {name} in {}",
            lambda_log.display()
        );
    }

    // A function whose secret cannot be read ends its start-up at once, saying why.
    let missing = work.join("env-vars-missing-secret.json");
    let mut overrides: Value = serde_json::from_str(&std::fs::read_to_string(env_vars).unwrap())
        .expect("the env-vars file is JSON");
    overrides["Parameters"]["OTP_HASH_KEY_SECRET_ARN"] =
        json!("arn:aws:secretsmanager:eu-north-1:123456789012:secret:missing-AbCdEf");
    std::fs::write(&missing, overrides.to_string()).unwrap();
    let event = work.join("authentication-request-otp.json");
    std::fs::write(&event, live.event("authentication-request-otp")).unwrap();
    let (_, stdout, stderr, took) = run_invoke(
        template,
        missing.to_str().unwrap(),
        "authentication",
        &event,
    );
    assert!(
        stderr.contains("start-up cannot read its secret"),
        "no start-up error logged:\n{stdout}\n{stderr}"
    );
    assert!(
        !stdout.contains("\"statusCode\""),
        "a function without its secret answered: {stdout}"
    );
    println!("authentication without its secret: start-up error, invoke ended in {took} ms");

    for needle in [
        live.token.as_str(),
        &live.import_secret,
        &live.webhook_secret,
        IMPORT_MASTER,
        WEBHOOK_MASTER,
        OTP_HASH_KEY,
        "19121212-1212",
        "191212121212",
    ] {
        assert!(!logged.contains(needle), "a log line carries {needle:?}");
    }
    println!(
        "sam local start-lambda: {} events and the scheduled event answered as expected",
        ENDPOINTS.len()
    );
}

/// `sam local start-api` on a free port, and the README walkthrough's first requests through
/// it (the code of step 2 goes by SMS through moto's SNS, so the session is the one made
/// through the API at start).
async fn start_api_walkthrough(template: &str, env_vars: &str, token: &str, work: &Path) {
    let (_api, api) = serve(template, env_vars, "start-api", &work.join("start-api.log"));
    let steps = [
        Step::new(
            Method::POST,
            "/authentication/request-otp",
            202,
            "requestId",
            false,
        )
        .with_body(json!({"phoneNumber": "070-100 00 09"})),
        Step::new(Method::GET, "/phone-calls/1001", 200, "transcript", true),
        Step::new(Method::GET, "/phone-calls/1001/requests", 200, "", true),
        Step::new(Method::GET, "/clients?limit=2", 200, "totalCalls", true),
        Step::new(Method::GET, "/portals/1", 200, "organisationId", true),
    ];
    for Step {
        method,
        path,
        status: expected,
        field,
        authorised,
        body,
    } in steps
    {
        let token = authorised.then_some(token);
        let started = Instant::now();
        let (status, answer) = tokio::time::timeout(
            Duration::from_secs(60),
            api.call(method.clone(), path, token, body.as_ref()),
        )
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within 60 s"))
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(status, expected, "{method} {path}: {answer}");
        let first = if answer.is_array() {
            &answer[0]
        } else {
            &answer
        };
        assert!(
            field.is_empty() || first.get(field).is_some(),
            "{method} {path}: no {field} in {answer}"
        );
        println!(
            "start-api {method} {path}: {status} in {} ms",
            started.elapsed().as_millis()
        );
    }
}

/// One walkthrough request: what is sent, the status expected and a field the answer (or its
/// first item) has.
struct Step {
    method: Method,
    path: &'static str,
    status: u16,
    field: &'static str,
    authorised: bool,
    body: Option<Value>,
}

impl Step {
    fn new(
        method: Method,
        path: &'static str,
        status: u16,
        field: &'static str,
        authorised: bool,
    ) -> Self {
        Self {
            method,
            path,
            status,
            field,
            authorised,
            body: None,
        }
    }

    fn with_body(self, body: Value) -> Self {
        Self {
            body: Some(body),
            ..self
        }
    }
}
