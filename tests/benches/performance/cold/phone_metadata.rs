//! Where the phone metadata is loaded: the functions that read numbers, each way of loading
//! it, side by side against the floors of the main run.

use super::*;

/// The functions whose state asks for the phone region, and so load the phone metadata.
pub(crate) const READ_NUMBERS: [&str; 5] = [
    "authentication",
    "clients",
    "contact-details",
    "organisations",
    "integrations",
];

/// Where the phone metadata is loaded, side by side: each `PHONE_METADATA_LOAD` for the five
/// functions that read numbers, their 401 answer and first real answer against the floors
/// of the main run (`PERF_PHONE_STARTS` starts each, 10 by default), on fresh tables.
pub(crate) async fn phone_metadata_load(
    client: &InvokeClient,
    sdk: &std::path::Path,
    rows: &[ColdRow],
) {
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
