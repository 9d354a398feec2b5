//! Benchmark (not a test): questionnaire scheduler passes over due entries, on the in-memory
//! store (10,000 entries) and on DynamoDB with SQS (moto, 2,000), with the requests they made.
//! Run through `scripts/bench-scheduler.sh`, which starts moto; figures go in the README.
//!
//! The first pass sends every first attempt. The second, a day later, finds every entry again:
//! 90 % second attempts to send, and 10 % whose only attempt went unreported, which end in
//! alerts that the same pass escalates (one SMS each to the day contact).
//!
//! moto runs 2,000: its TransactWriteItems copies the whole table to roll back, and the 1,000
//! transactions of 10,000 entries took it past the machine's 24 GB. Requests grow linearly
//! with the entries (per 96 entries, README), so 2,000 state the budget.

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::TimeDelta;
use integration_tests::{Backend, fixture_with_due_entries_ending, spawn_app_with, start_time};

/// Due entries per store, and how many of them have one try, whose unreported attempt ends
/// them in an alert: 10 %.
fn entries(backend: Backend) -> (i32, i32) {
    match backend {
        Backend::Memory => (10_000, 1_000),
        Backend::DynamoDb => (2_000, 200),
    }
}

fn requests(counts: Option<std::collections::HashMap<String, usize>>) -> String {
    let sorted: BTreeMap<String, usize> = counts.unwrap_or_default().into_iter().collect();
    if sorted.is_empty() {
        return "-".into();
    }
    sorted
        .iter()
        .map(|(operation, n)| format!("{operation} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[tokio::main]
async fn main() {
    let mut backends = vec![Backend::Memory];
    if std::env::var_os("MOTO_ENDPOINT").is_some() {
        backends.push(Backend::DynamoDb);
    } else {
        eprintln!("MOTO_ENDPOINT is not set: measuring the in-memory store only");
    }
    println!(
        "| store | pass | due | sent | alerts raised | SMS | time | DynamoDB requests | SQS requests |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for backend in backends {
        let (entries, ending) = entries(backend);
        let fixture = fixture_with_due_entries_ending(entries, ending);
        let loading = Instant::now();
        let app = spawn_app_with(backend, &fixture).await;
        let loaded = loading.elapsed();
        let store = match backend {
            Backend::Memory => "in-memory (outbox)",
            Backend::DynamoDb => "DynamoDB + SQS on moto",
        };
        let passes = [
            ("first attempts", start_time(), entries as usize, 0),
            (
                "a day later, 10 % alerts",
                start_time() + TimeDelta::days(1),
                (entries - ending) as usize,
                ending as usize,
            ),
        ];
        for (name, at, sent, alerts) in passes {
            app.take_dynamo_requests();
            app.sqs_counter.take();
            let started = Instant::now();
            let report = app
                .api
                .scheduler()
                .run_pass(at, None)
                .await
                .expect("the pass succeeds");
            let elapsed = started.elapsed();
            assert_eq!(
                (
                    report.sent,
                    report.alerts_raised,
                    report.notifications_sent,
                    report.failed
                ),
                (sent, alerts, alerts, 0),
                "{name}: every due entry is sent or ends in an alert, and each alert messaged once"
            );
            let sqs = (backend == Backend::DynamoDb).then(|| app.sqs_counter.take());
            println!(
                "| {store} | {name} | {} | {} | {} | {} | {:.2} s | {} | {} |",
                report.due,
                report.sent,
                report.alerts_raised,
                report.notifications_sent,
                elapsed.as_secs_f64(),
                requests(app.take_dynamo_requests()),
                requests(sqs),
            );
        }
        eprintln!("(fixture of {entries} clients and entries loaded in {loaded:.1?})");
    }
}
