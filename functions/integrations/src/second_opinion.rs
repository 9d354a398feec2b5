//! The optional second opinion of a language model on Amazon Bedrock (`TRIAGE_MODEL_ID`, off by
//! default) on a call the deterministic triage did not find urgent: it may raise the call to
//! urgent, never lower a finding. The model sees the caller's lines, the requests and the
//! summary with long numbers withheld; never the agent's lines, a name it was not told, or an
//! id. Any failure (timeout, error, an answer that is not the JSON asked for) keeps the
//! deterministic finding.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;

use shared::bedrock::{Converse, json_object, withhold_numbers, within};
use shared::domain::{AlertCategory, AlertReason, CallFinding, MAX_WORDS};
use shared::store::BoxError;

/// How long a delivery waits for the model before going on without it.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// The model's reading of a call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Verdict {
    /// Whether someone must reach the client within minutes.
    pub urgent: bool,
    /// One of the urgent categories, when urgent.
    pub category: Option<AlertCategory>,
    pub reason: String,
}

/// A model that reads a call's text for an emergency.
#[async_trait]
pub trait UrgencyModel: Send + Sync + 'static {
    async fn assess(&self, text: &str) -> Result<Verdict, BoxError>;
}

const SYSTEM_PROMPT: &str = "You check calls between an AI voice agent of a home-care \
organisation and its clients, often elderly, in Swedish or English. Decide whether someone \
must reach the client within minutes: a fall they cannot get up from, chest pain, trouble \
breathing, stroke signs, heavy bleeding, someone unconscious, self-harm, fire or smoke, a \
request for an ambulance, or another emergency, happening now to the client or to someone \
with them. A past event that is over, a denial, someone elsewhere, a story or a figure of \
speech is not urgent. When unsure, answer urgent: a missed emergency costs a life, a false \
alarm a phone call. Answer with one JSON object and nothing else: \
{\"urgent\": true|false, \"category\": \"fall\"|\"chest_pain\"|\"breathing\"|\"stroke_signs\"|\
\"bleeding\"|\"unconscious\"|\"self_harm\"|\"fire_or_smoke\"|\"asks_for_ambulance\"|\
\"other_emergency\"|null, \"reason\": \"<one short sentence>\"}";

#[async_trait]
impl UrgencyModel for Converse {
    async fn assess(&self, text: &str) -> Result<Verdict, BoxError> {
        let answer = self
            .ask(SYSTEM_PROMPT, format!("The call:\n{text}"), 200)
            .await?;
        json_object(&answer)
    }
}

/// The finding after the model's second opinion: `found` unchanged when it is urgent already,
/// when the model says not urgent, or when asking fails; an urgent finding when the model says
/// so (its category, `other_emergency` when it names none of the urgent ones). `text` is what
/// the model reads: the caller's words, the requests and the summary.
pub async fn second_opinion(
    model: &dyn UrgencyModel,
    text: &str,
    found: Option<CallFinding>,
) -> Option<CallFinding> {
    if found
        .as_ref()
        .is_some_and(|f| f.reason == AlertReason::Urgent)
        || text.trim().is_empty()
    {
        return found;
    }
    let text = withhold_numbers(text);
    let opinion = within(
        CHECK_TIMEOUT,
        "the model's second opinion",
        "the triage's finding",
        model.assess(&text),
    )
    .await;
    let Some(verdict) = opinion.filter(|verdict| verdict.urgent) else {
        return found;
    };
    let category = verdict
        .category
        .filter(|c| c.is_urgent())
        .unwrap_or(AlertCategory::OtherEmergency);
    tracing::info!(category = ?category, "the model's second opinion raised the call to urgent");
    Some(CallFinding {
        reason: AlertReason::Urgent,
        category,
        words: format!("The language model: {}", verdict.reason)
            .chars()
            .take(MAX_WORDS)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Result<&'static str, &'static str>);

    #[async_trait]
    impl UrgencyModel for Fixed {
        async fn assess(&self, _text: &str) -> Result<Verdict, BoxError> {
            match self.0 {
                Ok(answer) => json_object(answer),
                Err(error) => Err(error.into()),
            }
        }
    }

    fn concern() -> Option<CallFinding> {
        Some(CallFinding {
            reason: AlertReason::Concern,
            category: AlertCategory::Pain,
            words: "Det gör ont".into(),
        })
    }

    #[tokio::test]
    async fn the_model_may_raise_a_call_to_urgent() {
        let model = Fixed(Ok(
            r#"{"urgent": true, "category": "breathing", "reason": "she gasps for air"}"#,
        ));
        let raised = second_opinion(&model, "jag får ingen luft", concern())
            .await
            .unwrap();
        assert_eq!(raised.reason, AlertReason::Urgent);
        assert_eq!(raised.category, AlertCategory::Breathing);
        assert_eq!(raised.words, "The language model: she gasps for air");
        let unnamed = Fixed(Ok(
            r#"{"urgent": true, "category": "pain", "reason": "unclear"}"#,
        ));
        let raised = second_opinion(&unnamed, "hjälp", None).await.unwrap();
        assert_eq!(raised.category, AlertCategory::OtherEmergency);
    }

    #[tokio::test]
    async fn the_model_never_lowers_a_finding_and_a_failure_keeps_it() {
        let calm = Fixed(Ok(
            r#"{"urgent": false, "category": null, "reason": "fine"}"#,
        ));
        assert_eq!(second_opinion(&calm, "ont", concern()).await, concern());
        let urgent = Some(CallFinding {
            reason: AlertReason::Urgent,
            category: AlertCategory::Fall,
            words: "Jag har ramlat".into(),
        });
        assert_eq!(
            second_opinion(&calm, "Jag har ramlat", urgent.clone()).await,
            urgent
        );
        for failing in [Fixed(Err("down")), Fixed(Ok("I think she is fine."))] {
            assert_eq!(second_opinion(&failing, "ont", concern()).await, concern());
        }
    }
}
