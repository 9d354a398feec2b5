//! Hostile input, on both stores: every endpoint (one per sample event) is sent malformed and
//! mistyped JSON, out-of-range and oversized numbers, 1 MiB strings, deep nesting, invalid
//! UTF-8, duplicate keys, NUL bytes, wrong content types, bad path ids and query parameters,
//! missing and malformed bearer tokens and oversized bodies. Each gets the 4xx problem its
//! kind calls for, and the store (counters, rate limits and sessions included) and the
//! outbox are exactly as they were.

use axum::body::Body;
use http::{HeaderValue, Method, Request, StatusCode};
use integration_tests::{Backend, ENDPOINTS, TestApp, on_both_stores};
use serde_json::{Value, json};

use crate::demo::KARIN;
use crate::support::spawn_logged_in;

const MIB: usize = 1 << 20;

/// What the endpoint of a sample event needs to be reached.
struct Endpoint {
    name: &'static str,
    method: Method,
    /// The route with `{id}` where the path has one.
    template: String,
    path: String,
    query: String,
    body: Option<String>,
    access: Access,
}

#[derive(Clone, Copy, PartialEq)]
enum Access {
    Bearer,
    /// The import secret travels in the body; request-otp and validate-otp are open.
    Open,
    /// The voice platform's signature over the body.
    Signed,
    /// Retell's, Vapi's or ElevenLabs' own scheme.
    Retell,
    Vapi,
    ElevenLabs,
}

impl Endpoint {
    /// What a mistyped-free but wrong credential in the body gets: the one 401 of a wrong
    /// secret or login code, not a field error that would tell it apart.
    fn content_status(&self, field: &str, length: usize) -> StatusCode {
        match (self.template.as_str(), field) {
            ("/portals/import-clients", "secret") => StatusCode::UNAUTHORIZED,
            ("/authentication/validate-otp", "requestId") if length <= 64 => {
                StatusCode::UNAUTHORIZED
            }
            _ => StatusCode::BAD_REQUEST,
        }
    }

    fn body_limit(&self) -> usize {
        if ["/portals/import-clients", "/integrations/voice/events"]
            .contains(&self.template.as_str())
        {
            MIB
        } else {
            256 * 1024
        }
    }
}

/// Every sample event's endpoint, its event prepared for `token`, signed now.
fn endpoints(app: &TestApp, token: &str) -> Vec<Endpoint> {
    let signed_at = shared::clock::Clock::now(&app.clock).timestamp();
    ENDPOINTS
        .iter()
        .map(|endpoint| {
            let name = endpoint.event;
            let event: Value =
                serde_json::from_str(&app.prepared_event(name, token, signed_at)).unwrap();
            let (method, template) = event["routeKey"].as_str().unwrap().split_once(' ').unwrap();
            let headers = &event["headers"];
            let access = if headers.get("x-retell-signature").is_some() {
                Access::Retell
            } else if headers.get("x-timestamp").is_some() {
                Access::Vapi
            } else if headers.get("x-webhook-secret").is_some() {
                Access::ElevenLabs
            } else if headers.get("x-signature").is_some() {
                Access::Signed
            } else if headers.get("authorization").is_some() {
                Access::Bearer
            } else {
                Access::Open
            };
            Endpoint {
                name,
                method: method.parse().unwrap(),
                template: template.to_string(),
                path: event["rawPath"].as_str().unwrap().to_string(),
                query: event["rawQueryString"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                body: event["body"].as_str().map(str::to_string),
                access,
            }
        })
        .collect()
}

/// One hostile request and the status it must get.
struct Case {
    what: String,
    path: String,
    query: String,
    content_type: Option<&'static str>,
    authorization: Option<HeaderValue>,
    body: Vec<u8>,
    expect: StatusCode,
}

impl Case {
    /// The endpoint's own request with one thing changed by the caller.
    fn of(endpoint: &Endpoint, token: &str, what: impl Into<String>, expect: StatusCode) -> Self {
        Self {
            what: what.into(),
            path: endpoint.path.clone(),
            query: endpoint.query.clone(),
            content_type: endpoint.body.as_ref().map(|_| "application/json"),
            authorization: (endpoint.access == Access::Bearer)
                .then(|| HeaderValue::from_str(&format!("Bearer {token}")).unwrap()),
            body: endpoint.body.clone().unwrap_or_default().into_bytes(),
            expect,
        }
    }

    fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }
}

fn auth_cases(endpoint: &Endpoint, token: &str) -> Vec<Case> {
    if endpoint.access != Access::Bearer {
        return Vec::new();
    }
    let long = "A".repeat(16 * 1024);
    let headers: Vec<(&str, Option<HeaderValue>)> = vec![
        ("no authorization", None),
        ("bare scheme", Some(HeaderValue::from_static("Bearer"))),
        ("empty token", Some(HeaderValue::from_static("Bearer "))),
        ("short token", Some(HeaderValue::from_static("Bearer x"))),
        (
            "other scheme",
            Some(HeaderValue::from_str(&format!("Token {token}")).unwrap()),
        ),
        (
            "trailing word",
            Some(HeaderValue::from_str(&format!("Bearer {token} x")).unwrap()),
        ),
        (
            "16 KiB token",
            Some(HeaderValue::from_str(&format!("Bearer {long}")).unwrap()),
        ),
        (
            "non-ASCII token",
            Some(HeaderValue::from_bytes(b"Bearer \xff\xfe\xfd").unwrap()),
        ),
        (
            "path as token",
            Some(HeaderValue::from_static("Bearer ../../etc/passwd")),
        ),
    ];
    headers
        .into_iter()
        .map(|(what, header)| {
            let mut case = Case::of(endpoint, token, what, StatusCode::UNAUTHORIZED);
            case.authorization = header;
            case
        })
        .collect()
}

fn path_cases(endpoint: &Endpoint, token: &str) -> Vec<Case> {
    if !endpoint.template.contains("{id}") {
        return Vec::new();
    }
    [
        "0",
        "-1",
        "2147483648",
        "-2147483649",
        "99999999999999999999999999",
        "abc",
        "1.0",
        "1e3",
        "+1",
        "0x10",
        "%00",
        "%EF%BC%91",
        "1%20",
    ]
    .into_iter()
    .map(|id| {
        let mut case = Case::of(
            endpoint,
            token,
            format!("path id {id}"),
            StatusCode::BAD_REQUEST,
        );
        case.path = endpoint.template.replace("{id}", id);
        case
    })
    .collect()
}

fn query_cases(endpoint: &Endpoint, token: &str) -> Vec<Case> {
    if endpoint.template != "/clients" {
        return Vec::new();
    }
    [
        "limit=-1",
        "limit=0",
        "limit=2147483648",
        "limit=abc",
        "limit=1e400",
        "limit=%00",
        "cursor=-1",
        "cursor=abc",
        "cursor=99999999999999999999",
        "limit=2&cursor=1.5",
    ]
    .into_iter()
    .map(|query| {
        let mut case = Case::of(
            endpoint,
            token,
            format!("query {query}"),
            StatusCode::BAD_REQUEST,
        );
        case.query = query.to_string();
        case
    })
    .collect()
}

/// Fields whose value is any JSON by design, so no type is wrong for them: none now, as
/// `metadata` is prose and `dynamicVariables` an object of strings.
const FREE_FORM: [&str; 0] = [];

/// The object whose fields are changed: the body itself, or its first element.
fn fields(body: &mut Value) -> &mut serde_json::Map<String, Value> {
    match body {
        Value::Array(items) => items[0].as_object_mut().unwrap(),
        other => other.as_object_mut().unwrap(),
    }
}

fn body_cases(endpoint: &Endpoint, token: &str) -> Vec<Case> {
    let Some(text) = &endpoint.body else {
        return Vec::new();
    };
    let bad = StatusCode::BAD_REQUEST;
    let case =
        |what: String, body: Vec<u8>, expect| Case::of(endpoint, token, what, expect).body(body);
    let mut cases = Vec::new();
    for malformed in [
        "",
        "{",
        "{\"a\":}",
        "nul",
        "{}}",
        "[1,]",
        "{'a':1}",
        "NaN",
        "\u{feff}{}",
    ] {
        cases.push(case(
            format!("malformed {malformed:?}"),
            malformed.into(),
            bad,
        ));
    }
    let valid: Value = serde_json::from_str(text).unwrap();
    // An object's own values as an array: serde would take them as its fields in order.
    let other_shapes = match &valid {
        Value::Object(fields) => vec![json!([]), json!(fields.values().collect::<Vec<_>>())],
        _ => vec![json!({"a": 1})],
    };
    let wrong_shapes = [json!(null), json!(1), json!("x"), json!(true)];
    for wrong in wrong_shapes.into_iter().chain(other_shapes) {
        cases.push(case(format!("body {wrong}"), wrong.to_string().into(), bad));
    }
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    cases.push(case("100,000 nested arrays".into(), deep.into(), bad));

    let names: Vec<String> = fields(&mut valid.clone()).keys().cloned().collect();
    for name in names
        .iter()
        .filter(|name| !FREE_FORM.contains(&name.as_str()))
    {
        let original = fields(&mut valid.clone())[name].clone();
        let mut replacements = vec![match &original {
            Value::String(_) => json!(12345),
            Value::Number(_) => json!("12"),
            Value::Bool(_) => json!("yes"),
            Value::Array(_) => json!({"a": 1}),
            Value::Object(_) | Value::Null => json!([{}]),
        }];
        if original.is_i64() {
            replacements.extend([
                json!(2_147_483_648i64),
                json!(-2_147_483_649i64),
                json!(1.5),
            ]);
        }
        if let Value::String(s) = &original {
            replacements.push(json!(format!("{s}\u{0}")));
            replacements.push(json!("\u{0}"));
        }
        for replacement in replacements {
            let mut body = valid.clone();
            fields(&mut body).insert(name.clone(), replacement.clone());
            let shown: String = replacement.to_string().chars().take(40).collect();
            let expect = match &replacement {
                Value::String(text) if original.is_string() => {
                    endpoint.content_status(name, text.len())
                }
                _ => bad,
            };
            cases.push(case(
                format!("{name} = {shown}"),
                body.to_string().into(),
                expect,
            ));
        }
        // Numbers beyond f64 and i64, and deep nesting, written out as text: no JSON value
        // holds them.
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let mut raws = vec![deep.as_str()];
        if original.is_number() {
            raws.extend(["1e400", "123456789012345678901234567890", "-1e400"]);
        }
        {
            for raw in raws {
                let mut body = valid.clone();
                fields(&mut body).insert(name.clone(), json!("RAW"));
                let text = body.to_string().replace("\"RAW\"", raw);
                let shown: String = raw.chars().take(20).collect();
                cases.push(case(format!("{name} = {shown} (raw)"), text.into(), bad));
            }
        }
        // The same field twice, the second copy a different value.
        if valid.is_object() {
            let text = body_text_with_duplicate(&valid, name);
            cases.push(case(format!("{name} twice"), text.into(), bad));
        }
        if original.is_string() {
            let mut body = valid.clone();
            fields(&mut body).insert(name.clone(), json!("a".repeat(MIB)));
            let text = body.to_string();
            cases.push(case(
                format!("{name} of 1 MiB"),
                text.into(),
                StatusCode::PAYLOAD_TOO_LARGE,
            ));
            let mut body = valid.clone();
            fields(&mut body).insert(name.clone(), json!("a".repeat(100_000)));
            cases.push(case(
                format!("{name} of 100,000 characters"),
                body.to_string().into(),
                endpoint.content_status(name, 100_000),
            ));
        }
    }

    // Invalid UTF-8 inside the first string value.
    let mut bytes = text.clone().into_bytes();
    if let Some(quote) = text.find(":\"") {
        bytes.splice(quote + 2..quote + 2, [0xff, 0xfe]);
        cases.push(case("invalid UTF-8".into(), bytes, bad));
    }
    let oversized = format!(
        "{text}{}",
        " ".repeat(endpoint.body_limit() + 1 - text.len())
    );
    cases.push(case(
        "body one byte over the limit".into(),
        oversized.into(),
        StatusCode::PAYLOAD_TOO_LARGE,
    ));
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/xml"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonx"),
        Some("json"),
    ] {
        let mut case = Case::of(
            endpoint,
            token,
            format!("content type {content_type:?}"),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        );
        case.content_type = content_type;
        cases.push(case);
    }
    cases
}

/// The object body as text with `name` written a second time, with a changed value.
fn body_text_with_duplicate(valid: &Value, name: &str) -> String {
    let text = valid.to_string();
    let duplicate = match &valid[name] {
        Value::String(s) => json!(format!("{s}x")),
        Value::Number(_) => json!(2),
        Value::Bool(b) => json!(!b),
        _ => json!(null),
    };
    format!("{},{}:{duplicate}}}", &text[..text.len() - 1], json!(name))
}

async fn send(app: &TestApp, endpoint: &Endpoint, case: &Case) -> (StatusCode, Value, String) {
    let uri = if case.query.is_empty() {
        case.path.clone()
    } else {
        format!("{}?{}", case.path, case.query)
    };
    let mut request = Request::builder().method(endpoint.method.clone()).uri(uri);
    if let Some(content_type) = case.content_type {
        request = request.header("content-type", content_type);
    }
    if let Some(authorization) = &case.authorization {
        request = request.header("authorization", authorization.clone());
    }
    let now = shared::clock::Clock::now(&app.clock);
    match endpoint.access {
        Access::Signed => {
            let signature = shared::webhook::signature_header(
                &app.api.webhook_secret(1),
                now.timestamp(),
                &case.body,
            );
            request = request
                .header("x-portal-id", "1")
                .header("x-signature", signature);
        }
        Access::Retell => {
            let signature = shared::provider_auth::retell_signature(
                &app.api.retell_api_key,
                now.timestamp_millis(),
                &case.body,
            );
            request = request.header("x-retell-signature", signature);
        }
        Access::Vapi => {
            let timestamp = now.timestamp().to_string();
            let signature = shared::provider_auth::vapi_signature(
                &app.api.webhook_secret(1),
                &timestamp,
                &case.body,
            );
            request = request
                .header("x-signature", signature)
                .header("x-timestamp", timestamp);
        }
        Access::ElevenLabs => {
            request = request.header("x-webhook-secret", app.api.header_secret(1));
        }
        Access::Bearer | Access::Open => {}
    }
    let answer = app
        .send(request.body(Body::from(case.body.clone())).unwrap())
        .await;
    let body = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    (answer.status, body, answer.content_type().to_string())
}

async fn every_endpoint_refuses_hostile_input_and_changes_nothing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let endpoints = endpoints(&app, &token);
    let mut before = app.snapshot().await;
    let messages = app.api.outbox.messages().len();
    let mut failures = Vec::new();
    let mut total = 0;
    for endpoint in &endpoints {
        let cases = [
            auth_cases(endpoint, &token),
            path_cases(endpoint, &token),
            query_cases(endpoint, &token),
            body_cases(endpoint, &token),
        ]
        .into_iter()
        .flatten();
        for case in &cases.collect::<Vec<_>>() {
            total += 1;
            let (status, body, content_type) = send(&app, endpoint, case).await;
            let is_problem = content_type == "application/problem+json"
                && body["status"] == status.as_u16()
                && ["type", "title", "detail", "traceId"]
                    .iter()
                    .all(|m| body[m].is_string());
            if status != case.expect || !is_problem {
                failures.push(format!(
                    "{} {}: {status} (expected {}) {body}",
                    endpoint.name, case.what, case.expect
                ));
            }
        }
        let after = app.snapshot().await;
        let added: Vec<_> = after.iter().filter(|line| !before.contains(line)).collect();
        let removed: Vec<_> = before.iter().filter(|line| !after.contains(line)).collect();
        if !added.is_empty() || !removed.is_empty() {
            failures.push(format!(
                "{} changed the store: now {added:#?}, was {removed:#?}",
                endpoint.name
            ));
        }
        // Each endpoint is judged on its own changes.
        before = after;
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        app.api.outbox.messages().len(),
        messages,
        "nothing was sent"
    );
    // Every endpoint got cases, and the session survived them all.
    assert!(total > 20 * 9, "{total} cases");
    eprintln!(
        "{total} hostile requests over {} endpoints, each refused",
        endpoints.len()
    );
    assert_eq!(
        app.get("/clients", Some(&token)).await.status,
        StatusCode::OK
    );
}

on_both_stores!(every_endpoint_refuses_hostile_input_and_changes_nothing);
