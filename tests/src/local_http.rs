//! A client of a running local-api over HTTP, logging in the way staff do: an OTP read from
//! its dev outbox. Used by the unknown-caller evaluation and the throughput benchmark.

use axum::body::Bytes;
use http::{Method, Request, header};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use shared::store::BoxError;

use crate::emulator::{InvokeClient, invoke_client};

/// A client of a running API at `base`, e.g. `http://127.0.0.1:3000`.
pub struct LocalApiClient {
    base: String,
    http: InvokeClient,
}

impl LocalApiClient {
    pub fn new(base: &str) -> Self {
        Self {
            base: base.trim_end_matches('/').to_string(),
            http: invoke_client(),
        }
    }

    /// One request with an optional bearer token and JSON body; the status and the JSON answer
    /// (null when empty).
    pub async fn call(
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
    pub async fn login(&self, phone: &str) -> Result<String, BoxError> {
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
            .and_then(crate::otp_in)
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
