//! Function binaries under the Lambda Runtime API emulator (`cargo lambda watch
//! --only-lambda-apis`): starting the emulator and a binary in a Lambda-like environment,
//! invoking it, and checking its answers to the sample events. Used by the runtime test, the
//! `sam local` check and the performance benchmark.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use crate::{
    Backend, Endpoint, EventSecrets, SCHEDULED_EVENT, TestApp, edited_event, fresh_dialler_queue,
    moto_endpoint, prepared_event, sample_event, spawn_app, sqs_client,
};

pub const IMPORT_MASTER: &str = "emulator-import-master";
pub const WEBHOOK_MASTER: &str = "emulator-webhook-master";
pub const OTP_HASH_KEY: &str = "emulator-otp-key";
pub const RETELL_API_KEY: &str = "emulator-retell-api-key";

/// The cargo-lambda binary the project's scripts install into its virtual environment.
pub fn cargo_lambda() -> String {
    std::env::var("CARGO_LAMBDA").unwrap_or_else(|_| {
        panic!(
            "CARGO_LAMBDA is not set: the runtime emulator comes from cargo-lambda, which \
             scripts/test.sh (the README's test command) installs and points this at"
        )
    })
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process that is killed when dropped, however its owner ends.
pub struct Running(pub Child);

impl Running {
    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until something listens on `port`, for at most 30 s.
pub fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The Runtime API emulator on a free port, ready for a function to poll.
pub fn start_emulator() -> (Running, u16) {
    let port = free_port();
    let child = Command::new(cargo_lambda())
        .args(["lambda", "watch", "--only-lambda-apis", "-A", "127.0.0.1"])
        .args(["-P", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cargo lambda starts");
    let emulator = Running(child);
    wait_for_port(port, "the emulator");
    (emulator, port)
}

/// What every function binary finds in its Lambda environment here.
pub struct Environment {
    pub data_table: String,
    pub auth_table: String,
    pub access_log_table: String,
    pub queue_url: String,
}

/// The API on DynamoDB (moto) with the demo data, a session of portal 1 made at the real time
/// (the binaries run on the system clock), and portal 1's secrets as the functions started
/// here derive them from `IMPORT_MASTER` and `WEBHOOK_MASTER`.
pub struct Live {
    /// Holds the session's API; the binaries reach its tables.
    _app: TestApp,
    pub token: String,
    pub env: Environment,
    pub import_secret: String,
    pub webhook_secret: String,
    pub header_secret: String,
}

impl Live {
    /// Deletes this run's tables and dialler queue: moto holds every item in memory and
    /// slows as they grow, so a benchmark round that retires its data leaves the next one
    /// the moto the first had.
    pub async fn retire(self) {
        let dynamodb = crate::dynamo_client();
        for table in [
            &self.env.data_table,
            &self.env.auth_table,
            &self.env.access_log_table,
        ] {
            dynamodb
                .delete_table()
                .table_name(table)
                .send()
                .await
                .unwrap_or_else(|e| panic!("table {table} is deleted: {e:?}"));
        }
        sqs_client(None)
            .delete_queue()
            .queue_url(&self.env.queue_url)
            .send()
            .await
            .expect("the dialler queue is deleted");
    }

    pub async fn new() -> Self {
        let app = spawn_app(Backend::DynamoDb).await;
        app.clock.set(chrono::Utc::now());
        let token = app.login("+46701000001").await;
        let tables = app.tables.clone().expect("DynamoDB tables");
        let env = Environment {
            data_table: tables.data,
            auth_table: tables.auth,
            access_log_table: tables.access_log,
            queue_url: fresh_dialler_queue(&sqs_client(None)).await,
        };
        Self {
            _app: app,
            token,
            env,
            import_secret: shared::auth::portal_import_secret(IMPORT_MASTER.as_bytes(), 1),
            webhook_secret: shared::webhook::portal_webhook_secret(WEBHOOK_MASTER.as_bytes(), 1),
            header_secret: shared::webhook::portal_header_secret(WEBHOOK_MASTER.as_bytes(), 1),
        }
    }

    /// Sample event `name` with this session and portal 1's secrets, signed now.
    pub fn event(&self, name: &str) -> String {
        if name == SCHEDULED_EVENT {
            return sample_event(name);
        }
        prepared_event(name, &self.secrets())
    }

    /// The sample event changed by `edit` before its credentials (`edited_event`).
    pub fn edited_event(
        &self,
        name: &str,
        edit: impl FnOnce(&mut Value, Option<&mut Value>),
    ) -> String {
        edited_event(name, &self.secrets(), edit)
    }

    fn secrets(&self) -> EventSecrets<'_> {
        EventSecrets {
            token: &self.token,
            import_secret: &self.import_secret,
            webhook_secret: &self.webhook_secret,
            header_secret: &self.header_secret,
            retell_api_key: RETELL_API_KEY,
            signed_at: chrono::Utc::now().timestamp(),
        }
    }
}

/// Starts `binary` as function `name` polling the emulator on `port`, with `extra` variables
/// on top of the Lambda environment; its output (JSON log lines, as on Lambda) goes to `log`.
pub fn start_function(
    binary: &Path,
    name: &str,
    port: u16,
    env: &Environment,
    extra: &[(&str, &str)],
    log: &std::fs::File,
) -> Running {
    let mut command = Command::new(binary);
    command
        .env_clear()
        .env(
            "AWS_LAMBDA_RUNTIME_API",
            format!("http://127.0.0.1:{port}/.rt"),
        )
        .env("AWS_LAMBDA_FUNCTION_NAME", name)
        .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env("AWS_ENDPOINT_URL", moto_endpoint())
        .env("AWS_REGION", "eu-north-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("DATA_TABLE", &env.data_table)
        .env("AUTH_TABLE", &env.auth_table)
        .env("ACCESS_LOG_TABLE", &env.access_log_table)
        .env("DIALLER_QUEUE_URL", &env.queue_url)
        .env("OTP_HASH_KEY", OTP_HASH_KEY)
        .env("IMPORT_SECRET", IMPORT_MASTER)
        .env("WEBHOOK_SECRET", WEBHOOK_MASTER)
        .env("RETELL_API_KEY", RETELL_API_KEY)
        .env("RUST_LOG", "info")
        .envs(extra.iter().copied())
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log.try_clone().unwrap());
    let child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{name} ({}) starts: {e}", binary.display()));
    Running(child)
}

/// An HTTP/1 client for the emulator's Invoke API.
pub type InvokeClient = Client<HttpConnector, Full<axum::body::Bytes>>;

pub fn invoke_client() -> InvokeClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// One invocation through the emulator's Invoke API; the function's answer.
pub async fn invoke(client: &InvokeClient, port: u16, payload: String) -> Value {
    try_invoke(client, port, payload)
        .await
        .unwrap_or_else(|failure| panic!("{failure}"))
}

/// One invocation, or why it failed: no answer within a minute, no emulator, a non-2xx
/// answer (the function's error) or an answer that is not JSON.
pub async fn try_invoke(
    client: &InvokeClient,
    port: u16,
    payload: String,
) -> Result<Value, String> {
    let request = http::Request::post(format!(
        "http://127.0.0.1:{port}/2015-03-31/functions/_/invocations"
    ))
    .header("content-type", "application/json")
    .body(Full::from(payload))
    .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(60), client.request(request))
        .await
        .map_err(|_| "the function did not answer within a minute".to_string())?
        .map_err(|e| format!("the emulator did not answer: {e}"))?;
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("the answer's body broke off: {e}"))?
        .to_bytes();
    if !status.is_success() {
        return Err(format!(
            "invocation failed ({status}): {}",
            String::from_utf8_lossy(&body)
        ));
    }
    serde_json::from_slice(&body).map_err(|e| format!("the invocation answer is not JSON: {e}"))
}

/// Checks an API Gateway answer to `endpoint`'s sample event: its status, trace id, content
/// type and, from the endpoint table, what its body holds.
pub fn check_answer(endpoint: &Endpoint, answer: &Value) {
    let (name, expected) = (endpoint.event, endpoint.status);
    assert_eq!(answer["statusCode"], expected, "{name}: {answer}");
    let headers = &answer["headers"];
    assert_eq!(headers["x-trace-id"], format!("evt-{name}"), "{name}");
    let body = answer["body"].as_str().unwrap_or_default();
    if expected == 204 {
        assert!(body.is_empty(), "{name}: a 204 has no body");
        return;
    }
    let content_type = headers["content-type"].as_str().unwrap_or_default();
    let decoded: Value = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{name}: body is not JSON ({e}): {body}"));
    if expected >= 400 {
        assert_eq!(content_type, "application/problem+json", "{name}");
        assert_eq!(decoded["status"], expected, "{name}");
        assert_eq!(decoded["traceId"], format!("evt-{name}"), "{name}");
    } else {
        assert!(
            content_type.starts_with("application/json"),
            "{name}: {content_type}"
        );
    }
    endpoint.check_shape(&decoded);
}
