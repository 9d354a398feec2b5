//! Test harness: `spawn_app` builds the whole API over either store with a manual clock, a dev
//! outbox, a recording dialler in front of the outbox (in memory) or of an SQS FIFO queue on
//! moto (DynamoDB), and (on DynamoDB) a request counter, so every scenario runs on both stores.

pub mod capacity;
pub mod emulator;
pub mod evaluation;
pub mod faults;
pub mod local_http;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};
use aws_sdk_dynamodb::types::AttributeValue;
use axum::Router;
use axum::body::Body;
use chrono::{DateTime, Utc};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use local_api::{DEMO_FIXTURE, LocalApi, Store};
use shared::clock::ManualClock;
use shared::config::Tables;
use shared::fixture::Seed;
use shared::notify::{Channel, Dialler, DiallerMessage, SqsDialler};
use shared::store::BoxError;
use shared::store::dynamo::{DynamoStore, RequestCounter};
use shared::store::memory::MemoryStore;
use shared::store::schema;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Memory,
    DynamoDb,
}

/// The endpoint of the moto server started by `scripts/test.sh`.
pub fn moto_endpoint() -> String {
    std::env::var("MOTO_ENDPOINT").unwrap_or_else(|_| {
        panic!(
            "MOTO_ENDPOINT is not set: the DynamoDB suite runs against moto; \
             run scripts/test.sh (the README's test command), which starts it"
        )
    })
}

/// SDK settings for a local stand-in of an AWS service at `endpoint` (moto, a fake model):
/// a fixed region, static credentials and no instance-metadata lookups.
pub fn local_sdk_config(endpoint: String) -> aws_config::SdkConfig {
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("eu-north-1"))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "test", "test", None, None, "static",
        )))
        .endpoint_url(endpoint)
        .http_client(shared::runtime::https_client())
        .build()
}

/// A DynamoDB client for moto without counters (snapshots, store-level tests); a test app's own
/// client counts requests and capacity.
pub fn dynamo_client() -> aws_sdk_dynamodb::Client {
    aws_sdk_dynamodb::Client::new(&local_sdk_config(moto_endpoint()))
}

static TABLE_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// Fresh, uniquely named tables created from template.yaml.
pub async fn fresh_tables(client: &aws_sdk_dynamodb::Client) -> Tables {
    let run = uuid::Uuid::new_v4().simple().to_string();
    let n = TABLE_SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let tables = Tables {
        data: format!("data-{}-{n}", &run[..8]),
        auth: format!("auth-{}-{n}", &run[..8]),
    };
    schema::create_tables(client, &tables)
        .await
        .expect("tables from template.yaml are created");
    tables
}

/// An SQS client for moto, counting its requests when given a counter.
pub fn sqs_client(counter: Option<RequestCounter>) -> aws_sdk_sqs::Client {
    let mut config = aws_sdk_sqs::config::Builder::from(&local_sdk_config(moto_endpoint()));
    if let Some(counter) = counter {
        config = config.interceptor(counter);
    }
    aws_sdk_sqs::Client::from_conf(config.build())
}

/// A fresh dialler queue, FIFO as in template.yaml (deduplication by explicit id).
pub async fn fresh_dialler_queue(client: &aws_sdk_sqs::Client) -> String {
    let name = format!("dialler-{}.fifo", uuid::Uuid::new_v4().simple());
    client
        .create_queue()
        .queue_name(name)
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .expect("the dialler queue is created")
        .queue_url
        .expect("a queue url")
}

/// Every attempt a scheduler hands to the dialler, recorded before the real dialler (outbox or
/// SQS) gets it, so a test sees a second send even where the queue would drop it.
#[derive(Clone)]
pub struct RecordingDialler {
    inner: Arc<dyn Dialler>,
    sent: Arc<Mutex<Vec<DiallerMessage>>>,
}

impl RecordingDialler {
    pub fn new(inner: Arc<dyn Dialler>) -> Self {
        Self {
            inner,
            sent: Arc::default(),
        }
    }

    pub fn sent(&self) -> Vec<DiallerMessage> {
        self.sent.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl Dialler for RecordingDialler {
    async fn dial(&self, messages: &[DiallerMessage]) -> Vec<Result<(), BoxError>> {
        self.sent.lock().unwrap().extend_from_slice(messages);
        // Lets a concurrent pass run between this pass's claims and its send.
        tokio::task::yield_now().await;
        self.inner.dial(messages).await
    }
}

pub fn start_time() -> DateTime<Utc> {
    "2026-11-20T12:00:00Z".parse().unwrap()
}

pub struct TestApp {
    pub backend: Backend,
    pub router: Router,
    pub clock: ManualClock,
    pub api: LocalApi,
    pub counter: Option<RequestCounter>,
    /// DynamoDB capacity units consumed (estimated, `capacity`); zero on in-memory runs.
    pub capacity: capacity::CapacityMeter,
    pub seed: Seed,
    pub dialler: RecordingDialler,
    /// The dialler queue on DynamoDB runs (SQS on moto); in memory the outbox holds messages.
    pub queue: Option<(aws_sdk_sqs::Client, String)>,
    /// SQS requests by operation on DynamoDB runs.
    pub sqs_counter: RequestCounter,
    /// The tables on DynamoDB runs, for function binaries pointed at the same data.
    pub tables: Option<Tables>,
    /// The store on in-memory runs, for snapshots.
    memory: Option<Arc<MemoryStore>>,
    drained: Mutex<Vec<(String, DiallerMessage)>>,
}

/// The API over a new store of the given kind, loaded with the demo fixture.
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, DEMO_FIXTURE).await
}

pub async fn spawn_app_with(backend: Backend, fixture: &str) -> TestApp {
    spawn(backend, fixture, None).await
}

/// The API on DynamoDB (moto) whose requests go through `plan`, with these SDK retries.
pub async fn spawn_app_with_faults(
    fixture: &str,
    plan: &faults::FaultPlan,
    retry: aws_config::retry::RetryConfig,
) -> TestApp {
    spawn(Backend::DynamoDb, fixture, Some((plan, retry))).await
}

async fn spawn(
    backend: Backend,
    fixture: &str,
    faults: Option<(&faults::FaultPlan, aws_config::retry::RetryConfig)>,
) -> TestApp {
    let clock = ManualClock::at(start_time());
    let memory = (backend == Backend::Memory).then(|| Arc::new(MemoryStore::new()));
    let capacity = capacity::CapacityMeter::default();
    let (store, counter, tables): (Arc<dyn Store>, _, _) = match &memory {
        Some(memory) => (memory.clone(), None, None),
        None => {
            let counter = RequestCounter::default();
            let mut config =
                aws_sdk_dynamodb::config::Builder::from(&local_sdk_config(moto_endpoint()))
                    .interceptor(counter.clone())
                    .interceptor(capacity.clone());
            if let Some((plan, retry)) = faults {
                // Not production's 2 s per attempt: moto is single-threaded and shared by the
                // tests running beside this one, so a real request can take longer and would
                // read as a fault nobody injected. Injected timeouts do not depend on these
                // bounds.
                let timeouts = aws_config::timeout::TimeoutConfig::builder()
                    .operation_attempt_timeout(std::time::Duration::from_secs(30))
                    .operation_timeout(std::time::Duration::from_secs(120))
                    .build();
                config = config
                    .http_client(plan.http_client())
                    .retry_config(retry)
                    .timeout_config(timeouts);
            }
            let client = aws_sdk_dynamodb::Client::from_conf(config.build());
            let tables = fresh_tables(&client).await;
            (
                Arc::new(DynamoStore::new(client, tables.clone())),
                Some(counter),
                Some(tables),
            )
        }
    };
    let seed = Seed::load(fixture, Default::default(), store.as_ref())
        .await
        .expect("fixture loads");
    if let Some(counter) = &counter {
        counter.take();
    }
    capacity.take();
    let api = LocalApi::new(store, Arc::new(clock.clone()), Default::default());
    let sqs_counter = RequestCounter::default();
    let (inner, queue): (Arc<dyn Dialler>, _) = match backend {
        Backend::Memory => (Arc::new(api.outbox.clone()), None),
        Backend::DynamoDb => {
            let client = sqs_client(Some(sqs_counter.clone()));
            let url = fresh_dialler_queue(&client).await;
            (
                Arc::new(SqsDialler::new(client.clone(), url.clone())),
                Some((client, url)),
            )
        }
    };
    let dialler = RecordingDialler::new(inner);
    let api = api.with_dialler(Arc::new(dialler.clone()));
    TestApp {
        backend,
        router: api.router(),
        clock,
        api,
        counter,
        capacity,
        seed,
        dialler,
        queue,
        sqs_counter,
        tables,
        memory,
        drained: Mutex::default(),
    }
}

pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Asserts a problem+json answer with this status and returns its body.
    pub fn problem(&self, status: StatusCode) -> Value {
        assert_eq!(
            self.status,
            status,
            "body: {}",
            String::from_utf8_lossy(&self.body)
        );
        assert_eq!(self.content_type(), "application/problem+json");
        let body = self.json();
        assert_eq!(body["status"], status.as_u16());
        for member in ["type", "title", "detail", "traceId"] {
            assert!(body[member].is_string(), "problem lacks {member}: {body}");
        }
        body
    }
}

impl TestApp {
    pub async fn send(&self, request: Request<Body>) -> TestResponse {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("infallible");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        TestResponse {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.get_with(path, token, &[]).await
    }

    /// A GET with extra request headers (content negotiation, compression).
    pub async fn get_with(
        &self,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> TestResponse {
        self.send(get_request(path, token, headers)).await
    }

    /// A sample event with this app's secrets of portal 1 and a session's token, signed at
    /// `signed_at`.
    pub fn prepared_event(&self, name: &str, token: &str, signed_at: i64) -> String {
        prepared_event(
            name,
            &EventSecrets {
                token,
                import_secret: &self.api.import_secret(1),
                webhook_secret: &self.api.webhook_secret(1),
                signed_at,
            },
        )
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: Value) -> TestResponse {
        self.send_json(Method::POST, path, token, body).await
    }

    pub async fn patch_json(&self, path: &str, token: Option<&str>, body: Value) -> TestResponse {
        self.send_json(Method::PATCH, path, token, body).await
    }

    pub async fn put_json(&self, path: &str, token: Option<&str>, body: Value) -> TestResponse {
        self.send_json(Method::PUT, path, token, body).await
    }

    pub async fn send_json(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> TestResponse {
        let request = body_request(method, path, token, "application/json", body.to_string());
        self.send(request).await
    }

    /// Sets the clock, then logs in, so the session is fresh at that instant.
    pub async fn login_at(&self, phone: &str, at: DateTime<Utc>) -> String {
        self.clock.set(at);
        self.login(phone).await
    }

    pub async fn post_raw(
        &self,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: Vec<u8>,
    ) -> TestResponse {
        self.send(body_request(Method::POST, path, token, content_type, body))
            .await
    }

    /// The client as its portal's staff see it in `GET /clients`.
    pub async fn listed_client(&self, token: &str, id: i64) -> Value {
        let list = self.get("/clients", Some(token)).await.json();
        list.as_array()
            .unwrap()
            .iter()
            .find(|client| client["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("client {id} not listed: {list}"))
    }

    /// Delivers a voice-platform event for `portal_id`, signed with the portal's webhook secret
    /// at the clock's now, as the platform would.
    pub async fn deliver(&self, portal_id: i32, event: &Value) -> TestResponse {
        let body = event.to_string().into_bytes();
        let signature = shared::webhook::signature_header(
            &self.api.webhook_secret(portal_id),
            shared::clock::Clock::now(&self.clock).timestamp(),
            &body,
        );
        self.deliver_raw(Some(&portal_id.to_string()), Some(&signature), body)
            .await
    }

    /// Posts a delivery with exactly these headers (each left out when `None`) and body.
    pub async fn deliver_raw(
        &self,
        portal: Option<&str>,
        signature: Option<&str>,
        body: Vec<u8>,
    ) -> TestResponse {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri("/integrations/voice/events")
            .header("content-type", "application/json");
        if let Some(portal) = portal {
            request = request.header("x-portal-id", portal);
        }
        if let Some(signature) = signature {
            request = request.header("x-signature", signature);
        }
        self.send(request.body(Body::from(body)).unwrap()).await
    }

    /// Requests an OTP and returns its requestId; the code lands in the outbox.
    pub async fn request_otp(&self, phone: &str) -> TestResponse {
        self.post_json(
            "/authentication/request-otp",
            None,
            serde_json::json!({ "phoneNumber": phone }),
        )
        .await
    }

    /// The code of the newest SMS sent to `phone`.
    pub fn last_code(&self, phone: &str) -> String {
        let message = self
            .api
            .outbox
            .messages()
            .into_iter()
            .rev()
            .find(|m| m.to == phone)
            .expect("an SMS was sent");
        otp_in(&message.message)
            .expect("the SMS carries a 6-digit code")
            .to_string()
    }

    pub async fn validate(&self, phone: &str, request_id: &str, otp: &str) -> TestResponse {
        self.post_json(
            "/authentication/validate-otp",
            None,
            serde_json::json!({ "phoneNumber": phone, "requestId": request_id, "otp": otp }),
        )
        .await
    }

    /// Logs in through the API and returns the bearer token.
    pub async fn login(&self, phone: &str) -> String {
        let issued = self.request_otp(phone).await;
        assert_eq!(issued.status, StatusCode::ACCEPTED);
        let request_id = issued.json()["requestId"].as_str().unwrap().to_string();
        let session = self
            .validate(phone, &request_id, &self.last_code(phone))
            .await;
        assert_eq!(session.status, StatusCode::OK, "{}", session.json());
        session.json()["token"].as_str().unwrap().to_string()
    }

    /// One scheduler pass through `POST /_dev/run-scheduler` at `at`; its report.
    pub async fn run_scheduler(&self, at: DateTime<Utc>) -> Value {
        let path = format!(
            "/_dev/run-scheduler?now={}",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        let answer = self
            .send(
                Request::builder()
                    .method(Method::POST)
                    .uri(path)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
        answer.json()
    }

    /// Every dialler message delivered so far, with its deduplication id: from the SQS queue
    /// (drained, and kept), or from the outbox.
    pub async fn delivered_calls(&self) -> Vec<(String, DiallerMessage)> {
        let Some((client, url)) = &self.queue else {
            let delivered = self
                .api
                .outbox
                .messages()
                .into_iter()
                .filter(|m| m.channel == Channel::Dialler)
                .map(|m| {
                    let message: DiallerMessage = serde_json::from_str(&m.message).unwrap();
                    (message.deduplication_id(), message)
                })
                .collect::<Vec<_>>();
            return delivered;
        };
        let mut delivered = self.drained.lock().unwrap().clone();
        loop {
            let out = client
                .receive_message()
                .queue_url(url)
                .max_number_of_messages(10)
                .message_system_attribute_names(
                    aws_sdk_sqs::types::MessageSystemAttributeName::MessageDeduplicationId,
                )
                .send()
                .await
                .expect("messages are received");
            let messages = out.messages.unwrap_or_default();
            if messages.is_empty() {
                *self.drained.lock().unwrap() = delivered.clone();
                return delivered;
            }
            for message in messages {
                let id = message
                    .attributes
                    .as_ref()
                    .and_then(|a| {
                        a.get(
                            &aws_sdk_sqs::types::MessageSystemAttributeName::MessageDeduplicationId,
                        )
                    })
                    .cloned()
                    .unwrap_or_default();
                let body: DiallerMessage =
                    serde_json::from_str(message.body.as_deref().unwrap_or_default()).unwrap();
                delivered.push((id, body));
                // FIFO groups stay blocked until their received messages are deleted.
                client
                    .delete_message()
                    .queue_url(url)
                    .receipt_handle(message.receipt_handle.unwrap_or_default())
                    .send()
                    .await
                    .expect("a received message is deleted");
            }
        }
    }

    /// Asserts the DynamoDB requests since the last count, exactly, by operation; nothing on
    /// the in-memory store.
    #[track_caller]
    pub fn expect_requests(&self, expected: &[(&str, usize)]) {
        if let Some(counts) = self.dynamo_requests() {
            let expected: HashMap<String, usize> = expected
                .iter()
                .map(|(operation, n)| (operation.to_string(), *n))
                .collect();
            assert_eq!(counts, expected, "DynamoDB requests by operation");
        }
    }

    /// Every stored item of both tables (or of the in-memory store), one line each in a stable
    /// order: what a refused or failed request must leave exactly as it was.
    pub async fn snapshot(&self) -> Vec<String> {
        if let Some(memory) = &self.memory {
            return memory.snapshot();
        }
        let tables = self.tables.as_ref().expect("DynamoDB runs have tables");
        let client = dynamo_client();
        let mut lines = Vec::new();
        for table in [&tables.data, &tables.auth] {
            let mut pages = client
                .scan()
                .table_name(table)
                .into_paginator()
                .items()
                .send();
            while let Some(item) = pages.next().await {
                let item = item.expect("the table is scanned");
                lines.push(format!("{table} {}", canonical_item(&item)));
            }
        }
        lines.sort();
        lines
    }

    /// DynamoDB requests since the last call, by operation; `None` on the in-memory store.
    pub fn dynamo_requests(&self) -> Option<HashMap<String, usize>> {
        self.counter.as_ref().map(RequestCounter::take)
    }
}

fn canonical_item(item: &HashMap<String, AttributeValue>) -> String {
    let mut members: Vec<String> = item
        .iter()
        .map(|(name, value)| format!("{name}={}", canonical(value)))
        .collect();
    members.sort();
    format!("{{{}}}", members.join(","))
}

/// An attribute value written the same way whatever order its maps and sets came in.
fn canonical(value: &AttributeValue) -> String {
    let sorted = |mut parts: Vec<String>| {
        parts.sort();
        parts.join(",")
    };
    match value {
        AttributeValue::M(map) => canonical_item(map),
        AttributeValue::L(list) => format!(
            "[{}]",
            list.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        AttributeValue::Ss(set) | AttributeValue::Ns(set) => format!("<{}>", sorted(set.clone())),
        AttributeValue::Bs(set) => format!(
            "<{}>",
            sorted(set.iter().map(|b| format!("{b:?}")).collect())
        ),
        other => format!("{other:?}"),
    }
}

/// A GET of `path`, with the session's bearer token when given and the extra `headers`.
pub fn get_request(path: &str, token: Option<&str>, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder().method(Method::GET).uri(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

/// A request with a body of `content_type`, and the session's bearer token when given.
pub fn body_request(
    method: Method,
    path: &str,
    token: Option<&str>,
    content_type: &str,
    body: impl Into<Body>,
) -> Request<Body> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.body(body.into()).unwrap()
}

/// The one-time code in the text of an OTP SMS: its six-digit word.
pub fn otp_in(message: &str) -> Option<&str> {
    message
        .split(|c: char| !c.is_ascii_digit())
        .find(|part| part.len() == 6)
}

/// A problem body without its per-request `traceId`, to compare two answers.
pub fn without_trace(mut problem: Value) -> Value {
    if let Some(object) = problem.as_object_mut() {
        object.remove("traceId");
    }
    problem
}

/// The fields a validation problem names, in order.
pub fn error_fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_object()
        .map(|errors| errors.keys().cloned().collect())
        .unwrap_or_default()
}

/// The demo fixture without its questionnaire entries, so that only a test's own fall due.
pub fn quiet_demo() -> Value {
    let mut fixture: Value = serde_json::from_str(DEMO_FIXTURE).unwrap();
    fixture["questionnaires"][0]["clients"] = serde_json::json!([]);
    fixture
}

/// A copy of the fixture's first client (portal 1) as client `id` with its own primary number,
/// and without the national id, which must be unique in a portal.
pub fn copy_of_first_client(fixture: &Value, id: i32, primary_number: String) -> Value {
    let mut client = fixture["clients"][0].clone();
    client["id"] = serde_json::json!(id);
    client["nationalId"] = Value::Null;
    client["primaryNumber"] = serde_json::json!(primary_number);
    client
}

/// The quiet demo fixture plus `n` clients of portal 1 (ids from 100,000), for list sizes.
pub fn fixture_with_clients(n: usize) -> String {
    let mut fixture = quiet_demo();
    for i in 0..n as i32 {
        let number = format!("+4673{:07}", 1_000_000 + i);
        let mut client = copy_of_first_client(&fixture, 100_000 + i, number.clone());
        client["phone"] = serde_json::json!(number);
        fixture["clients"].as_array_mut().unwrap().push(client);
    }
    fixture.to_string()
}

/// The quiet demo fixture plus `n` clients of portal 1, each with an entry of questionnaire 11
/// due at the start time.
pub fn fixture_with_due_entries(n: i32) -> String {
    let mut fixture = quiet_demo();
    for i in 0..n {
        let client = copy_of_first_client(&fixture, 100 + i, format!("+467320{i:05}"));
        fixture["clients"].as_array_mut().unwrap().push(client);
        fixture["questionnaires"][0]["clients"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "id": 100_000 + i,
                "clientId": 100 + i,
                "questionnaireId": 11,
                "phoneCallId": null,
                "createdAt": "2026-11-10T08:00:00Z",
                "nextTryAt": start_time()
            }));
    }
    fixture.to_string()
}

/// A valid Swedish personnummer (12 digits) for every `n` below 1,000,000: births spread over
/// 1930-1949, serial and Luhn digit computed.
pub fn personnummer(n: u32) -> String {
    let year = 1930 + n % 20;
    let month = 1 + (n / 20) % 12;
    let day = 1 + (n / 240) % 28;
    let serial = (n / 6720) % 1000;
    let nine = format!("{:02}{month:02}{day:02}{serial:03}", year % 100);
    let check = shared::national_id::luhn_digit(&nine);
    format!("{}{nine}{check}", year / 100)
}

/// Runs each scenario `async fn name(backend: Backend)` on both stores as `memory::name` and
/// `dynamodb::name`.
#[macro_export]
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name($crate::Backend::Memory).await;
                }
            )*
        }
        mod dynamodb {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name($crate::Backend::DynamoDb).await;
                }
            )*
        }
    };
}

/// Every sample event in `events/` (but the scheduler's), the function that serves it, and
/// the status it gets when the events are sent in this order to an API over the demo fixture
/// with a logged-in token of portal 1.
pub const SAMPLE_EVENTS: &[(&str, &str, u16)] = &[
    ("authentication-request-otp", "authentication", 202),
    ("authentication-validate-otp", "authentication", 401),
    ("phone-calls-get", "phone-calls", 200),
    ("phone-calls-requests", "phone-calls", 200),
    ("clients-list", "clients", 200),
    ("clients-patch", "clients", 200),
    ("portals-get", "portals", 200),
    ("portals-import-clients", "portals", 200),
    ("contact-details-list", "contact-details", 200),
    ("contact-details-get", "contact-details", 200),
    ("contact-details-active", "contact-details", 200),
    ("contact-details-put", "contact-details", 200),
    ("questionnaires-list", "questionnaires", 200),
    ("questionnaires-get", "questionnaires", 200),
    ("questionnaires-add-question", "questionnaires", 201),
    ("questionnaires-start-for-clients", "questionnaires", 200),
    ("organisations-suggest-unknown-client", "organisations", 200),
    ("organisations-fix-unknown-client", "organisations", 200),
    ("integrations-voice-call-ended", "integrations", 200),
    ("integrations-voice-call-analyzed", "integrations", 200),
    ("authentication-logout", "authentication", 204),
];

/// The EventBridge event that runs the questionnaire scheduler.
pub const SCHEDULED_EVENT: &str = "questionnaire-scheduler-scheduled";

/// The text of `events/{name}.json`.
pub fn sample_event(name: &str) -> String {
    let path = format!("{}/../events/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What a sample event's placeholders stand for.
pub struct EventSecrets<'a> {
    pub token: &'a str,
    pub import_secret: &'a str,
    pub webhook_secret: &'a str,
    /// The time a voice-platform delivery is signed at (the receiver's now).
    pub signed_at: i64,
}

/// A sample event with its placeholders filled in; a voice-platform delivery is signed over
/// its body as delivered.
pub fn prepared_event(name: &str, secrets: &EventSecrets<'_>) -> String {
    let mut text = sample_event(name)
        .replace("REPLACE_WITH_A_SESSION_TOKEN", secrets.token)
        .replace(
            "REPLACE_WITH_THE_PORTAL_IMPORT_SECRET",
            secrets.import_secret,
        );
    if text.contains("REPLACE_WITH_A_SIGNATURE") {
        let payload: Value = serde_json::from_str(&text).expect("an event is JSON");
        let body = payload["body"].as_str().expect("a delivery has a body");
        let signature = shared::webhook::signature_header(
            secrets.webhook_secret,
            secrets.signed_at,
            body.as_bytes(),
        );
        text = text.replace("REPLACE_WITH_A_SIGNATURE", &signature);
    }
    text
}
