//! Contact fields with a shape of their own: e-mail addresses, phone numbers as written,
//! language tags and times of day.

use utoipa::openapi::schema::{KnownFormat, SchemaFormat};

use super::string_schema;
use super::text::clean;

/// An e-mail address: one `@`, a local part of at most 64 characters, a dotted domain, no
/// spaces, and nothing `Text` refuses; at most 254 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = clean(value, 254, false)?;
        let shaped = value.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && local.chars().count() <= 64
                && !domain.contains('@')
                && domain.contains('.')
                && domain
                    .split('.')
                    .all(|label| !label.is_empty() && label.chars().count() <= 63)
        }) && !value.chars().any(char::is_whitespace);
        if shaped {
            Ok(Self(value))
        } else {
            Err("must be an e-mail address such as name@example.se".into())
        }
    }
}

text_type!(
    Email,
    "Email",
    string_schema(
        SchemaFormat::KnownFormat(KnownFormat::Email),
        Some(254),
        None
    )
);

/// A phone number as a person writes it ("070-123 45 67", "+46 70 123 45 67"): at most 40
/// characters of digits, spaces and `+-()./`. `e164` reads it in the portal's region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneText(String);

impl PhoneText {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        if value.is_empty() {
            return Err("must not be empty".into());
        }
        if value.chars().count() > 40 {
            return Err("must be at most 40 characters".into());
        }
        // The number parser skips what it does not understand ("+46701234567\0" would pass),
        // so only what people write in a number gets to it.
        if !value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')' | '.' | '/'))
        {
            return Err("must contain only digits, spaces and + - ( ) . /".into());
        }
        Ok(Self(value.to_string()))
    }

    /// The number in E.164, read in `region` when it is written nationally.
    pub fn e164(&self, region: crate::phone::DefaultRegion) -> Result<String, String> {
        crate::phone::normalise(&self.0, region)
    }
}

text_type!(
    PhoneText,
    "PhoneText",
    string_schema(SchemaFormat::Custom("phone".into()), Some(40), None)
);

/// A BCP 47 language tag (RFC 5646) of at most 35 characters, in its canonical letter case
/// (`sv-SE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageTag(String);

impl LanguageTag {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        if value.len() > 35 {
            return Err("must be a BCP 47 language tag of at most 35 characters".into());
        }
        oxilangtag::LanguageTag::parse_and_normalize(value)
            .map(|tag| Self(tag.into_inner()))
            .map_err(|e| format!("must be a BCP 47 language tag such as sv or en-GB ({e})"))
    }
}

text_type!(
    LanguageTag,
    "LanguageTag",
    string_schema(SchemaFormat::Custom("language-tag".into()), Some(35), None)
);

/// A time of day as a contact window writes it, `HH:mm` or `HH:mm:ss` (the portal's local
/// time), kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockTime(String);

impl ClockTime {
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        crate::contact_window::parse_time(value).map(|_| Self(value.to_string()))
    }
}

text_type!(
    ClockTime,
    "ClockTime",
    string_schema(
        SchemaFormat::Custom("time-of-day".into()),
        None,
        Some(crate::openapi::TIME)
    )
);
