//! Wire types: every text, timestamp and free-form value a request body, query or webhook
//! carries, parsed once at the edge (by serde) into a value that cannot hold what it must not.
//! Each type also writes its own OpenAPI schema, so the document and the parser cannot drift.
//!
//! The character rules use Unicode's general categories and the `Default_Ignorable_Code_Point`
//! property from ICU4X's `icu_properties` (the Unicode Consortium's own library), never
//! hand-listed ranges:
//!
//! - no text carries a control character (Cc), except prose's line breaks and tabs;
//! - none carries a format character (Cf: bidirectional controls such as U+202E that turn a
//!   name around on a staff screen, zero-width characters, byte order marks), an unassigned
//!   (Cn) or private-use (Co) code point, or a line or paragraph separator (Zl, Zp: a
//!   single-line field must stay one line, and prose breaks lines with `\n`);
//! - a name is NFC-normalised, has at least one visible letter, no default-ignorable code point
//!   (the Hangul fillers U+3164, U+115F, U+FFA0 are letters that show nothing; U+2800, the
//!   blank Braille pattern, is a symbol, so a name of it alone has no letter), and at most
//!   `MAX_COMBINING` combining marks on one character (stacked marks paint over the lines
//!   around them).

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};

pub(super) fn string_schema(
    format: SchemaFormat,
    max: Option<usize>,
    pattern: Option<&str>,
) -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .format(Some(format))
        .max_length(max)
        .pattern(pattern)
        .into()
}

/// A wire type read from text: what `OrBlank` and `string` need to read one.
pub trait Parse: Sized {
    fn parse_text(value: &str) -> Result<Self, String>;

    /// The text as parsed (trimmed, normalised).
    fn into_string(self) -> String;
}

/// A field where an empty (or blank) string means "none", as `null` does: `OrBlank<Email>`
/// is an address or nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrBlank<T>(pub Option<T>);

impl<T> OrBlank<T> {
    pub fn into_option(self) -> Option<T> {
        self.0
    }
}

impl<'de, T: Parse> Deserialize<'de> for OrBlank<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Cow::<'de, str>::deserialize(deserializer)?;
        if value.trim().is_empty() {
            return Ok(Self(None));
        }
        T::parse_text(&value)
            .map(|parsed| Self(Some(parsed)))
            .map_err(serde::de::Error::custom)
    }
}

/// Implements serde and OpenAPI for a wire type over a `String` with a `parse` function.
macro_rules! text_type {
    ($type:ident $(<const $max:ident: usize>)?, $what:literal, $schema:expr) => {
        impl$(<const $max: usize>)? $type$(<$max>)? {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_inner(self) -> String {
                self.0
            }
        }

        impl$(<const $max: usize>)? std::fmt::Display for $type$(<$max>)? {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl$(<const $max: usize>)? $crate::wire::Parse for $type$(<$max>)? {
            fn parse_text(value: &str) -> Result<Self, String> {
                Self::parse(value)
            }

            fn into_string(self) -> String {
                self.0
            }
        }

        impl<'de $(, const $max: usize)?> serde::Deserialize<'de> for $type$(<$max>)? {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
                Self::parse(&value).map_err(serde::de::Error::custom)
            }
        }

        impl$(<const $max: usize>)? serde::Serialize for $type$(<$max>)? {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl$(<const $max: usize>)? utoipa::PartialSchema for $type$(<$max>)? {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::RefOr::T($schema)
            }
        }

        impl$(<const $max: usize>)? utoipa::ToSchema for $type$(<$max>)? {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($what)
            }
        }
    };
}

/// serde for a value parsed from the text of a query parameter.
macro_rules! from_text {
    ($type:ident $(<const $max:ident: usize>)?) => {
        impl<'de $(, const $max: usize)?> serde::Deserialize<'de> for $type$(<$max>)? {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
                Self::parse(&value).map_err(serde::de::Error::custom)
            }
        }
    };
}

mod fields;
mod instant;
mod query;
pub mod string;
mod text;
mod variables;

pub use fields::{ClockTime, Email, LanguageTag, PhoneText};
pub use instant::{EARLIEST, END, Instant};
pub use query::{IdCursor, IdParam, LogCursor, PageLimit};
pub use text::{
    MAX_COMBINING, MAX_PROSE, MAX_SHORT_TEXT, Metadata, Name, PROSE_PATTERN, Prose,
    REQUIRED_PROSE_PATTERN, REQUIRED_TEXT_PATTERN, RequiredProse, RequiredText, TEXT_PATTERN, Text,
    is_hidden,
};
pub use variables::Variables;

#[cfg(test)]
mod tests;
