//! `eval-unknown-callers [--url URL] [--cases FILE]`: scores the unknown-caller evaluation set
//! against a running API (local-api seeded with the set's fixture; see
//! `scripts/eval-unknown-callers.sh`), logging in the way staff do: an OTP read from the dev
//! outbox. Prints the misses, results per kind, the calibration table and a JSON summary line.

use axum::body::Bytes;
use http::{Method, Request, header};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};

use integration_tests::evaluation::{self, Evaluation};
use shared::store::BoxError;

struct Api {
    base: String,
    http: Client<HttpConnector, Full<Bytes>>,
}

impl Api {
    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<(u16, Value), BoxError> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header(header::ACCEPT, "application/json");
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let body = match body {
            Some(body) => {
                request = request.header(header::CONTENT_TYPE, "application/json");
                Full::new(Bytes::from(body.to_string()))
            }
            None => Full::default(),
        };
        let response = self.http.request(request.body(body)?).await?;
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await?.to_bytes();
        let json = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)?
        };
        Ok((status, json))
    }

    /// Logs in as `phone`: requests an OTP and reads it from `GET /_dev/outbox`.
    async fn login(&self, phone: &str) -> Result<String, BoxError> {
        let (status, issued) = self
            .call(
                Method::POST,
                "/authentication/request-otp",
                None,
                Some(&json!({ "phoneNumber": phone })),
            )
            .await?;
        if status != 202 {
            return Err(format!("request-otp answered {status}: {issued}").into());
        }
        let (_, outbox) = self.call(Method::GET, "/_dev/outbox", None, None).await?;
        let code = outbox
            .as_array()
            .into_iter()
            .flatten()
            .rev()
            .find(|message| message["to"] == phone)
            .and_then(|message| message["message"].as_str())
            .and_then(integration_tests::otp_in)
            .ok_or("no OTP for the login number in the outbox (is this local-api?)")?
            .to_string();
        let (status, session) = self
            .call(
                Method::POST,
                "/authentication/validate-otp",
                None,
                Some(&json!({
                    "phoneNumber": phone,
                    "requestId": issued["requestId"],
                    "otp": code,
                })),
            )
            .await?;
        session["token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("validate-otp answered {status}: {session}").into())
    }
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut base = "http://127.0.0.1:3000".to_string();
    let mut cases_text = evaluation::CASES.to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => base = args.next().ok_or("--url needs a value")?,
            "--cases" => {
                let path = args.next().ok_or("--cases needs a file")?;
                cases_text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: eval-unknown-callers [--url URL] \
                     [--cases FILE]"
                )
                .into());
            }
        }
    }
    let cases: Value = serde_json::from_str(&cases_text)?;
    let api = Api {
        base: base.trim_end_matches('/').to_string(),
        http: Client::builder(TokioExecutor::new()).build_http(),
    };
    let login = cases["loginPhoneNumber"]
        .as_str()
        .ok_or("the cases file has no loginPhoneNumber")?;
    let token = api.login(login).await?;
    let mut evaluation = Evaluation::default();
    for case in cases["cases"]
        .as_array()
        .ok_or("the cases file has no cases")?
    {
        let (status, body) = api
            .call(
                Method::POST,
                "/organisations/suggest-unknown-client",
                Some(&token),
                Some(&case["call"]),
            )
            .await?;
        evaluation.record(case, status, &body);
    }
    println!("{}", evaluation.report());
    Ok(())
}
