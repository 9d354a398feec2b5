//! Optional re-ranking of the matcher's best candidates by a language model on Amazon Bedrock
//! (Converse API), on when `SUGGEST_MODEL_ID` is set. The model sees the call summary with
//! long numbers withheld and each candidate's name, address and the matcher's own reading;
//! never a national id or phone number. Any failure (timeout, error, an answer that is not the
//! JSON asked for, a client that was not offered) keeps the deterministic answer.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use matcher::score::{Ranked, SUGGESTION_THRESHOLD};
use shared::bedrock::{Converse, json_object, withhold_numbers, within};
use shared::store::BoxError;

/// How long a suggestion waits for the model before answering without it.
pub const RERANK_TIMEOUT: Duration = Duration::from_secs(2);

/// A candidate as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCandidate {
    pub client_id: i32,
    pub name: String,
    pub address: String,
    /// The matcher's confidence and reason, so the model weighs evidence it cannot see.
    pub matcher_confidence: i32,
    pub matcher_reason: String,
}

/// The model's answer: the client it picks among those offered (`None`: none of them), how
/// sure it is (0-100) and why.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    pub client_id: Option<i32>,
    pub confidence: i32,
    pub reason: String,
}

/// A model that picks the client a call is about among candidates.
#[async_trait]
pub trait Reranker: Send + Sync + 'static {
    async fn choose(
        &self,
        summary: &str,
        candidates: &[ModelCandidate],
    ) -> Result<ModelChoice, BoxError>;
}

const SYSTEM_PROMPT: &str = "You help staff of a home-care organisation find out which of \
their clients an unknown caller is, from a summary of the call. You are given the summary and \
candidate clients found by a matching engine, each with the engine's confidence and reason. \
Pick the candidate the call is about, or none when the summary does not single one out \
(a relative or nurse calling is not the client; two clients the summary cannot tell apart \
means none). A wrong pick attaches a stranger's call to a client, so prefer none when unsure. \
Answer with one JSON object and nothing else: \
{\"clientId\": <id of a candidate, or null>, \"confidence\": <0-100>, \"reason\": \"<one short sentence>\"}";

/// The model's JSON object out of its text, checked.
pub fn parse_choice(text: &str) -> Result<ModelChoice, BoxError> {
    let choice: ModelChoice = json_object(text)?;
    if !(0..=100).contains(&choice.confidence) {
        return Err(format!("confidence {} is not 0-100", choice.confidence).into());
    }
    Ok(choice)
}

impl ModelChoice {
    /// The candidates as the model's choice leaves them, or `None` when the choice names a
    /// client that was not offered. The picked client goes first with the model's confidence;
    /// "none of them" caps every confidence at what the model leaves for them (100 minus its
    /// confidence in none), and below the suggestion threshold when it is sure.
    pub fn apply(self, mut candidates: Vec<Ranked>) -> Option<Vec<Ranked>> {
        let note = |reason: &str| format!("{reason}; the language model: {}", self.reason);
        match self.client_id {
            Some(id) => {
                let at = candidates.iter().position(|c| c.client_id == id)?;
                let mut picked = candidates.remove(at);
                picked.confidence = self.confidence;
                picked.reason = note(&picked.reason);
                candidates.insert(0, picked);
            }
            None => {
                let mut cap = 100 - self.confidence;
                if self.confidence >= 100 - SUGGESTION_THRESHOLD {
                    cap = cap.min(SUGGESTION_THRESHOLD - 1);
                }
                for candidate in &mut candidates {
                    candidate.confidence = candidate.confidence.min(cap);
                }
                if let Some(first) = candidates.first_mut() {
                    first.reason = note(&first.reason);
                }
            }
        }
        Some(candidates)
    }
}

/// The deterministic candidates re-ranked by `reranker`, or unchanged when it fails, is slow
/// or answers out of turn. Failures are logged without the summary or any personal data.
pub async fn rerank(
    reranker: &dyn Reranker,
    summary: &str,
    candidates: Vec<Ranked>,
) -> Vec<Ranked> {
    if candidates.is_empty() {
        return candidates;
    }
    let offered: Vec<ModelCandidate> = candidates
        .iter()
        .map(|c| ModelCandidate {
            client_id: c.client_id,
            name: c.name.clone(),
            address: c.address.clone(),
            matcher_confidence: c.confidence,
            matcher_reason: c.reason.clone(),
        })
        .collect();
    let summary = withhold_numbers(summary);
    let answer = within(
        RERANK_TIMEOUT,
        "re-ranking",
        "deterministic answer",
        reranker.choose(&summary, &offered),
    )
    .await;
    let Some(choice) = answer else {
        return candidates;
    };
    match choice.apply(candidates.clone()) {
        Some(reranked) => reranked,
        None => {
            tracing::warn!(
                "the model picked a client that was not offered; deterministic answer kept"
            );
            candidates
        }
    }
}

#[async_trait]
impl Reranker for Converse {
    async fn choose(
        &self,
        summary: &str,
        candidates: &[ModelCandidate],
    ) -> Result<ModelChoice, BoxError> {
        let prompt = format!(
            "Call summary:\n{summary}\n\nCandidates (JSON):\n{}",
            serde_json::to_string_pretty(candidates)?
        );
        parse_choice(&self.ask(SYSTEM_PROMPT, prompt, 300).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: i32, confidence: i32) -> Ranked {
        Ranked {
            client_id: id,
            portal_id: 1,
            name: format!("Client {id}"),
            address: "Storgatan 12, 723 76, Västerås".into(),
            confidence,
            reason: "first name 'karin' match".into(),
        }
    }

    #[test]
    fn the_choice_is_read_from_prose_or_a_code_fence_and_checked() {
        let fenced = "Here you go:\n```json\n{\"clientId\": 7, \"confidence\": 80, \"reason\": \"street\"}\n```";
        assert_eq!(parse_choice(fenced).unwrap().client_id, Some(7));
        let none = r#"{"clientId": null, "confidence": 90, "reason": "a nurse"}"#;
        assert_eq!(parse_choice(none).unwrap().client_id, None);
        assert!(parse_choice("I think it is Karin.").is_err());
        assert!(parse_choice(r#"{"clientId": 7, "confidence": 180, "reason": "x"}"#).is_err());
    }

    #[test]
    fn a_pick_goes_first_and_an_unoffered_client_is_refused() {
        let choice = |id| ModelChoice {
            client_id: id,
            confidence: 85,
            reason: "she gave her street".into(),
        };
        let picked = choice(Some(2))
            .apply(vec![candidate(1, 40), candidate(2, 30)])
            .unwrap();
        assert_eq!((picked[0].client_id, picked[0].confidence), (2, 85));
        assert!(
            picked[0]
                .reason
                .ends_with("the language model: she gave her street")
        );
        assert_eq!(picked[1].client_id, 1);
        assert_eq!(choice(Some(3)).apply(vec![candidate(1, 40)]), None);
    }

    #[test]
    fn none_of_them_caps_the_confidences_below_a_suggestion_when_the_model_is_sure() {
        let none = |confidence| ModelChoice {
            client_id: None,
            confidence,
            reason: "two clients share the name".into(),
        };
        let sure = none(90).apply(vec![candidate(1, 95)]).unwrap();
        assert_eq!(sure[0].confidence, 10);
        let unsure = none(20).apply(vec![candidate(1, 95)]).unwrap();
        assert_eq!(unsure[0].confidence, 80);
        let half = none(50).apply(vec![candidate(1, 95)]).unwrap();
        assert!(half[0].confidence < SUGGESTION_THRESHOLD);
    }
}
