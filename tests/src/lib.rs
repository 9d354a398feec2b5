//! Test harness: `spawn_app` builds the whole API over either store with a manual clock, a dev
//! outbox and (on DynamoDB) a request counter, so every scenario runs on both stores.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::config::Credentials;
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

/// A DynamoDB client for moto, with static credentials and no instance-metadata lookups.
pub fn dynamo_client(counter: Option<RequestCounter>) -> aws_sdk_dynamodb::Client {
    let mut config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("eu-north-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "static"))
        .endpoint_url(moto_endpoint());
    if let Some(counter) = counter {
        config = config.interceptor(counter);
    }
    aws_sdk_dynamodb::Client::from_conf(config.build())
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

pub fn start_time() -> DateTime<Utc> {
    "2026-11-20T12:00:00Z".parse().unwrap()
}

pub struct TestApp {
    pub backend: Backend,
    pub router: Router,
    pub clock: ManualClock,
    pub api: LocalApi,
    pub counter: Option<RequestCounter>,
    pub seed: Seed,
}

/// The API over a new store of the given kind, loaded with the demo fixture.
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, DEMO_FIXTURE).await
}

pub async fn spawn_app_with(backend: Backend, fixture: &str) -> TestApp {
    let clock = ManualClock::at(start_time());
    let (store, counter): (Arc<dyn Store>, _) = match backend {
        Backend::Memory => (Arc::new(MemoryStore::new()), None),
        Backend::DynamoDb => {
            let counter = RequestCounter::default();
            let client = dynamo_client(Some(counter.clone()));
            let tables = fresh_tables(&client).await;
            (Arc::new(DynamoStore::new(client, tables)), Some(counter))
        }
    };
    let seed = Seed::load(fixture, Default::default(), store.as_ref())
        .await
        .expect("fixture loads");
    if let Some(counter) = &counter {
        counter.take();
    }
    let api = LocalApi::new(store, Arc::new(clock.clone()), Default::default());
    TestApp {
        backend,
        router: api.router(),
        clock,
        api,
        counter,
        seed,
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
        let mut request = Request::builder().method(Method::GET).uri(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        self.send(request.body(Body::empty()).unwrap()).await
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
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        self.send(request.body(Body::from(body.to_string())).unwrap())
            .await
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
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header("content-type", content_type);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
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
        message
            .message
            .split(|c: char| !c.is_ascii_digit())
            .find(|part| part.len() == 6)
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

    /// DynamoDB requests since the last call, by operation; `None` on the in-memory store.
    pub fn dynamo_requests(&self) -> Option<HashMap<String, usize>> {
        self.counter.as_ref().map(RequestCounter::take)
    }
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

/// A valid Swedish personnummer (12 digits) for every `n` below 1,000,000: births spread over
/// 1930-1949, serial and Luhn digit computed.
pub fn personnummer(n: u32) -> String {
    let year = 1930 + n % 20;
    let month = 1 + (n / 20) % 12;
    let day = 1 + (n / 240) % 28;
    let serial = (n / 6720) % 1000;
    let nine = format!("{:02}{month:02}{day:02}{serial:03}", year % 100);
    let sum: u32 = nine
        .bytes()
        .enumerate()
        .map(|(i, b)| {
            let product = u32::from(b - b'0') * if i % 2 == 0 { 2 } else { 1 };
            product / 10 + product % 10
        })
        .sum();
    format!("{}{}{}", year / 100, nine, (10 - sum % 10) % 10)
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
