//! local-api throughput under wrk beside an axum floor.

use super::*;

/// What wrk printed, read: requests per second, p50 and p99 in ms, and errors.
pub(crate) struct Load {
    rps: f64,
    p50: f64,
    p99: f64,
    errors: u64,
}

pub(crate) fn parse_wrk(output: &str) -> Load {
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
pub(crate) fn load_seconds() -> String {
    std::env::var("PERF_LOAD_SECONDS").unwrap_or_else(|_| "20".into())
}

pub(crate) fn wrk(url: &str, token: Option<&str>) -> Load {
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
pub(crate) fn url_of(base: &str, event: &str) -> String {
    let event: Value = serde_json::from_str(&sample_event(event)).unwrap();
    let query = event["rawQueryString"].as_str().unwrap_or_default();
    let path = event["rawPath"].as_str().unwrap();
    if query.is_empty() {
        format!("{base}{path}")
    } else {
        format!("{base}{path}?{query}")
    }
}

pub(crate) async fn throughput() {
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
