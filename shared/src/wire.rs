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
use std::fmt;

use chrono::{DateTime, Utc};
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup};
use icu_properties::{CodePointMapData, CodePointSetData};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use unicode_normalization::UnicodeNormalization;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};

/// The most characters of prose a call carries (summaries, transcript lines, reasons): enough
/// for a long call, small enough that one call's items stay far under DynamoDB's 400 KB.
pub const MAX_PROSE: usize = 20_000;

/// The most characters of a short text of a call: numbers, names, ids given by the platform.
pub const MAX_SHORT_TEXT: usize = 200;

/// The most combining marks a name may stack on one character. Written languages need at most
/// three after NFC (Vietnamese two, pointed Hebrew and Arabic three); 30 stacked marks are
/// the "zalgo" text that spills over the rows above and below on a screen.
pub const MAX_COMBINING: usize = 3;

/// The pattern of single-line text in the OpenAPI document: JSON Schema's regular expressions
/// cannot name Unicode categories portably, so the pattern states the control and separator
/// part and the `plain-text` format's description states the rest.
pub const TEXT_PATTERN: &str = r"^[^\u0000-\u001F\u007F-\u009F\u2028\u2029]*$";

/// Single-line text that is not blank.
pub const REQUIRED_TEXT_PATTERN: &str = r"^[^\u0000-\u001F\u007F-\u009F\u2028\u2029]*[^\s\u0000-\u001F\u007F-\u009F\u2028\u2029][^\u0000-\u001F\u007F-\u009F\u2028\u2029]*$";

/// Prose: line breaks and tabs allowed.
pub const PROSE_PATTERN: &str =
    r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]*$";

/// Prose that is not blank.
pub const REQUIRED_PROSE_PATTERN: &str = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]*[^\s\u0000-\u001F\u007F-\u009F\u2028\u2029][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]*$";

/// Why a character is refused, or `None` when text may carry it. `breaks` allows prose's
/// `\n`, `\r` and `\t`.
fn refusal(c: char, breaks: bool) -> Option<&'static str> {
    let category = CodePointMapData::<GeneralCategory>::new().get(c);
    match category {
        GeneralCategory::Control if breaks && matches!(c, '\n' | '\r' | '\t') => None,
        GeneralCategory::Control if breaks => {
            Some("must not contain control characters other than line breaks and tabs")
        }
        GeneralCategory::Control => Some("must not contain control characters"),
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
            Some("must not contain Unicode line or paragraph separators (U+2028, U+2029)")
        }
        GeneralCategory::Format | GeneralCategory::Unassigned | GeneralCategory::PrivateUse => {
            Some(
                "must not contain invisible format characters (bidirectional controls, \
                 zero-width characters, byte order marks) or unassigned or private-use code \
                 points",
            )
        }
        _ => None,
    }
}

/// Trimmed text of at most `max` characters that passes `refusal`.
pub(crate) fn clean(value: &str, max: usize, breaks: bool) -> Result<String, String> {
    let trimmed = value.trim();
    if let Some(reason) = trimmed.chars().find_map(|c| refusal(c, breaks)) {
        return Err(reason.into());
    }
    if trimmed.chars().count() > max {
        return Err(format!("must be at most {max} characters"));
    }
    Ok(trimmed.to_string())
}

/// Whether a character is one `text` or `prose` refuses: for checks of text that did not come
/// through a wire type (a stored value, a generated document).
pub fn is_hidden(c: char) -> bool {
    refusal(c, true).is_some() && !c.is_control()
}

fn string_schema(format: SchemaFormat, max: Option<usize>, pattern: Option<&str>) -> Schema {
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

        impl$(<const $max: usize>)? fmt::Display for $type$(<$max>)? {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl$(<const $max: usize>)? Parse for $type$(<$max>)? {
            fn parse_text(value: &str) -> Result<Self, String> {
                Self::parse(value)
            }

            fn into_string(self) -> String {
                self.0
            }
        }

        impl<'de $(, const $max: usize)?> Deserialize<'de> for $type$(<$max>)? {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Cow::<'de, str>::deserialize(deserializer)?;
                Self::parse(&value).map_err(serde::de::Error::custom)
            }
        }

        impl$(<const $max: usize>)? Serialize for $type$(<$max>)? {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl$(<const $max: usize>)? utoipa::PartialSchema for $type$(<$max>)? {
            fn schema() -> RefOr<Schema> {
                RefOr::T($schema)
            }
        }

        impl$(<const $max: usize>)? utoipa::ToSchema for $type$(<$max>)? {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($what)
            }
        }
    };
}

/// Single-line plain text of at most `MAX` characters, trimmed; blank is allowed (a field
/// that may be cleared), see `into_option`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        clean(value, MAX, false).map(Self)
    }

    /// The text, or `None` when blank.
    pub fn into_option(self) -> Option<String> {
        (!self.0.is_empty()).then_some(self.0)
    }
}

text_type!(Text<const MAX: usize>, "Text", string_schema(
    SchemaFormat::Custom("plain-text".into()), Some(MAX), Some(TEXT_PATTERN)
));

/// Single-line plain text of at most `MAX` characters with something in it besides spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredText<const MAX: usize>(String);

impl<const MAX: usize> RequiredText<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        let text = clean(value, MAX, false)?;
        if text.is_empty() {
            return Err("must not be blank".into());
        }
        Ok(Self(text))
    }
}

text_type!(RequiredText<const MAX: usize>, "RequiredText", string_schema(
    SchemaFormat::Custom("plain-text".into()), Some(MAX), Some(REQUIRED_TEXT_PATTERN)
));

/// Multi-line prose of at most `MAX` characters, trimmed: line breaks and tabs allowed, no
/// other control character. Blank is allowed, see `into_option`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prose<const MAX: usize>(String);

impl<const MAX: usize> Prose<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        clean(value, MAX, true).map(Self)
    }

    /// The prose, or `None` when blank.
    pub fn into_option(self) -> Option<String> {
        (!self.0.is_empty()).then_some(self.0)
    }
}

text_type!(Prose<const MAX: usize>, "Prose", string_schema(
    SchemaFormat::Custom("prose".into()), Some(MAX), Some(PROSE_PATTERN)
));

/// Prose of at most `MAX` characters with something in it besides spaces and line breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredProse<const MAX: usize>(String);

impl<const MAX: usize> RequiredProse<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        let text = clean(value, MAX, true)?;
        if text.is_empty() {
            return Err("must not be blank".into());
        }
        Ok(Self(text))
    }
}

text_type!(RequiredProse<const MAX: usize>, "RequiredProse", string_schema(
    SchemaFormat::Custom("prose".into()), Some(MAX), Some(REQUIRED_PROSE_PATTERN)
));

/// A person's name of at most `MAX` characters, NFC-normalised: single-line text with at
/// least one visible letter, no default-ignorable code point, and at most
/// `MAX_COMBINING` combining marks on one character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name<const MAX: usize>(String);

impl<const MAX: usize> Name<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        let normalised: String = value.nfc().collect();
        let text = clean(&normalised, MAX, false)?;
        let categories = CodePointMapData::<GeneralCategory>::new();
        let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
        if text.chars().any(|c| ignorable.contains(c)) {
            return Err(
                "must not contain invisible fillers (default-ignorable code points such as \
                 U+3164)"
                    .into(),
            );
        }
        let mut stacked = 0;
        for c in text.chars() {
            if GeneralCategoryGroup::Mark.contains(categories.get(c)) {
                stacked += 1;
                if stacked > MAX_COMBINING {
                    return Err(format!(
                        "must not stack more than {MAX_COMBINING} combining marks on a character"
                    ));
                }
            } else {
                stacked = 0;
            }
        }
        if !text
            .chars()
            .any(|c| GeneralCategoryGroup::Letter.contains(categories.get(c)))
        {
            return Err("must contain at least one letter".into());
        }
        Ok(Self(text))
    }
}

text_type!(Name<const MAX: usize>, "Name", string_schema(
    SchemaFormat::Custom("name".into()), Some(MAX), Some(REQUIRED_TEXT_PATTERN)
));

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

/// Free-form metadata for the voice agent (choices, scale bounds), often JSON: prose of at
/// most `MAX` characters, and when it is JSON, every string in it (keys too) is prose as well,
/// so an escaped `\u202e` cannot hide inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata<const MAX: usize>(String);

impl<const MAX: usize> Metadata<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        let text = clean(value, MAX, true)?;
        if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
            json_strings_are_prose(&json)?;
        }
        Ok(Self(text))
    }
}

fn json_strings_are_prose(value: &serde_json::Value) -> Result<(), String> {
    let check = |s: &str| match s.chars().find_map(|c| refusal(c, true)) {
        Some(reason) => Err(format!(
            "as JSON, its strings {}",
            reason.trim_start_matches("must ")
        )),
        None => Ok(()),
    };
    match value {
        serde_json::Value::String(s) => check(s),
        serde_json::Value::Array(items) => items.iter().try_for_each(json_strings_are_prose),
        serde_json::Value::Object(map) => map.iter().try_for_each(|(key, value)| {
            check(key)?;
            json_strings_are_prose(value)
        }),
        _ => Ok(()),
    }
}

text_type!(Metadata<const MAX: usize>, "Metadata", string_schema(
    SchemaFormat::Custom("prose".into()), Some(MAX), Some(PROSE_PATTERN)
));

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

/// A list's page size, an integer from 1 to `MAX`, as a query parameter carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimit<const MAX: usize>(usize);

impl<const MAX: usize> PageLimit<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<usize>()
            .ok()
            .filter(|limit| (1..=MAX).contains(limit))
            .map(Self)
            .ok_or_else(|| format!("must be an integer from 1 to {MAX}"))
    }

    pub fn get(self) -> usize {
        self.0
    }
}

/// A list's cursor where items are listed by id: the id to start after, from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdCursor(i32);

impl IdCursor {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<i32>()
            .ok()
            .filter(|after| *after >= 0)
            .map(Self)
            .ok_or_else(|| "must be an id from 0 to 2147483647".to_string())
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// A record id as a query parameter carries it: an integer from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdParam(i32);

impl IdParam {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<i32>()
            .ok()
            .filter(|id| *id > 0)
            .map(Self)
            .ok_or_else(|| "must be an integer between 1 and 2147483647".into())
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// Where a page of the access log starts: the id of the last record (`time#trace#part`) or
/// review (`time#uuid`) of the previous page, as its `Link` header gives it
/// (`openapi::LOG_CURSOR`). Ids are compared as text, so any string of an id's shape is a
/// position in the list and nothing else is checked: one typed by hand pages from wherever it
/// sorts, and can show nothing the caller could not list anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogCursor(String);

impl LogCursor {
    pub fn parse(cursor: &str) -> Result<Self, String> {
        let id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '=' | '_' | '-');
        let mut parts = cursor.split('#');
        let time = parts.next().unwrap_or_default();
        let time_shaped = time.len() == 27
            && time.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                10 => b == b'T',
                13 | 16 => b == b':',
                19 => b == b'.',
                26 => b == b'Z',
                _ => b.is_ascii_digit(),
            });
        let rest: Vec<&str> = parts.collect();
        let rest_shaped = (1..=2).contains(&rest.len())
            && rest
                .iter()
                .all(|part| (1..=64).contains(&part.len()) && part.chars().all(id_char));
        if time_shaped && rest_shaped {
            Ok(Self(cursor.to_string()))
        } else {
            Err("must be a cursor from a Link header".into())
        }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// serde for a value parsed from the text of a query parameter.
macro_rules! from_text {
    ($type:ident $(<const $max:ident: usize>)?) => {
        impl<'de $(, const $max: usize)?> Deserialize<'de> for $type$(<$max>)? {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Cow::<'de, str>::deserialize(deserializer)?;
                Self::parse(&value).map_err(serde::de::Error::custom)
            }
        }
    };
}

from_text!(PageLimit<const MAX: usize>);
from_text!(IdCursor);
from_text!(IdParam);
from_text!(LogCursor);

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

/// The first instant the service accepts: nothing it stores (a call, a questionnaire, an
/// access record) is older than the service.
pub const EARLIEST: &str = "2000-01-01T00:00:00Z";

/// The first instant the service no longer accepts. Every accepted instant is written
/// with a four-digit year, so the indexes that sort timestamps as text sort them in time.
pub const END: &str = "2200-01-01T00:00:00Z";

/// An RFC 3339 date-time from `EARLIEST` up to (not including) `END`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(DateTime<Utc>);

impl Instant {
    pub fn parse(value: &str) -> Result<Self, String> {
        let out_of_range = || format!("must be an RFC 3339 date-time from {EARLIEST} up to {END}");
        let parsed = DateTime::parse_from_rfc3339(value.trim())
            .map_err(|_| out_of_range())?
            .with_timezone(&Utc);
        let earliest: DateTime<Utc> = EARLIEST.parse().expect("a valid constant");
        let end: DateTime<Utc> = END.parse().expect("a valid constant");
        if parsed < earliest || parsed >= end {
            return Err(out_of_range());
        }
        Ok(Self(parsed))
    }

    pub fn get(self) -> DateTime<Utc> {
        self.0
    }
}

impl From<Instant> for DateTime<Utc> {
    fn from(instant: Instant) -> Self {
        instant.0
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Cow::<'de, str>::deserialize(deserializer)?;
        Self::parse(&value).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl utoipa::PartialSchema for Instant {
    fn schema() -> RefOr<Schema> {
        RefOr::T(string_schema(
            SchemaFormat::KnownFormat(KnownFormat::DateTime),
            None,
            None,
        ))
    }
}

impl utoipa::ToSchema for Instant {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Instant")
    }
}

pub mod string;

#[cfg(test)]
mod tests;
