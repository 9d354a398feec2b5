//! Benchmark (not a test): questionnaire scheduler passes over 10,000 due entries, on the
//! in-memory store and on DynamoDB with SQS (moto), with the requests they made. Run through
//! `scripts/bench-scheduler.sh`, which starts moto; figures go in the README.
//!
//! The first pass sends 10,000 first attempts. The second, a day later, finds the 10,000
//! again: 9,000 second attempts to send, and 1,000 entries whose only attempt went unreported,
//! which end in alerts that the same pass escalates (one SMS each to the day contact).

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::TimeDelta;
use integration_tests::{Backend, fixture_with_due_entries_ending, spawn_app_with, start_time};

const ENTRIES: i32 = 10_000;
/// Entries with one try, whose unreported attempt ends them in an alert: 10 %.
const ENDING: i32 = 1_000;

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
    let fixture = fixture_with_due_entries_ending(ENTRIES, ENDING);
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
        let loading = Instant::now();
        let app = spawn_app_with(backend, &fixture).await;
        let loaded = loading.elapsed();
        let store = match backend {
            Backend::Memory => "in-memory (outbox)",
            Backend::DynamoDb => "DynamoDB + SQS on moto",
        };
        let passes = [
            ("first attempts", start_time(), ENTRIES as usize, 0),
            (
                "a day later, 10 % alerts",
                start_time() + TimeDelta::days(1),
                (ENTRIES - ENDING) as usize,
                ENDING as usize,
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
        eprintln!("(fixture of {ENTRIES} clients and entries loaded in {loaded:.1?})");
    }
}
