//! Benchmark (not a test): one questionnaire scheduler pass over 10,000 due entries, on the
//! in-memory store and on DynamoDB with SQS (moto), with the requests it made. Run through
//! `scripts/bench-scheduler.sh`, which starts moto; figures go in the README.

use std::collections::BTreeMap;
use std::time::Instant;

use integration_tests::{Backend, fixture_with_due_entries, spawn_app_with, start_time};

const ENTRIES: i32 = 10_000;

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
    let fixture = fixture_with_due_entries(ENTRIES);
    let mut backends = vec![Backend::Memory];
    if std::env::var_os("MOTO_ENDPOINT").is_some() {
        backends.push(Backend::DynamoDb);
    } else {
        eprintln!("MOTO_ENDPOINT is not set: measuring the in-memory store only");
    }
    println!("| store | due | sent | pass | DynamoDB requests | SQS requests |");
    println!("|---|---|---|---|---|---|");
    for backend in backends {
        let loading = Instant::now();
        let app = spawn_app_with(backend, &fixture).await;
        let loaded = loading.elapsed();
        app.take_dynamo_requests();
        app.sqs_counter.take();
        let started = Instant::now();
        let report = app
            .api
            .scheduler()
            .run_pass(start_time(), None)
            .await
            .expect("the pass succeeds");
        let elapsed = started.elapsed();
        assert_eq!(
            (report.sent, report.failed),
            (ENTRIES as usize, 0),
            "every due entry is sent"
        );
        let sqs = (backend == Backend::DynamoDb).then(|| app.sqs_counter.take());
        println!(
            "| {} | {} | {} | {:.2} s | {} | {} |",
            match backend {
                Backend::Memory => "in-memory (outbox dialler)",
                Backend::DynamoDb => "DynamoDB + SQS on moto",
            },
            report.due,
            report.sent,
            elapsed.as_secs_f64(),
            requests(app.take_dynamo_requests()),
            requests(sqs),
        );
        eprintln!("(fixture of {ENTRIES} clients and entries loaded in {loaded:.1?})");
    }
}
