//! DynamoDB requests and capacity per endpoint against the budget, and how two reads scale.

use super::*;

pub(crate) async fn dynamodb_efficiency() {
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
pub(crate) fn exponent(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points.iter().map(|(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let covariance: f64 = logs.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let variance: f64 = logs.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    covariance / variance
}

/// Median time, peak heap growth and body of one GET, over `runs` runs after 3 warm-ups.
pub(crate) async fn measure_get(
    app: &TestApp,
    token: &str,
    path: &str,
    runs: usize,
) -> (f64, f64, Value) {
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
pub(crate) fn lambda_answer_bytes(body: &[u8], compressed: bool) -> usize {
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

pub(crate) async fn scale() {
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
