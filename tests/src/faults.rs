//! Fault injection under the AWS SDK: an HTTP client that fails the n-th DynamoDB request
//! with a throttling answer or a 500 (neither reaches the table), or lets it reach the table
//! and then loses the answer as a timeout, so every retry and half-write path runs for real.

use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::{Response, StatusCode};
use aws_smithy_types::body::SdkBody;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `ThrottlingException` (HTTP 400); the table never sees the request.
    Throttled,
    /// `InternalServerError` (HTTP 500); the table never sees the request.
    ServerError,
    /// The table applies the request and the answer is lost: the SDK sees a timeout.
    TimeoutAfterWrite,
}

pub const FAULTS: [Fault; 3] = [
    Fault::Throttled,
    Fault::ServerError,
    Fault::TimeoutAfterWrite,
];

#[derive(Debug, Default)]
struct PlanState {
    /// Requests since the plan was last armed or disarmed.
    seen: usize,
    armed: Option<(usize, Fault)>,
    fired: bool,
}

/// Which request fails, shared between a test and the client it built.
#[derive(Debug, Clone, Default)]
pub struct FaultPlan(Arc<Mutex<PlanState>>);

impl FaultPlan {
    /// Fails the `n`-th request from now (1 is the next one) with `fault`.
    pub fn arm(&self, n: usize, fault: Fault) {
        *self.0.lock().unwrap() = PlanState {
            seen: 0,
            armed: Some((n, fault)),
            fired: false,
        };
    }

    /// Stops failing and counts afresh; whether the armed fault fired, and the requests seen
    /// since the last `arm` or `disarm`.
    pub fn disarm(&self) -> (bool, usize) {
        let mut state = self.0.lock().unwrap();
        let outcome = (state.fired, state.seen);
        *state = PlanState::default();
        outcome
    }

    fn next(&self) -> Option<Fault> {
        let mut state = self.0.lock().unwrap();
        state.seen += 1;
        match state.armed {
            Some((n, fault)) if n == state.seen => {
                state.fired = true;
                Some(fault)
            }
            _ => None,
        }
    }

    /// An HTTP client for local endpoints (plain HTTP) that obeys this plan.
    pub fn http_client(&self) -> SharedHttpClient {
        SharedHttpClient::new(FaultyClient {
            inner: aws_smithy_http_client::Builder::new().build_http(),
            plan: self.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultyClient {
    inner: SharedHttpClient,
    plan: FaultPlan,
}

impl HttpClient for FaultyClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(FaultyConnector {
            inner: self.inner.http_connector(settings, components),
            plan: self.plan.clone(),
        })
    }
}

#[derive(Debug)]
struct FaultyConnector {
    inner: SharedHttpConnector,
    plan: FaultPlan,
}

/// A DynamoDB error answer as the service writes it.
fn service_error(status: u16, kind: &str, message: &str) -> Response<SdkBody> {
    let body = serde_json::json!({
        "__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"),
        "message": message,
    });
    let mut response = Response::new(
        StatusCode::try_from(status).expect("a valid status"),
        SdkBody::from(body.to_string()),
    );
    response
        .headers_mut()
        .insert("content-type", "application/x-amz-json-1.0");
    response
}

impl HttpConnector for FaultyConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        match self.plan.next() {
            None => self.inner.call(request),
            Some(Fault::Throttled) => HttpConnectorFuture::ready(Ok(service_error(
                400,
                "ThrottlingException",
                "Rate of requests exceeds the allowed throughput.",
            ))),
            Some(Fault::ServerError) => HttpConnectorFuture::ready(Ok(service_error(
                500,
                "InternalServerError",
                "Internal server error",
            ))),
            Some(Fault::TimeoutAfterWrite) => {
                let applied = self.inner.call(request);
                HttpConnectorFuture::new(async move {
                    let _ = applied.await;
                    Err(ConnectorError::timeout(
                        "injected: the answer was lost after the table applied the request".into(),
                    ))
                })
            }
        }
    }
}
