//! Re-ranking suggestions with a language model (`SUGGEST_MODEL_ID`), against a stand-in HTTP
//! server that speaks the Bedrock Converse wire format, through the real Bedrock SDK client.
//! The store plays no part here, so these run on the in-memory store only.

use std::sync::Arc;
use std::time::{Duration, Instant};

use http::StatusCode;
use integration_tests::bedrock::{Behaviour, StandIn};
use integration_tests::evaluation;
use integration_tests::{Backend, TestApp, spawn_app_with};
use serde_json::{Value, json};

use crate::demo::NORR;

const SUGGEST: &str = "/organisations/suggest-unknown-client";
const MODEL: &str = "eu.anthropic.claude-test-v1:0";

/// The evaluation fixture's API with re-ranking on, against a fresh stand-in model.
async fn spawn_with_model() -> (TestApp, StandIn) {
    let (stand_in, model) = StandIn::start(MODEL).await;
    let mut app = spawn_app_with(Backend::Memory, evaluation::FIXTURE).await;
    app.api.reranker = Some(Arc::new(model));
    app.router = app.api.router();
    (app, stand_in)
}

fn call(summary: &str) -> Value {
    json!({"summary": summary, "fromNumber": "+46709990000", "isUnknown": true})
}

#[tokio::test]
async fn the_models_pick_among_the_candidates_becomes_the_suggestion() {
    let (app, stand_in) = spawn_with_model().await;
    let token = app.login(NORR).await;
    // Two clients are called Britt Viklund: alone, the matcher suggests neither.
    stand_in.answer_with(Behaviour::Answer(
            "```json\n{\"clientId\": 545, \"confidence\": 72, \"reason\": \"medicine is in her notes\"}\n```"
                .into(),
        ),
    );
    let answer = app
        .post_json(
            SUGGEST,
            Some(&token),
            call("Britt Viklund called about her medicine."),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let body = answer.json();
    assert_eq!(
        (body["clientId"].clone(), body["confidence"].clone()),
        (json!(545), json!(72))
    );
    assert!(
        body["reason"]
            .as_str()
            .unwrap()
            .ends_with("the language model: medicine is in her notes"),
        "{body}"
    );
    assert_eq!(body["candidates"][0]["clientId"], 545);

    let seen = stand_in.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let (model, request) = &seen[0];
    assert_eq!(model, MODEL);
    let prompt = request["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        prompt.contains("Britt Viklund called about her medicine."),
        "{prompt}"
    );
    assert!(prompt.contains("\"clientId\": 526") && prompt.contains("\"clientId\": 545"));
    assert!(
        request["system"][0]["text"]
            .as_str()
            .unwrap()
            .contains("JSON")
    );
}

#[tokio::test]
async fn no_national_id_or_phone_number_reaches_the_model() {
    let (app, stand_in) = spawn_with_model().await;
    let token = app.login(NORR).await;
    stand_in.answer_with(Behaviour::Answer(
        r#"{"clientId": null, "confidence": 10, "reason": "unsure"}"#.into(),
    ));
    let fixture: Value = serde_json::from_str(evaluation::FIXTURE).unwrap();
    let olof = &fixture["clients"][0];
    assert_eq!(olof["name"], "Olof Forsberg");
    let summary = format!(
        "Olof Forsberg, personnummer {}, ringde från {} om nyckeln.",
        olof["nationalId"].as_str().unwrap(),
        olof["phone"].as_str().unwrap()
    );
    let answer = app.post_json(SUGGEST, Some(&token), call(&summary)).await;
    assert_eq!(answer.json()["clientId"], 501, "{}", answer.json());
    let seen = stand_in.seen.lock().unwrap().clone();
    let sent = seen[0].1.to_string();
    let digits = |text: &str| {
        text.chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
    };
    for secret in [&olof["nationalId"], &olof["phone"], &json!("+46709990000")] {
        let secret = digits(secret.as_str().unwrap());
        assert!(
            !digits(&sent).contains(&secret[secret.len() - 8..]),
            "{sent}"
        );
    }
    assert!(sent.contains("[number withheld]"));
}

#[tokio::test]
async fn a_slow_failing_or_rambling_model_leaves_the_deterministic_answer() {
    let (app, stand_in) = spawn_with_model().await;
    let token = app.login(NORR).await;
    let summary = "Olof Forsberg på Villavägen 5 undrade när hemtjänsten kommer i morgon.";
    let mut plain = spawn_app_with(Backend::Memory, evaluation::FIXTURE).await;
    plain.router = plain.api.router();
    let plain_token = plain.login(NORR).await;
    let deterministic = plain
        .post_json(SUGGEST, Some(&plain_token), call(summary))
        .await
        .json();
    assert_eq!(deterministic["clientId"], 501);

    for behaviour in [
        Behaviour::Slow(Duration::from_secs(4)),
        Behaviour::Fail,
        Behaviour::Answer("It is probably Olof, the one on Villavägen.".into()),
        Behaviour::Answer(r#"{"clientId": 518, "confidence": 95, "reason": "not offered"}"#.into()),
        Behaviour::Answer(r#"{"clientId": 501, "confidence": 250, "reason": "too sure"}"#.into()),
    ] {
        stand_in.answer_with(behaviour);
        let started = Instant::now();
        let answer = app.post_json(SUGGEST, Some(&token), call(summary)).await;
        let waited = started.elapsed();
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json(), deterministic);
        assert!(waited < Duration::from_millis(3000), "waited {waited:?}");
    }
}
