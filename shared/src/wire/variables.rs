//! A call's dynamic variables, as the voice platforms pass them.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};

use super::string_schema;
use super::text::{MAX_PROSE, PROSE_PATTERN, REQUIRED_TEXT_PATTERN, RequiredText, refusal};

/// A call's dynamic variables, as every voice platform takes them: an object of string
/// values (Retell, Vapi and ElevenLabs all pass variables as strings), keys single-line text of
/// at most 100 characters, values prose, at most `MAX_PROSE` characters as JSON text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variables(serde_json::Map<String, serde_json::Value>);

impl Variables {
    /// The variable `name`, when the call was placed with it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(serde_json::Value::as_str)
    }

    /// The variables as JSON text, as the phone call record carries them.
    pub fn to_json_text(&self) -> String {
        serde_json::Value::Object(self.0.clone()).to_string()
    }

    fn check(map: serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        for (key, value) in &map {
            let key_text = RequiredText::<100>::parse(key)
                .map_err(|reason| format!("has a variable name that {reason}"))?;
            if key_text.as_str() != key {
                return Err(format!(
                    "has a variable name with spaces around it: {key:?}"
                ));
            }
            let serde_json::Value::String(value) = value else {
                return Err(format!("must have string values ({key:?} is not a string)"));
            };
            if let Some(reason) = value.chars().find_map(|c| refusal(c, true)) {
                return Err(format!("has a value of {key:?} that {reason}"));
            }
        }
        let variables = Self(map);
        if variables.to_json_text().chars().count() > MAX_PROSE {
            return Err(format!(
                "must be at most {MAX_PROSE} characters as JSON text"
            ));
        }
        Ok(variables)
    }
}

impl<'de> Deserialize<'de> for Variables {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        Self::check(map).map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for Variables {
    fn schema() -> RefOr<Schema> {
        RefOr::T(
            ObjectBuilder::new()
                .schema_type(SchemaType::Type(Type::Object))
                .property_names(Some(string_schema(
                    SchemaFormat::Custom("plain-text".into()),
                    Some(100),
                    Some(REQUIRED_TEXT_PATTERN),
                )))
                .additional_properties(Some(string_schema(
                    SchemaFormat::Custom("prose".into()),
                    None,
                    Some(PROSE_PATTERN),
                )))
                .into(),
        )
    }
}

impl utoipa::ToSchema for Variables {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Variables")
    }
}
