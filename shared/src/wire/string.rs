//! Serde adapters for fields that stay a plain `String` behind the edge (an event's ids and
//! lines, which ingestion, triage and the store read as text) but are read through a wire type:
//! `#[serde(deserialize_with = "string::required::<_, RequiredText<200>>")]` with
//! `#[schema(value_type = ...)]` naming the same type, so the parser and the document agree.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};

use super::Parse;

/// The text as wire type `T` parses it.
pub fn required<'de, D: Deserializer<'de>, T: Parse>(deserializer: D) -> Result<String, D::Error> {
    let value = Cow::<'de, str>::deserialize(deserializer)?;
    T::parse_text(&value)
        .map(Parse::into_string)
        .map_err(serde::de::Error::custom)
}

/// `null` (or, with `#[serde(default)]`, absent) is `None`; text is parsed by `T`, and what is
/// blank after parsing is `None` too.
pub fn optional<'de, D: Deserializer<'de>, T: Parse>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let Some(value) = Option::<Cow<'de, str>>::deserialize(deserializer)? else {
        return Ok(None);
    };
    T::parse_text(&value)
        .map(|parsed| Some(parsed.into_string()).filter(|text| !text.is_empty()))
        .map_err(serde::de::Error::custom)
}
