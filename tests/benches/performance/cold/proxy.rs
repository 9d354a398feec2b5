//! The counting proxy in front of moto: every AWS request a started function makes, by
//! operation and time, so that its SDK floor can make the same ones.

use super::*;

/// An AWS request as the counting proxy saw it: `service:Operation`, and when it was
/// received and answered.
pub(crate) struct WireCall {
    operation: String,
    /// The request's JSON body (DynamoDB's reads are sent again as they were).
    body: Value,
    sent: Instant,
    answered: Instant,
}

/// A proxy in front of moto that forwards every request and notes which AWS operation it was,
/// so that an SDK floor can make the same requests as a function's first real answer.
pub(crate) struct CountingProxy {
    pub(super) url: String,
    calls: std::sync::Arc<std::sync::Mutex<Vec<WireCall>>>,
}

/// `service:Operation` from the headers (JSON protocols) or the form body (SNS's query protocol).
pub(crate) fn operation_of(headers: &http::HeaderMap, body: &[u8]) -> String {
    if let Some(target) = headers.get("x-amz-target").and_then(|v| v.to_str().ok()) {
        let (prefix, operation) = target.split_once('.').unwrap_or((target, ""));
        let service = match prefix {
            p if p.starts_with("DynamoDB") => "dynamodb",
            "AmazonSQS" => "sqs",
            "secretsmanager" => "secretsmanager",
            other => other,
        };
        return format!("{service}:{operation}");
    }
    let form = String::from_utf8_lossy(body);
    let action = form
        .split('&')
        .find_map(|pair| pair.strip_prefix("Action="))
        .unwrap_or("unknown");
    format!("sns:{action}")
}

impl CountingProxy {
    pub(super) async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let noted = calls.clone();
        let moto = integration_tests::moto_endpoint();
        let client = invoke_client();
        let forward = move |request: http::Request<axum::body::Body>| {
            let (noted, moto, client) = (noted.clone(), moto.clone(), client.clone());
            async move {
                let sent = Instant::now();
                let (mut parts, body) = request.into_parts();
                let body = body.collect().await.unwrap().to_bytes();
                let operation = operation_of(&parts.headers, &body);
                let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
                parts.uri = format!("{moto}{path}").parse().unwrap();
                let answer = client
                    .request(http::Request::from_parts(
                        parts,
                        http_body_util::Full::new(body),
                    ))
                    .await
                    .unwrap();
                let (parts, body) = answer.into_parts();
                let body = body.collect().await.unwrap().to_bytes();
                noted.lock().unwrap().push(WireCall {
                    operation,
                    body: json,
                    sent,
                    answered: Instant::now(),
                });
                http::Response::from_parts(parts, axum::body::Body::from(body))
            }
        };
        let app = axum::Router::new().fallback(forward);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { url, calls }
    }

    /// The requests seen since the last call, as the waves of a `FLOOR_REQUESTS_FILE`: a
    /// request sent before every request of the current wave was answered was sent with them.
    pub(super) fn take_waves(&self) -> Value {
        let mut calls = std::mem::take(&mut *self.calls.lock().unwrap());
        calls.sort_by_key(|call| call.sent);
        let mut waves: Vec<Vec<Value>> = Vec::new();
        let mut wave_answered: Option<Instant> = None;
        for call in calls {
            let request = json!({"operation": call.operation, "body": call.body});
            match wave_answered {
                Some(answered) if call.sent < answered => {
                    waves.last_mut().unwrap().push(request);
                    wave_answered = Some(answered.max(call.answered));
                }
                _ => {
                    waves.push(vec![request]);
                    wave_answered = Some(call.answered);
                }
            }
        }
        json!(waves)
    }
}
