//! Cold start, memory and phone-metadata load of every function binary under the runtime emulator, and binary and zip sizes.

use super::*;

mod phone_metadata;
mod proxy;

pub(crate) use phone_metadata::*;
pub(crate) use proxy::*;

/// A function, the SDK clients it creates at start in this environment (its SDK floor makes
/// the same), the event its cold start answers without AWS (its sample event without the
/// credential: 401), and the read its sample events start with.
pub(crate) struct Function {
    name: &'static str,
    clients: &'static str,
    unauthenticated: &'static str,
    read: &'static str,
}

pub(crate) const FUNCTIONS: &[Function] = &[
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
        clients: "dynamodb,sns",
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
pub(crate) const CALLER_CONTEXT: &str = "integrations-voice-inbound";

/// A sample event without its bearer token or signature (the schedule's event is unchanged).
pub(crate) fn without_credentials(name: &str) -> String {
    let mut event: Value = serde_json::from_str(&sample_event(name)).unwrap();
    if let Some(headers) = event.get_mut("headers").and_then(Value::as_object_mut) {
        headers.remove("authorization");
        headers.remove("x-signature");
    }
    event.to_string()
}

/// The accounts of the demo fixture, whose codes the authentication starts ask for in turn.
pub(crate) const ACCOUNTS: [&str; 4] = [
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
pub(crate) fn real_event(live: &Live, f: &Function, start: usize) -> String {
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

/// The status of an API Gateway answer; none for the schedule's event.
pub(crate) fn status_of(answer: &Value) -> Option<u64> {
    answer.get("statusCode").and_then(Value::as_u64)
}

/// A started binary, its emulator (one each: the emulator may hand an invocation to the
/// poll of a process killed before it), the time from process start to first answer, and
/// that answer.
pub(crate) struct Started {
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
pub(crate) async fn start_and_answer(
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

pub(crate) struct ColdRow {
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
pub(crate) async fn first_real_requests(live: &Live, client: &InvokeClient) -> Vec<Value> {
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
pub(crate) fn described(waves: &Value) -> String {
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
pub(crate) struct Round {
    served: u64,
    seconds: f64,
}

impl Round {
    fn per_minute(&self) -> f64 {
        self.served as f64 * 60.0 / self.seconds
    }
}

pub(crate) async fn cold_start() {
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

pub(crate) fn sizes() {
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
