//! In-process handler cost per endpoint: latency of each sample event through its router.

use super::*;

/// A sample event as the request its function's router gets from lambda_http.
pub(crate) fn request_of(event: &str) -> http::Request<axum::body::Body> {
    let request = lambda_http::request::from_str(event).expect("an API Gateway v2 event");
    request.map(|body| axum::body::Body::from(body.to_vec()))
}

/// One request through the whole in-process API (routing, extractors, store, JSON), timed.
pub(crate) async fn timed(
    app: &TestApp,
    request: http::Request<axum::body::Body>,
) -> (f64, u16, Value) {
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

pub(crate) fn latency_row(
    name: &str,
    kind: &str,
    samples: &[f64],
    statuses: &BTreeMap<u16, usize>,
) {
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
pub(crate) fn is_read(name: &str) -> bool {
    endpoint(name).access == Access::Read
}

pub(crate) async fn handler_cost() {
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
