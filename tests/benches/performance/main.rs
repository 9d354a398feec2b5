//! The performance benchmark behind `scripts/bench.sh`: cold start and memory of every function
//! binary under the runtime emulator beside two floors, binary and zip sizes, in-process handler
//! cost per endpoint, local-api throughput under wrk beside an axum floor, DynamoDB requests and
//! capacity per endpoint against DESIGN.md's budget, and how two reads scale. Prints Markdown.
//!
//! Needs the release binaries in `target/lambda/` (the script builds them), moto in
//! `MOTO_ENDPOINT`, cargo-lambda in `CARGO_LAMBDA` and wrk on PATH. `PERF_ONLY=cold,size,...`
//! runs some sections; `PERF_STARTS` sets the cold starts per binary (default 25).

mod cold;
mod dynamodb;
mod handlers;
mod throughput;

use cold::*;
use dynamodb::*;
use handlers::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use throughput::*;

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
