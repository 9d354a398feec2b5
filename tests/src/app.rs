//! `spawn_app`: the whole API over either store with a manual clock, a dev outbox, a recording
//! dialler and (on DynamoDB) request and capacity counters; `TestApp` drives it.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use chrono::{DateTime, Utc};
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use local_api::{DEMO_FIXTURE, LocalApi};
use shared::clock::ManualClock;
use shared::config::Tables;
use shared::fixture::Seed;
use shared::notify::{Dialler, DiallerMessage, SqsDialler};
use shared::store::Store;
use shared::store::dynamo::{DynamoStore, RequestCounter};
use shared::store::memory::MemoryStore;

use crate::capacity;
use crate::dialler::RecordingDialler;
use crate::endpoints::{EventSecrets, prepared_event};
use crate::faults;
use crate::moto::*;
use crate::requests::*;

mod observe;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Memory,
    DynamoDb,
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

/// The DynamoDB request an access record of a request touching `clients` clients costs: a
/// PutItem when it lists none, else a TransactWriteItems per 100 items (the record and a copy
/// per client).
pub fn access_record_write(clients: usize) -> (&'static str, usize) {
    match clients {
        0 => ("PutItem", 1),
        n => ("TransactWriteItems", (n + 1).div_ceil(100)),
    }
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
                header_secret: &self.api.header_secret(1),
                retell_api_key: &self.api.retell_api_key,
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

    /// The app with a session of `phone`, logged in through the API: how a scenario starts.
    pub async fn logged_in(self, phone: &str) -> (Self, String) {
        let token = self.login(phone).await;
        (self, token)
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
        self.signed_post("/integrations/voice/events", portal_id, event)
            .await
    }

    /// Posts `body` to one of the voice platform's routes for `portal_id`, signed with the
    /// portal's webhook secret at the clock's now.
    pub async fn signed_post(&self, path: &str, portal_id: i32, body: &Value) -> TestResponse {
        let body = body.to_string().into_bytes();
        let signature = shared::webhook::signature_header(
            &self.api.webhook_secret(portal_id),
            shared::clock::Clock::now(&self.clock).timestamp(),
            &body,
        );
        self.post_signed_raw(path, Some(&portal_id.to_string()), Some(&signature), body)
            .await
    }

    /// Posts a delivery with exactly these headers (each left out when `None`) and body.
    pub async fn deliver_raw(
        &self,
        portal: Option<&str>,
        signature: Option<&str>,
        body: Vec<u8>,
    ) -> TestResponse {
        self.post_signed_raw("/integrations/voice/events", portal, signature, body)
            .await
    }

    /// Posts to a voice platform's route with exactly these headers (each left out when
    /// `None`) and body.
    pub async fn post_signed_raw(
        &self,
        path: &str,
        portal: Option<&str>,
        signature: Option<&str>,
        body: Vec<u8>,
    ) -> TestResponse {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(path)
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
    /// A JSON POST from source address `ip`, as local-api's TCP peer (or API Gateway's
    /// `sourceIp`) would give it.
    pub async fn post_json_from(&self, ip: &str, path: &str, body: Value) -> TestResponse {
        let peer = std::net::SocketAddr::new(ip.parse().expect("an IP address"), 40_000);
        self.send(json_post_from(peer, path, body)).await
    }

    /// A JSON POST through a proxy on this machine: the TCP peer is loopback and
    /// `X-Forwarded-For` carries `forwarded_for`, as local-api behind a local proxy sees it.
    pub async fn post_json_forwarded(
        &self,
        forwarded_for: &str,
        path: &str,
        body: Value,
    ) -> TestResponse {
        let peer = std::net::SocketAddr::from(([127, 0, 0, 1], 40_000));
        let mut request = json_post_from(peer, path, body);
        request.headers_mut().insert(
            "x-forwarded-for",
            forwarded_for.parse().expect("a header value"),
        );
        self.send(request).await
    }

    pub async fn request_otp(&self, phone: &str) -> TestResponse {
        self.post_json(
            "/authentication/request-otp",
            None,
            serde_json::json!({ "phoneNumber": phone }),
        )
        .await
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

    /// The same API with its access log replaced (by one whose writes fail, say).
    pub fn with_access_log(mut self, log: Arc<dyn shared::store::AccessLogWriter>) -> Self {
        self.api.services.access_log = log;
        self.router = self.api.router();
        self
    }
}

/// A JSON POST as it arrives from the TCP peer `peer`.
fn json_post_from(peer: std::net::SocketAddr, path: &str, body: Value) -> Request<Body> {
    let mut request = body_request(
        Method::POST,
        path,
        None,
        "application/json",
        body.to_string(),
    );
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(peer));
    request
}
