//! What the optional language-model checks share (the suggestion's re-ranking and the urgent
//! triage's second opinion): one question to a model on Amazon Bedrock (Converse API) and its
//! text answer, bounded in time, the JSON object out of that text, and the long numbers
//! withheld from what is sent. Built only with the `bedrock` feature, so that functions without a model do not link
//! the client.

use aws_sdk_bedrockruntime::types::{
    ContentBlock, ConversationRole, InferenceConfiguration, Message, SystemContentBlock,
};

use crate::store::BoxError;

/// One model on Bedrock.
pub struct Converse {
    pub client: aws_sdk_bedrockruntime::Client,
    pub model_id: String,
}

impl Converse {
    /// The model of `name` in the environment (`lookup`), when it is set and not empty.
    pub fn from_lookup(
        sdk: &aws_config::SdkConfig,
        name: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Option<Self> {
        let model_id = lookup(name).filter(|id| !id.trim().is_empty())?;
        Some(Self {
            client: aws_sdk_bedrockruntime::Client::new(sdk),
            model_id: model_id.trim().to_string(),
        })
    }

    /// The model's text answer to `prompt` under `system`, at temperature 0.
    pub async fn ask(
        &self,
        system: &str,
        prompt: String,
        max_tokens: i32,
    ) -> Result<String, BoxError> {
        let out = self
            .client
            .converse()
            .model_id(&self.model_id)
            .system(SystemContentBlock::Text(system.into()))
            .messages(
                Message::builder()
                    .role(ConversationRole::User)
                    .content(ContentBlock::Text(prompt))
                    .build()?,
            )
            .inference_config(
                InferenceConfiguration::builder()
                    .max_tokens(max_tokens)
                    .temperature(0.0)
                    .build(),
            )
            .send()
            .await?;
        out.output()
            .and_then(|output| output.as_message().ok())
            .map(|message| {
                message
                    .content()
                    .iter()
                    .filter_map(|block| block.as_text().ok())
                    .cloned()
                    .collect()
            })
            .ok_or_else(|| "the model answered without a message".into())
    }
}

/// The model's answer, or `None` when it failed or took longer than `limit`: a model check
/// is optional, so the caller keeps its own deterministic answer, which `kept` names in the
/// warning.
pub async fn within<T>(
    limit: std::time::Duration,
    check: &str,
    kept: &str,
    answer: impl std::future::Future<Output = Result<T, BoxError>>,
) -> Option<T> {
    match tokio::time::timeout(limit, answer).await {
        Ok(Ok(answer)) => Some(answer),
        Ok(Err(error)) => {
            tracing::warn!(error = %crate::error::error_chain(error.as_ref()), "{check} failed; {kept} kept");
            None
        }
        Err(_) => {
            tracing::warn!(
                timeout_ms = limit.as_millis() as u64,
                "{check} timed out; {kept} kept"
            );
            None
        }
    }
}

/// The JSON object in a model's answer, tolerating prose or a code fence around it.
pub fn json_object<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, BoxError> {
    let start = text.find('{').ok_or("no JSON object in the answer")?;
    let end = text.rfind('}').ok_or("no JSON object in the answer")?;
    Ok(serde_json::from_str(
        text.get(start..=end).unwrap_or_default(),
    )?)
}

/// The text with every run of six or more digits withheld: national ids and phone numbers
/// never leave for a model.
pub fn withhold_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let digits = run.chars().filter(char::is_ascii_digit).count();
        if digits >= 6 {
            // Separators after the last digit belong to the sentence, not the number.
            let number = run.trim_end_matches(|c: char| !c.is_ascii_digit());
            out.push_str("[number withheld]");
            out.push_str(&run[number.len()..]);
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        let continues = !run.is_empty() && matches!(c, ' ' | '-' | '.' | '/');
        if c.is_ascii_digit() || (c == '+' && run.is_empty()) || continues {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn national_ids_and_phone_numbers_are_withheld_but_street_numbers_stay() {
        assert_eq!(
            withhold_numbers("Karin, 19360712-3522, Storgatan 12, 723 76 Västerås, 070-123 45 67."),
            "Karin, [number withheld], Storgatan 12, 723 76 Västerås, [number withheld]."
        );
        assert_eq!(
            withhold_numbers("ring +46 70 123 45 67 eller 3607123522"),
            "ring [number withheld] eller [number withheld]"
        );
    }

    #[test]
    fn the_json_object_is_read_from_prose_or_a_code_fence() {
        let fenced = "Here you go:\n```json\n{\"a\": 7}\n```";
        let value: serde_json::Value = json_object(fenced).unwrap();
        assert_eq!(value["a"], 7);
        assert!(json_object::<serde_json::Value>("I think it is Karin.").is_err());
    }
}
