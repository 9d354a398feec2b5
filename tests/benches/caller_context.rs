//! Benchmark (not a test): the caller context on `local-api` (in memory, over loopback HTTP)
//! with an organisation of 20,000 clients: 2,000 signed requests after a warm-up, p50, p99 and
//! max (goal: p99 ≤ 50 ms), and the same API with its access log made to hang: every answer is
//! the unknown caller's, within the deadline + 50 ms (the goal). Run through
//! `scripts/bench-caller-context.sh`; figures go in docs/performance.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use axum::body::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

use integration_tests::emulator::{InvokeClient, invoke_client};
use integration_tests::{Backend, TestApp, fixture_with_clients, spawn_app_with, start_time};
use shared::store::StoreResult;
use shared::store::access_log::AccessRecord;

const CLIENTS: usize = 20_000;
const WARM_UP: usize = 200;
const REQUESTS: usize = 2_000;
const HUNG_REQUESTS: usize = 20;
const DEADLINE: Duration = integrations::caller::DEFAULT_DEADLINE;

/// An access log whose writes never finish.
struct Hanging;

#[async_trait]
impl shared::store::AccessLogWriter for Hanging {
    async fn append(&self, _records: &[AccessRecord]) -> StoreResult<()> {
        futures::future::pending().await
    }
}

/// Serves `app`'s router on a loopback port, as `local-api` does; its base URL.
async fn serve(app: &TestApp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = app
        .api
        .router()
        .into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}")
}

/// One signed caller-context request for `from`; the time to the whole answer, and the answer.
async fn ask(http: &InvokeClient, base: &str, secret: &str, from: &str) -> (Duration, Value) {
    let body =
        json!({"fromNumber": from, "toNumber": "+4687001000", "callId": "conv-bench"}).to_string();
    let signature =
        shared::webhook::signature_header(secret, start_time().timestamp(), body.as_bytes());
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("{base}/integrations/voice/inbound"))
        .header("content-type", "application/json")
        .header("x-portal-id", "1")
        .header("x-signature", signature)
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let started = Instant::now();
    let response = http.request(request).await.expect("the API answers");
    assert_eq!(response.status(), 200);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let took = started.elapsed();
    (took, serde_json::from_slice(&bytes).unwrap())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let loading = Instant::now();
    let app = spawn_app_with(Backend::Memory, &fixture_with_clients(CLIENTS)).await;
    println!(
        "{CLIENTS} clients of portal 1 loaded in {:.1} s",
        loading.elapsed().as_secs_f64()
    );
    let secret = app.api.webhook_secret(1);
    let base = serve(&app).await;
    let http = invoke_client();
    // Numbers spread over the portal, one in ten nobody's.
    let number = |i: usize| {
        if i % 10 == 9 {
            format!("+4670{:07}", 9_000_000 + i)
        } else {
            format!("+4673{:07}", 1_000_000 + (i * 7_919) % CLIENTS)
        }
    };
    for i in 0..WARM_UP {
        ask(&http, &base, &secret, &number(i)).await;
    }
    let mut times = Vec::with_capacity(REQUESTS);
    let mut known = 0;
    for i in 0..REQUESTS {
        let (took, answer) = ask(&http, &base, &secret, &number(WARM_UP + i)).await;
        known += usize::from(answer["variables"]["knownCaller"] == "true");
        times.push(took);
    }
    times.sort();
    let p99 = percentile(&times, 0.99);
    println!(
        "\n## Caller context on local-api, {CLIENTS} clients, {REQUESTS} requests ({known} known callers)\n"
    );
    println!("| p50 ms | p99 ms | max ms | goal p99 ≤ 50 ms |");
    println!("|---|---|---|---|");
    println!(
        "| {} | {} | {} | {} |",
        ms(percentile(&times, 0.5)),
        ms(p99),
        ms(*times.last().unwrap()),
        if p99 <= Duration::from_millis(50) {
            "met"
        } else {
            "NOT MET"
        }
    );

    let hung = app.with_access_log(Arc::new(Hanging));
    let hung_base = serve(&hung).await;
    let mut times = Vec::with_capacity(HUNG_REQUESTS);
    for i in 0..HUNG_REQUESTS {
        let (took, answer) = ask(&http, &hung_base, &secret, &number(i * 10)).await;
        assert_eq!(answer["variables"]["knownCaller"], "false", "{answer}");
        times.push(took);
    }
    times.sort();
    let worst = *times.last().unwrap();
    println!(
        "\n## Caller context with its store hanging, deadline {} ms, {HUNG_REQUESTS} requests\n",
        DEADLINE.as_millis()
    );
    println!("| min ms | max ms | max − deadline ms | goal ≤ deadline + 50 ms |");
    println!("|---|---|---|---|");
    println!(
        "| {} | {} | {} | {} |",
        ms(times[0]),
        ms(worst),
        ms(worst.saturating_sub(DEADLINE)),
        if worst <= DEADLINE + Duration::from_millis(50) {
            "met"
        } else {
            "NOT MET"
        }
    );
    if p99 > Duration::from_millis(50) || worst > DEADLINE + Duration::from_millis(50) {
        std::process::exit(1);
    }
}
