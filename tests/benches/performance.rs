//! The performance benchmark behind `scripts/bench.sh`: cold start and memory of every function
//! binary under the runtime emulator beside two floors, binary and zip sizes, in-process handler
//! cost per endpoint, local-api throughput under wrk beside an axum floor, DynamoDB requests and
//! capacity per endpoint against DESIGN.md's budget, and how two reads scale. Prints Markdown.
//!
//! Needs the release binaries in `target/lambda/` (the script builds them), moto in
//! `MOTO_ENDPOINT`, cargo-lambda in `CARGO_LAMBDA` and wrk on PATH. `PERF_ONLY=cold,size,...`
//! runs some sections; `PERF_STARTS` sets the cold starts per binary (default 25).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use integration_tests::emulator::{
    InvokeClient, Live, Running, free_port, invoke_client, start_emulator, start_function,
    try_invoke, wait_for_port,
};
use integration_tests::local_http::LocalApiClient;
use integration_tests::{
    Access, Backend, ENDPOINTS, Endpoint, SCHEDULED_EVENT, TestApp, body_request, endpoint,
    fixture_with_clients, get_request, moto_requests_served, quiet_demo, sample_event, spawn_app,
    spawn_app_with,
};
use serde_json::{Value, json};
use tower::ServiceExt;

/// Counts live heap bytes and their peak, for the memory a request needs.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// The only unsafe code in the workspace: a `GlobalAlloc` has to be, and it only forwards to the
// system allocator.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A release binary as `cargo lambda build` leaves it.
fn lambda_binary(name: &str) -> PathBuf {
    // PERF_LAMBDA_DIR measures another build, e.g. a copy of target/lambda from before a change.
    let dir = std::env::var_os("PERF_LAMBDA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/lambda"));
    let path = dir.join(name).join("bootstrap");
    assert!(
        path.exists(),
        "{} is missing: scripts/bench.sh builds it",
        path.display()
    );
    path
}

fn wanted(section: &str) -> bool {
    std::env::var("PERF_ONLY")
        .map(|only| only.split(',').any(|s| s == section))
        .unwrap_or(true)
}

fn median(values: &[f64]) -> f64 {
    percentile(values, 50.0)
}

/// The nearest-rank percentile.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Peak resident set (VmHWM) of a running process, in MB.
fn peak_rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/<pid>/status");
    kb / 1024.0
}

/// A function, the SDK clients it creates at start in this environment (its SDK floor makes
/// the same), the event its cold start answers without AWS (its sample event without the
/// credential: 401), and the read its sample events start with.
struct Function {
    name: &'static str,
    clients: &'static str,
    unauthenticated: &'static str,
    read: &'static str,
}

const FUNCTIONS: &[Function] = &[
    Function {
        name: "authentication",
        clients: "dynamodb,sns",
        unauthenticated: "authentication-logout",
        read: "authentication-request-otp",
    },
    Function {
        name: "phone-calls",
        clients: "dynamodb",
        unauthenticated: "phone-calls-get",
        read: "phone-calls-get",
    },
    Function {
        name: "clients",
        clients: "dynamodb",
        unauthenticated: "clients-list",
        read: "clients-list",
    },
    Function {
        name: "portals",
        clients: "dynamodb",
        unauthenticated: "portals-get",
        read: "portals-get",
    },
    Function {
        name: "contact-details",
        clients: "dynamodb",
        unauthenticated: "contact-details-active",
        read: "contact-details-active",
    },
    Function {
        name: "questionnaires",
        clients: "dynamodb",
        unauthenticated: "questionnaires-list",
        read: "questionnaires-list",
    },
    Function {
        name: "organisations",
        clients: "dynamodb",
        unauthenticated: "organisations-suggest-unknown-client",
        read: "organisations-suggest-unknown-client",
    },
    Function {
        name: "integrations",
        clients: "dynamodb",
        unauthenticated: "integrations-voice-call-ended",
        read: "integrations-voice-call-ended",
    },
    // The same binary again, started by the live call's first question: who is calling.
    Function {
        name: "integrations",
        clients: "dynamodb",
        unauthenticated: CALLER_CONTEXT,
        read: CALLER_CONTEXT,
    },
    Function {
        name: "access-log",
        clients: "dynamodb",
        unauthenticated: "access-log-list",
        read: "access-log-list",
    },
    Function {
        name: "questionnaire-scheduler",
        clients: "dynamodb,sqs",
        unauthenticated: SCHEDULED_EVENT,
        read: SCHEDULED_EVENT,
    },
];

/// The caller context's sample event: the integrations function's second row.
const CALLER_CONTEXT: &str = "integrations-voice-inbound";

/// A sample event without its bearer token or signature (the schedule's event is unchanged).
fn without_credentials(name: &str) -> String {
    let mut event: Value = serde_json::from_str(&sample_event(name)).unwrap();
    if let Some(headers) = event.get_mut("headers").and_then(Value::as_object_mut) {
        headers.remove("authorization");
        headers.remove("x-signature");
    }
    event.to_string()
}

/// The accounts of the demo fixture, whose codes the authentication starts ask for in turn.
const ACCOUNTS: [&str; 4] = [
    "+46701000001",
    "+46701000002",
    "+46701000003",
    "+46701000004",
];

/// Start `start`'s first real request of function `f`: its sample read, with a session,
/// signature or secret, changed only where a repeat would not be a first request. A login
/// asks for a code for one of the fixture's accounts from an address of its own (10 codes per
/// number and hour are allowed, 4 accounts: 40 starts an hour), and a call report has an event
/// id and conversation of its own, not a repeated delivery.
fn real_event(live: &Live, f: &Function, start: usize) -> String {
    match f.read {
        "authentication-request-otp" => live.edited_event(f.read, |event, body| {
            event["requestContext"]["http"]["sourceIp"] =
                json!(format!("198.51.100.{}", start % 250));
            body.unwrap()["phoneNumber"] = json!(ACCOUNTS[start % ACCOUNTS.len()]);
        }),
        "integrations-voice-call-ended" => live.edited_event(f.read, |_, body| {
            let body = body.unwrap();
            body["eventId"] = json!(format!("evt-cold-start-{start}"));
            body["conversationUuid"] = json!(format!("conv-cold-start-{start}"));
        }),
        _ => live.event(f.read),
    }
}

/// An AWS request as the counting proxy saw it: `service:Operation`, and when it was
/// received and answered.
struct WireCall {
    operation: String,
    /// The request's JSON body (DynamoDB's reads are sent again as they were).
    body: Value,
    sent: Instant,
    answered: Instant,
}

/// A proxy in front of moto that forwards every request and notes which AWS operation it was,
/// so that an SDK floor can make the same requests as a function's first real answer.
struct CountingProxy {
    url: String,
    calls: std::sync::Arc<std::sync::Mutex<Vec<WireCall>>>,
}

/// `service:Operation` from the headers (JSON protocols) or the form body (SNS's query protocol).
fn operation_of(headers: &http::HeaderMap, body: &[u8]) -> String {
    if let Some(target) = headers.get("x-amz-target").and_then(|v| v.to_str().ok()) {
        let (prefix, operation) = target.split_once('.').unwrap_or((target, ""));
        let service = match prefix {
            p if p.starts_with("DynamoDB") => "dynamodb",
            "AmazonSQS" => "sqs",
            "secretsmanager" => "secretsmanager",
            other => other,
        };
        return format!("{service}:{operation}");
    }
    let form = String::from_utf8_lossy(body);
    let action = form
        .split('&')
        .find_map(|pair| pair.strip_prefix("Action="))
        .unwrap_or("unknown");
    format!("sns:{action}")
}

impl CountingProxy {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let noted = calls.clone();
        let moto = integration_tests::moto_endpoint();
        let client = invoke_client();
        let forward = move |request: http::Request<axum::body::Body>| {
            let (noted, moto, client) = (noted.clone(), moto.clone(), client.clone());
            async move {
                let sent = Instant::now();
                let (mut parts, body) = request.into_parts();
                let body = body.collect().await.unwrap().to_bytes();
                let operation = operation_of(&parts.headers, &body);
                let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
                parts.uri = format!("{moto}{path}").parse().unwrap();
                let answer = client
                    .request(http::Request::from_parts(
                        parts,
                        http_body_util::Full::new(body),
                    ))
                    .await
                    .unwrap();
                let (parts, body) = answer.into_parts();
                let body = body.collect().await.unwrap().to_bytes();
                noted.lock().unwrap().push(WireCall {
                    operation,
                    body: json,
                    sent,
                    answered: Instant::now(),
                });
                http::Response::from_parts(parts, axum::body::Body::from(body))
            }
        };
        let app = axum::Router::new().fallback(forward);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { url, calls }
    }

    /// The requests seen since the last call, as the waves of a `FLOOR_REQUESTS_FILE`: a
    /// request sent before every request of the current wave was answered was sent with them.
    fn take_waves(&self) -> Value {
        let mut calls = std::mem::take(&mut *self.calls.lock().unwrap());
        calls.sort_by_key(|call| call.sent);
        let mut waves: Vec<Vec<Value>> = Vec::new();
        let mut wave_answered: Option<Instant> = None;
        for call in calls {
            let request = json!({"operation": call.operation, "body": call.body});
            match wave_answered {
                Some(answered) if call.sent < answered => {
                    waves.last_mut().unwrap().push(request);
                    wave_answered = Some(answered.max(call.answered));
                }
                _ => {
                    waves.push(vec![request]);
                    wave_answered = Some(call.answered);
                }
            }
        }
        json!(waves)
    }
}

/// The status of an API Gateway answer; none for the schedule's event.
fn status_of(answer: &Value) -> Option<u64> {
    answer.get("statusCode").and_then(Value::as_u64)
}

/// A started binary, its emulator (one each: the emulator may hand an invocation to the
/// poll of a process killed before it), the time from process start to first answer, and
/// that answer.
struct Started {
    ms: f64,
    answer: Value,
    process: Running,
    emulator: (Running, u16),
}

impl Started {
    fn peak_rss_mb(&self) -> f64 {
        peak_rss_mb(self.process.id())
    }

    /// Panics unless a real request was answered as one: 2xx, or the schedule's pass.
    fn answered_for_real(self, name: &str) -> Self {
        if let Some(status) = status_of(&self.answer) {
            assert!(
                (200..300).contains(&status),
                "{name}'s first real request answered {status}: {}",
                self.answer
            );
        }
        self
    }
}

/// Starts `binary` as function `name` and invokes it once with `payload`, the sample event
/// `event` (prepared); a failed invocation names the function and the event.
async fn start_and_answer(
    client: &InvokeClient,
    live: &Live,
    binary: &std::path::Path,
    name: &str,
    extra: &[(&str, &str)],
    (event, payload): (&str, String),
) -> Started {
    let log = std::fs::File::create("/dev/null").unwrap();
    let (emulator, port) = start_emulator();
    let started = Instant::now();
    let process = start_function(binary, name, port, &live.env, extra, &log);
    let answer = try_invoke(client, port, payload)
        .await
        .unwrap_or_else(|failure| panic!("{name} answering {event}: {failure}"));
    Started {
        ms: ms(started.elapsed()),
        answer,
        process,
        emulator: (emulator, port),
    }
}

struct ColdRow {
    name: &'static str,
    floor_sdk: Vec<f64>,
    unauthenticated: Vec<f64>,
    /// The AWS requests of the first real answer, as `FLOOR_REQUESTS_FILE` waves.
    requests: Value,
    /// Where they are written for the matched floor.
    requests_file: String,
    matched_floor: Vec<f64>,
    real: Vec<f64>,
    rss_cold: Vec<f64>,
    rss_1000: f64,
}

/// What each function's first real answer sends to AWS, seen through the counting proxy on a
/// start after an unmeasured one (which leaves what a first start leaves, such as the
/// organisation's client index).
async fn first_real_requests(live: &Live, client: &InvokeClient) -> Vec<Value> {
    let proxy = CountingProxy::start().await;
    let mut requests = Vec::new();
    for f in FUNCTIONS {
        let binary = lambda_binary(f.name);
        let payload = (f.read, real_event(live, f, 1000));
        drop(
            start_and_answer(client, live, &binary, f.name, &[], payload)
                .await
                .answered_for_real(f.name),
        );
        proxy.take_waves();
        let via_proxy = [("AWS_ENDPOINT_URL", proxy.url.as_str())];
        let payload = (f.read, real_event(live, f, 1001));
        drop(
            start_and_answer(client, live, &binary, f.name, &via_proxy, payload)
                .await
                .answered_for_real(f.name),
        );
        requests.push(proxy.take_waves());
    }
    requests
}

/// The waves as "GetItem → (Query + Query together)".
fn described(waves: &Value) -> String {
    let operation = |request: &Value| {
        let name = request["operation"].as_str().unwrap_or_default();
        name.split_once(':').map_or(name, |(_, o)| o).to_string()
    };
    waves
        .as_array()
        .into_iter()
        .flatten()
        .map(|wave| {
            let operations: Vec<String> = wave
                .as_array()
                .into_iter()
                .flatten()
                .map(operation)
                .collect();
            match operations.as_slice() {
                [one] => one.clone(),
                many => format!("({} together)", many.join(" + ")),
            }
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// A round's moto requests and how long the round took.
struct Round {
    served: u64,
    seconds: f64,
}

impl Round {
    fn per_minute(&self) -> f64 {
        self.served as f64 * 60.0 / self.seconds
    }
}

async fn cold_start() {
    let starts: usize = std::env::var("PERF_STARTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(25);
    let client = invoke_client();
    let bare_binary = lambda_binary("floor-bare");
    let sdk = lambda_binary("floor-sdk");
    // The matched floors read what these tables hold; they stay until the end, read only.
    let recorded = Live::new().await;
    let requests = first_real_requests(&recorded, &client).await;

    let mut bare_times = Vec::new();
    let mut bare_rss = Vec::new();
    let mut sdk_rss = Vec::new();
    let mut rows: Vec<ColdRow> = FUNCTIONS
        .iter()
        .zip(requests)
        .map(|(f, requests)| ColdRow {
            name: f.name,
            floor_sdk: vec![],
            unauthenticated: vec![],
            requests_file: {
                let path = root().join(format!("target/tmp/floor-requests-{}.json", f.read));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, requests.to_string()).unwrap();
                path.display().to_string()
            },
            requests,
            matched_floor: vec![],
            real: vec![],
            rss_cold: vec![],
            rss_1000: 0.0,
        })
        .collect();
    let mut rounds = Vec::new();
    // Round-robin, so that a noisy moment of the machine falls on every binary alike. Each
    // round has tables of its own, deleted at its end, so that moto holds no more in the last
    // round than in the first.
    for start in 0..starts {
        let live = Live::new().await;
        let served = moto_requests_served();
        let began = Instant::now();
        let floor_event = || ("clients-list", without_credentials("clients-list"));
        let bare = start_and_answer(
            &client,
            &live,
            &bare_binary,
            "floor-bare",
            &[],
            floor_event(),
        )
        .await;
        bare_times.push(bare.ms);
        bare_rss.push(bare.peak_rss_mb());
        for (f, row) in FUNCTIONS.iter().zip(&mut rows) {
            // Floors are lambda_http: the scheduler's gets an HTTP event, not its schedule.
            let extra = [("FLOOR_CLIENTS", f.clients)];
            let floor = start_and_answer(&client, &live, &sdk, f.name, &extra, floor_event()).await;
            row.floor_sdk.push(floor.ms);
            sdk_rss.push(floor.peak_rss_mb());
            drop(floor);
            let binary = lambda_binary(f.name);
            let unauthenticated = (f.unauthenticated, without_credentials(f.unauthenticated));
            let cold =
                start_and_answer(&client, &live, &binary, f.name, &[], unauthenticated).await;
            row.unauthenticated.push(cold.ms);
            row.rss_cold.push(cold.peak_rss_mb());
            drop(cold);
            let matched = [
                ("FLOOR_CLIENTS", f.clients),
                ("FLOOR_REQUESTS_FILE", row.requests_file.as_str()),
            ];
            let floor =
                start_and_answer(&client, &live, &sdk, f.name, &matched, floor_event()).await;
            row.matched_floor.push(floor.ms);
            drop(floor);
            let payload = (f.read, real_event(&live, f, start));
            let real = start_and_answer(&client, &live, &binary, f.name, &[], payload).await;
            row.real.push(real.answered_for_real(f.name).ms);
        }
        rounds.push(Round {
            served: moto_requests_served() - served,
            seconds: began.elapsed().as_secs_f64(),
        });
        live.retire().await;
    }
    // Peak RSS after 1,000 invocations of each function's read (PERF_RSS_READS: another
    // number; 0 skips it, for a quick look at the cold starts alone), each function on tables
    // of its own.
    let rss_reads: usize = std::env::var("PERF_RSS_READS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let mut read_loops = Vec::new();
    for (f, row) in FUNCTIONS.iter().zip(&mut rows).filter(|_| rss_reads > 0) {
        let live = Live::new().await;
        let served = moto_requests_served();
        let began = Instant::now();
        let binary = lambda_binary(f.name);
        let first = (f.read, live.event(f.read));
        let started = start_and_answer(&client, &live, &binary, f.name, &[], first).await;
        let port = started.emulator.1;
        for read in 1..rss_reads {
            try_invoke(&client, port, live.event(f.read))
                .await
                .unwrap_or_else(|failure| {
                    panic!("{} answering {} (read {read}): {failure}", f.name, f.read)
                });
        }
        row.rss_1000 = started.peak_rss_mb();
        drop(started);
        read_loops.push((
            f.name,
            Round {
                served: moto_requests_served() - served,
                seconds: began.elapsed().as_secs_f64(),
            },
        ));
        live.retire().await;
    }

    println!("\n## moto's pace, first round to last\n");
    println!(
        "moto serves one request at a time; a benchmark whose data grew would slow it round by \
         round. Requests moto served per minute of each round (goal: the last round within 2× \
         of the first).\n"
    );
    println!(
        "| rounds | first round req/min | last round req/min | slowest | fastest | last ÷ first | goal |"
    );
    println!("|---|---|---|---|---|---|---|");
    let paces: Vec<f64> = rounds.iter().map(Round::per_minute).collect();
    if let (Some(first), Some(last)) = (paces.first(), paces.last()) {
        let ratio = last / first;
        println!(
            "| {} | {first:.0} | {last:.0} | {:.0} | {:.0} | {ratio:.2} | {} |",
            paces.len(),
            paces.iter().copied().fold(f64::INFINITY, f64::min),
            paces.iter().copied().fold(0.0, f64::max),
            if (0.5..=2.0).contains(&ratio) {
                "met"
            } else {
                "**not met**"
            }
        );
    }
    if !read_loops.is_empty() {
        println!("\n| {rss_reads} reads of | moto requests | seconds | req/min |");
        println!("|---|---|---|---|");
        for (name, round) in &read_loops {
            println!(
                "| {name} | {} | {:.1} | {:.0} |",
                round.served,
                round.seconds,
                round.per_minute()
            );
        }
    }

    println!("\n## Cold start to the first real answer, through the runtime emulator, on moto\n");
    println!(
        "Median of {starts} starts per binary, round-robin. Each function answers its first \
         real request (its sample read with a session, signature or secret; a login or call \
         report of its own each start). Its matched SDK floor creates the same SDK clients \
         and, before answering, makes the AWS requests that answer made, seen on the wire \
         through a counting proxy, in the same order and with the same concurrency: the same \
         reads again (same keys, key conditions, filters and limits), and writes of the same \
         kind to items of its own.\n"
    );
    println!(
        "| function | first real request | AWS requests, in order | matched SDK floor ms | first real answer ms | × matched floor | goal ≤ 1.3× |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (f, row) in FUNCTIONS.iter().zip(&rows) {
        let floor = median(&row.matched_floor);
        let real = median(&row.real);
        let ratio = real / floor;
        println!(
            "| {} | {} | {} | {floor:.1} | {real:.1} | {ratio:.2} | {} |",
            row.name,
            f.read,
            described(&row.requests),
            if ratio <= 1.3 { "met" } else { "**not met**" },
        );
    }

    let bare_median = median(&bare_times);
    println!("\n## Cold start to an answer without AWS, through the runtime emulator\n");
    println!(
        "Median of {starts} starts per binary, round-robin, in the same run. Floors: bare \
         `lambda_http` hello-world {bare_median:.1} ms (peak RSS {:.1} MB); SDK floor = the same \
         plus the SDK configured as the functions configure it and the function's clients \
         (peak RSS {:.1} MB median).\n",
        median(&bare_rss),
        median(&sdk_rss)
    );
    println!(
        "| function | SDK clients | SDK floor ms | 401 answer ms | × SDK floor | goal ≤ 1.2× and < 15 ms | peak RSS cold MB | after {rss_reads} reads MB |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (f, row) in FUNCTIONS.iter().zip(&rows) {
        let floor = median(&row.floor_sdk);
        let function = median(&row.unauthenticated);
        let ratio = function / floor;
        let met = ratio <= 1.2 && function < 15.0;
        // Every invocation of the scheduler is a pass that reads DynamoDB: it has no answer
        // without AWS, and its matched floor above is its comparison.
        let goal = if f.unauthenticated == SCHEDULED_EVENT {
            "none without AWS: see the first real answer"
        } else if met {
            "met"
        } else {
            "**not met**"
        };
        println!(
            "| {} | {} | {floor:.1} | {function:.1} | {ratio:.2} | {} | {:.1} | {} |",
            row.name,
            f.clients,
            goal,
            median(&row.rss_cold),
            if rss_reads > 0 {
                format!("{:.1}", row.rss_1000)
            } else {
                "not measured".into()
            }
        );
    }
    phone_metadata_load(&client, &sdk, &rows).await;
    // Last: the matched floors read these tables.
    recorded.retire().await;
}

/// The functions whose state asks for the phone region, and so load the phone metadata.
const READ_NUMBERS: [&str; 5] = [
    "authentication",
    "clients",
    "contact-details",
    "organisations",
    "integrations",
];

/// Where the phone metadata is loaded, side by side: each `PHONE_METADATA_LOAD` for the five
/// functions that read numbers, their 401 answer and first real answer against the floors
/// of the main run (`PERF_PHONE_STARTS` starts each, 10 by default), on fresh tables.
async fn phone_metadata_load(client: &InvokeClient, sdk: &std::path::Path, rows: &[ColdRow]) {
    let starts: usize = std::env::var("PERF_PHONE_STARTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    if starts == 0 {
        return;
    }
    const LOADS: [&str; 3] = ["background", "init", "first-use"];
    // (function, load) -> (401 ms, first real ms); function -> (SDK floor, matched floor).
    type Pairs = (Vec<f64>, Vec<f64>);
    let mut times: BTreeMap<(&str, &str), Pairs> = BTreeMap::new();
    let mut floors: BTreeMap<&str, Pairs> = BTreeMap::new();
    for start in 0..starts {
        let live = Live::new().await;
        for (f, row) in FUNCTIONS.iter().zip(rows) {
            // One row per function: the caller context's start is the integrations binary's.
            if !READ_NUMBERS.contains(&f.name) || f.read == CALLER_CONTEXT {
                continue;
            }
            let binary = lambda_binary(f.name);
            let floor_event = || ("clients-list", without_credentials("clients-list"));
            let plain = [("FLOOR_CLIENTS", f.clients)];
            let matched = [
                ("FLOOR_CLIENTS", f.clients),
                ("FLOOR_REQUESTS_FILE", row.requests_file.as_str()),
            ];
            let plain_floor =
                start_and_answer(client, &live, sdk, f.name, &plain, floor_event()).await;
            let matched_floor =
                start_and_answer(client, &live, sdk, f.name, &matched, floor_event()).await;
            let entry = floors.entry(f.name).or_default();
            entry.0.push(plain_floor.ms);
            entry.1.push(matched_floor.ms);
            for (n, load) in LOADS.into_iter().enumerate() {
                let extra = [("PHONE_METADATA_LOAD", load)];
                let unauthenticated = (f.unauthenticated, without_credentials(f.unauthenticated));
                let cold =
                    start_and_answer(client, &live, &binary, f.name, &extra, unauthenticated).await;
                // A call report of its own per load, not a redelivery of the previous one.
                let payload = (f.read, real_event(&live, f, 2000 + start * LOADS.len() + n));
                let real = start_and_answer(client, &live, &binary, f.name, &extra, payload)
                    .await
                    .answered_for_real(f.name);
                let entry = times.entry((f.name, load)).or_default();
                entry.0.push(cold.ms);
                entry.1.push(real.ms);
            }
        }
        live.retire().await;
    }
    println!("\n## Where the phone metadata is loaded, side by side\n");
    println!(
        "`PHONE_METADATA_LOAD` for the functions that read numbers, median of {starts} starts \
         each, round-robin with their floors (measured again alongside). background: a thread \
         started at init; init: before the first request is fetched; first-use: in the first \
         request that reads a number.\n"
    );
    println!(
        "| function | load | 401 answer ms | × SDK floor | first real answer ms | × matched floor |"
    );
    println!("|---|---|---|---|---|---|");
    for name in READ_NUMBERS {
        let (plain, matched) = (median(&floors[name].0), median(&floors[name].1));
        for load in LOADS {
            let (cold, real) = &times[&(name, load)];
            let (cold, real) = (median(cold), median(real));
            println!(
                "| {name} | {load} | {cold:.1} | {:.2} | {real:.1} | {:.2} |",
                cold / plain,
                real / matched
            );
        }
    }
}

fn sizes() {
    println!("\n## Size: stripped release binary and its zip (goal < 8 MB and < 4 MB)\n");
    println!("| function | binary MB | zip MB | goal |");
    println!("|---|---|---|---|");
    let mb = |path: PathBuf| std::fs::metadata(&path).map(|m| m.len() as f64 / 1e6);
    for f in FUNCTIONS.iter().filter(|f| f.read != CALLER_CONTEXT) {
        let binary = mb(lambda_binary(f.name)).unwrap();
        let zip = mb(lambda_binary(f.name).with_file_name("bootstrap.zip"))
            .expect("bootstrap.zip: scripts/package.sh makes it");
        let met = binary < 8.0 && zip < 4.0;
        println!(
            "| {} | {binary:.2} | {zip:.2} | {} |",
            f.name,
            if met { "met" } else { "**not met**" }
        );
    }
}

/// A sample event as the request its function's router gets from lambda_http.
fn request_of(event: &str) -> http::Request<axum::body::Body> {
    let request = lambda_http::request::from_str(event).expect("an API Gateway v2 event");
    request.map(|body| axum::body::Body::from(body.to_vec()))
}

/// One request through the whole in-process API (routing, extractors, store, JSON), timed.
async fn timed(app: &TestApp, request: http::Request<axum::body::Body>) -> (f64, u16, Value) {
    let started = Instant::now();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let elapsed = started.elapsed();
    (
        ms(elapsed) * 1000.0,
        status,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    )
}

fn latency_row(name: &str, kind: &str, samples: &[f64], statuses: &BTreeMap<u16, usize>) {
    let p99 = percentile(samples, 99.0);
    let goal = match kind {
        "read" if p99 < 1000.0 => "met",
        "read" => "**not met**",
        _ => "-",
    };
    let statuses: Vec<String> = statuses.iter().map(|(s, n)| format!("{n}×{s}")).collect();
    println!(
        "| {name} | {kind} | {} | {:.0} | {p99:.0} | {goal} | {} |",
        samples.len(),
        median(samples),
        statuses.join(" ")
    );
}

/// Whether the endpoint of a sample event only reads.
fn is_read(name: &str) -> bool {
    endpoint(name).access == Access::Read
}

async fn handler_cost() {
    println!("\n## Handler cost: in-process latency per endpoint, in-memory store, demo fixture\n");
    println!(
        "Each sample event replayed through the whole API router after 100 unmeasured \
         replays; µs per request. The three authentication endpoints run as login, \
         validate, logout cycles instead (a replay would hit the rate limit or a used code).\n"
    );
    println!("| endpoint | kind | requests | p50 µs | p99 µs | goal p99 < 1 ms | statuses |");
    println!("|---|---|---|---|---|---|---|");
    let app = spawn_app(Backend::Memory).await;
    let token = app.login("+46701000001").await;
    let signed_at = integration_tests::start_time().timestamp();
    let mut order: Vec<&str> = ENDPOINTS.iter().map(|endpoint| endpoint.event).collect();
    order.retain(|name| !name.starts_with("authentication-"));
    order.sort_by_key(|name| !is_read(name));
    for name in order {
        let mut samples = Vec::new();
        let mut statuses = BTreeMap::new();
        if name == "questionnaires-add-question" {
            // Each replay adds a question and a questionnaire holds at most 98: batches of 90
            // on fresh copies of the demo data.
            for batch in 0..4 {
                let fresh = spawn_app(Backend::Memory).await;
                let token = fresh.login("+46701000001").await;
                let event = fresh.prepared_event(name, &token, signed_at);
                for i in 0..90 {
                    let (us, status, _) = timed(&fresh, request_of(&event)).await;
                    if batch > 0 || i >= 10 {
                        samples.push(us);
                        *statuses.entry(status).or_insert(0) += 1;
                    }
                }
            }
        } else {
            let event = app.prepared_event(name, &token, signed_at);
            let count = if is_read(name) { 2000 } else { 500 };
            for _ in 0..100 {
                timed(&app, request_of(&event)).await;
            }
            for _ in 0..count {
                let (us, status, _) = timed(&app, request_of(&event)).await;
                samples.push(us);
                *statuses.entry(status).or_insert(0) += 1;
            }
        }
        latency_row(
            name,
            if is_read(name) { "read" } else { "write" },
            &samples,
            &statuses,
        );
    }
    // Login cycles: the rate limit allows 5 codes per number per hour.
    let mut cycles: BTreeMap<&str, (Vec<f64>, BTreeMap<u16, usize>)> = BTreeMap::new();
    let phone = "+46701000001";
    for i in 0..500 {
        app.clock.advance(chrono::TimeDelta::minutes(13));
        let request = |path: &str, token: Option<&str>, body: Value| {
            body_request(
                http::Method::POST,
                path,
                token,
                "application/json",
                body.to_string(),
            )
        };
        let (us, status, issued) = timed(
            &app,
            request(
                "/authentication/request-otp",
                None,
                json!({"phoneNumber": phone}),
            ),
        )
        .await;
        let code = app.last_code(phone);
        let validate = json!({"phoneNumber": phone, "requestId": issued["requestId"], "otp": code});
        let (us2, status2, session) = timed(
            &app,
            request("/authentication/validate-otp", None, validate),
        )
        .await;
        let session = session["token"].as_str().unwrap_or_default().to_string();
        let (us3, status3, _) = timed(
            &app,
            request("/authentication/logout", Some(&session), json!({})),
        )
        .await;
        if i >= 20 {
            for (name, us, status) in [
                ("authentication-request-otp", us, status),
                ("authentication-validate-otp", us2, status2),
                ("authentication-logout", us3, status3),
            ] {
                let entry = cycles.entry(name).or_default();
                entry.0.push(us);
                *entry.1.entry(status).or_insert(0) += 1;
            }
        }
    }
    for (name, (samples, statuses)) in cycles {
        latency_row(name, "write", &samples, &statuses);
    }
}

/// What wrk printed, read: requests per second, p50 and p99 in ms, and errors.
struct Load {
    rps: f64,
    p50: f64,
    p99: f64,
    errors: u64,
}

fn parse_wrk(output: &str) -> Load {
    let duration_ms = |text: &str| -> f64 {
        let text = text.trim();
        let (number, factor) = if let Some(n) = text.strip_suffix("us") {
            (n, 0.001)
        } else if let Some(n) = text.strip_suffix("ms") {
            (n, 1.0)
        } else if let Some(n) = text.strip_suffix('s') {
            (n, 1000.0)
        } else {
            (text, 1.0)
        };
        number.parse::<f64>().unwrap_or(f64::NAN) * factor
    };
    let after = |prefix: &str| {
        output
            .lines()
            .find_map(|line| line.trim().strip_prefix(prefix).map(str::trim))
    };
    let socket_errors: u64 = after("Socket errors:")
        .map(|text| {
            text.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    let non_2xx: u64 = after("Non-2xx or 3xx responses:")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Load {
        rps: after("Requests/sec:")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0.0),
        p50: after("50%").map(duration_ms).unwrap_or(f64::NAN),
        p99: after("99%").map(duration_ms).unwrap_or(f64::NAN),
        errors: socket_errors + non_2xx,
    }
}

/// Seconds of load per endpoint (`PERF_LOAD_SECONDS`, 20 by default).
fn load_seconds() -> String {
    std::env::var("PERF_LOAD_SECONDS").unwrap_or_else(|_| "20".into())
}

fn wrk(url: &str, token: Option<&str>) -> Load {
    let mut command = Command::new("wrk");
    command.args([
        "-t2",
        "-c64",
        &format!("-d{}s", load_seconds()),
        "--latency",
    ]);
    if let Some(token) = token {
        command.args(["-H", &format!("authorization: Bearer {token}")]);
    }
    let output = command
        .arg(url)
        .output()
        .expect("wrk runs (scripts/bench.sh installs it)");
    assert!(output.status.success(), "wrk failed: {output:?}");
    parse_wrk(&String::from_utf8_lossy(&output.stdout))
}

/// A sample event's path and query, as a URL on `base`.
fn url_of(base: &str, event: &str) -> String {
    let event: Value = serde_json::from_str(&sample_event(event)).unwrap();
    let query = event["rawQueryString"].as_str().unwrap_or_default();
    let path = event["rawPath"].as_str().unwrap();
    if query.is_empty() {
        format!("{base}{path}")
    } else {
        format!("{base}{path}?{query}")
    }
}

async fn throughput() {
    let port = free_port();
    let _api = Running(
        Command::new(lambda_binary("local-api"))
            .args(["--port", &port.to_string()])
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("local-api starts"),
    );
    let floor_port = free_port();
    let _floor = Running(
        Command::new(lambda_binary("floor-axum"))
            .arg(floor_port.to_string())
            .spawn()
            .expect("floor-axum starts"),
    );
    wait_for_port(port, "local-api");
    wait_for_port(floor_port, "floor-axum");
    let base = format!("http://127.0.0.1:{port}");
    let token = LocalApiClient::new(&base)
        .login("+46701000001")
        .await
        .expect("a session on local-api");
    let floor = wrk(&format!("http://127.0.0.1:{floor_port}/hello"), None);
    println!("\n## Throughput: local-api (release, in-memory store, demo data) under wrk\n");
    println!(
        "wrk 2 threads, 64 connections, {} s per endpoint, on the same 2 cores as the server. \
         Floor: a bare axum hello-world, {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms, {} errors.\n",
        load_seconds(),
        floor.rps,
        floor.p50,
        floor.p99,
        floor.errors
    );
    println!("| endpoint | requests/s | × floor | p50 ms | p99 ms | errors |");
    println!("|---|---|---|---|---|---|");
    for (label, event) in [
        ("GET /phone-calls/{id}", "phone-calls-get"),
        ("GET /clients", "clients-list"),
        ("GET /contact-details/active", "contact-details-active"),
    ] {
        let load = wrk(&url_of(&base, event), Some(&token));
        println!(
            "| {label} | {:.0} | {:.2} | {:.2} | {:.2} | {} |",
            load.rps,
            load.rps / floor.rps,
            load.p50,
            load.p99,
            load.errors
        );
    }
}

async fn dynamodb_efficiency() {
    let app = spawn_app(Backend::DynamoDb).await;
    let token = app.login("+46701000001").await;
    let signed_at = integration_tests::start_time().timestamp();
    println!("\n## DynamoDB requests and capacity per endpoint (moto, demo data)\n");
    println!(
        "Each sample event once, in the order of the runtime test. Requests counted on the \
         wire by operation; capacity units estimated from the items on the wire by \
         DynamoDB's sizing rules (`tests/src/capacity.rs`), eventually consistent reads.\n"
    );
    println!(
        "| endpoint | status | requests by operation | after the session check | budget | RCU | WCU | within budget |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for Endpoint { event: name, .. } in ENDPOINTS {
        app.take_dynamo_requests();
        app.capacity.take();
        let event = app.prepared_event(name, &token, signed_at);
        let bearer = event.contains("\"authorization\"");
        let request = if *name == "authentication-validate-otp" {
            // The sample's code is a placeholder: a real one, asked for before counting.
            let phone = "+46701000002";
            let issued = app.request_otp(phone).await.json();
            let body = json!({"phoneNumber": phone, "requestId": issued["requestId"],
                "otp": app.last_code(phone)});
            app.take_dynamo_requests();
            app.capacity.take();
            body_request(
                http::Method::POST,
                "/authentication/validate-otp",
                None,
                "application/json",
                body.to_string(),
            )
        } else {
            request_of(&event)
        };
        let (_, status, _) = timed(&app, request).await;
        let counts: BTreeMap<String, usize> =
            app.take_dynamo_requests().unwrap().into_iter().collect();
        let units = app.capacity.take();
        let total: usize = counts.values().sum();
        let after_session = total - usize::from(bearer);
        let (allowed, why) = (endpoint(name).budget, endpoint(name).budget_reason);
        let listed: Vec<String> = counts.iter().map(|(op, n)| format!("{n} {op}")).collect();
        println!(
            "| {name} | {status} | {} | {after_session} | {allowed} ({why}) | {:.1} | {:.1} | {} |",
            listed.join(", "),
            units.read,
            units.write,
            if after_session <= allowed {
                "yes"
            } else {
                "**no**"
            }
        );
    }
    app.capacity.take();
    app.snapshot().await;
    println!(
        "\nLargest stored item: {} bytes (updates, deletes and condition checks are counted \
         as one item of at most 1 KB).",
        app.capacity.largest_item()
    );
}

/// The least-squares slope of log(y) over log(x): how y grows with x.
fn exponent(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points.iter().map(|(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let covariance: f64 = logs.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let variance: f64 = logs.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    covariance / variance
}

/// Median time, peak heap growth and body of one GET, over `runs` runs after 3 warm-ups.
async fn measure_get(app: &TestApp, token: &str, path: &str, runs: usize) -> (f64, f64, Value) {
    let get = || get_request(path, Some(token), &[]);
    for _ in 0..3 {
        timed(app, get()).await;
    }
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    let mut body = Value::Null;
    for _ in 0..runs {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let (us, status, answer) = timed(app, get()).await;
        assert_eq!(status, 200, "{path}: {answer}");
        peaks.push((PEAK.load(Ordering::Relaxed) - before) as f64 / 1e6);
        times.push(us / 1000.0);
        body = answer;
    }
    (median(&times), median(&peaks), body)
}

/// The size of an API Gateway answer lambda_http writes for this body: text as a JSON string,
/// or, when compressed, base64.
fn lambda_answer_bytes(body: &[u8], compressed: bool) -> usize {
    let body = if compressed {
        "x".repeat(body.len().div_ceil(3) * 4)
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    json!({"statusCode": 200, "headers": {"content-type": "application/json"},
        "body": body, "isBase64Encoded": compressed})
    .to_string()
    .len()
}

async fn scale() {
    println!("\n## Scale: in-process, in-memory store\n");
    println!(
        "Median of 20 requests after 3 warm-ups; heap = the peak of live heap bytes during \
         the request above those before it (a counting allocator). Lambda answer = the API \
         Gateway response lambda_http writes (limit 6 MB): the body as a JSON string, or \
         gzipped and base64-encoded when the client sends `Accept-Encoding: gzip`.\n"
    );
    println!("| request | size | ms | heap MB | body MB | Lambda answer MB | with gzip MB |");
    println!("|---|---|---|---|---|---|---|");
    let mut client_points = (Vec::new(), Vec::new());
    for n in [100, 1_000, 10_000] {
        let app = spawn_app_with(Backend::Memory, &fixture_with_clients(n)).await;
        let token = app.login("+46701000001").await;
        let (time, heap, body) = measure_get(&app, &token, "/clients", 20).await;
        let plain = app.get("/clients", Some(&token)).await.body;
        let gzipped = app
            .get_with("/clients", Some(&token), &[("accept-encoding", "gzip")])
            .await;
        let compressed = gzipped.headers.contains_key("content-encoding");
        println!(
            "| GET /clients | {} clients | {time:.2} | {heap:.2} | {:.2} | {:.2} | {:.2} |",
            body.as_array().map_or(0, Vec::len),
            plain.len() as f64 / 1e6,
            lambda_answer_bytes(&plain, false) as f64 / 1e6,
            lambda_answer_bytes(&gzipped.body, compressed) as f64 / 1e6
        );
        client_points.0.push((n as f64, time));
        client_points.1.push((n as f64, heap));
    }
    let mut line_points = (Vec::new(), Vec::new());
    for n in [10, 1_000] {
        // The demo call keeps its own lines (a client request points at one); more are added.
        let mut fixture = quiet_demo();
        let call = &mut fixture["phoneCalls"][0];
        let transcript = call["transcript"].as_array_mut().unwrap();
        let template = transcript[0].clone();
        for i in transcript.len()..n {
            let mut line = template.clone();
            line["id"] = json!(900_000 + i);
            line["message"] = json!(format!("Line {i} of a long conversation about the week."));
            transcript.push(line);
        }
        let app = spawn_app_with(Backend::Memory, &fixture.to_string()).await;
        let token = app.login("+46701000001").await;
        let id = fixture["phoneCalls"][0]["id"].as_i64().unwrap();
        let path = format!("/phone-calls/{id}");
        let (time, heap, body) = measure_get(&app, &token, &path, 20).await;
        let bytes = body.to_string().len();
        println!(
            "| GET /phone-calls/{{id}} | {} lines | {time:.3} | {heap:.3} | {:.3} | {:.3} | - |",
            body[0]["transcript"].as_array().map_or(0, Vec::len),
            bytes as f64 / 1e6,
            lambda_answer_bytes(body.to_string().as_bytes(), false) as f64 / 1e6
        );
        line_points.0.push((n as f64, time));
        line_points.1.push((n as f64, heap));
    }
    println!(
        "\nFitted exponents (1 = linear): GET /clients time {:.2}, heap {:.2}; \
         GET /phone-calls/{{id}} time {:.2}, heap {:.2}.",
        exponent(&client_points.0),
        exponent(&client_points.1),
        exponent(&line_points.0),
        exponent(&line_points.1)
    );
}

/// The first phone number a process parses loads the Nordic metadata, the first number
/// elsewhere the full metadata (decompressed and read from XML); later ones load nothing.
/// Measured first thing, before anything else in this process parses a number or starts
/// `shared::phone::prepare`.
fn first_phone_parse() -> String {
    let region = shared::phone::DefaultRegion::default();
    let timed = |number: &str| {
        let started = Instant::now();
        shared::phone::normalise(number, region).unwrap();
        ms(started.elapsed())
    };
    let nordic = timed("+46731110001");
    let elsewhere = timed("+442079460018");
    let mut later = Vec::new();
    for i in 0..1000 {
        later.push(timed(&format!("+4673111{i:04}")) * 1000.0);
    }
    format!(
        "\n## The first phone number in a process\n\nFirst `shared::phone::normalise` of a \
         Swedish number in this process: {nordic:.1} ms (the Nordic metadata: 6 territories' \
         patterns checked, then compiled as the number meets them); the first number of \
         another country code after it: {elsewhere:.1} ms (the full metadata, decompressed and \
         read, 254 territories); the next 1,000 Swedish numbers: median {:.1} µs.",
        median(&later)
    )
}

fn main() {
    let phone = wanted("cold").then(first_phone_parse);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        if wanted("size") {
            sizes();
        }
        if wanted("cold") {
            cold_start().await;
        }
        if let Some(phone) = phone {
            println!("{phone}");
        }
        if wanted("handlers") {
            handler_cost().await;
        }
        if wanted("throughput") {
            throughput().await;
        }
        if wanted("dynamodb") {
            dynamodb_efficiency().await;
        }
        if wanted("scale") {
            scale().await;
        }
    });
}
