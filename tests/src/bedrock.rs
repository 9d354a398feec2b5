//! A stand-in for a model on Amazon Bedrock: an HTTP server that speaks the Converse wire
//! format, reached through the real Bedrock SDK client, answering as a test tells it to.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use http::StatusCode;
use serde_json::{Value, json};
use shared::bedrock::Converse;

use crate::local_sdk_config;

/// What the stand-in model does with the next requests.
#[derive(Clone)]
pub enum Behaviour {
    Answer(String),
    /// Answers, after the delay, with a text no caller accepts.
    Slow(Duration),
    Fail,
}

#[derive(Clone)]
pub struct StandIn {
    behaviour: Arc<Mutex<Behaviour>>,
    /// Each request: the model id from the path and the JSON body.
    pub seen: Arc<Mutex<Vec<(String, Value)>>>,
}

impl StandIn {
    /// A stand-in that fails until told otherwise, and the client of `model` on it.
    pub async fn start(model: &str) -> (Self, Converse) {
        let stand_in = Self {
            behaviour: Arc::new(Mutex::new(Behaviour::Fail)),
            seen: Arc::default(),
        };
        let server = Router::new()
            .route("/model/{model}/converse", post(converse))
            .with_state(stand_in.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, server).await.unwrap() });
        let client = Converse {
            client: aws_sdk_bedrockruntime::Client::new(&local_sdk_config(url)),
            model_id: model.into(),
        };
        (stand_in, client)
    }

    pub fn answer_with(&self, behaviour: Behaviour) {
        *self.behaviour.lock().unwrap() = behaviour;
    }

    /// The text of every user message sent so far.
    pub fn prompts(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(_, body)| {
                body["messages"][0]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }
}

async fn converse(
    State(stand_in): State<StandIn>,
    Path(model): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    stand_in.seen.lock().unwrap().push((model, body));
    let behaviour = stand_in.behaviour.lock().unwrap().clone();
    let text = match behaviour {
        Behaviour::Answer(text) => text,
        Behaviour::Slow(delay) => {
            tokio::time::sleep(delay).await;
            "too late".into()
        }
        Behaviour::Fail => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                [("x-amzn-errortype", "InternalServerException")],
                r#"{"message":"stand-in failure"}"#,
            )
                .into_response();
        }
    };
    axum::Json(json!({
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
        "metrics": {"latencyMs": 5}
    }))
    .into_response()
}
