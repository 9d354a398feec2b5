//! Text and prose: the character rules every text field shares, and the types that apply them.

use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup};
use icu_properties::{CodePointMapData, CodePointSetData};
use unicode_normalization::UnicodeNormalization;
use utoipa::openapi::schema::SchemaFormat;

use super::string_schema;

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
pub(super) fn refusal(c: char, breaks: bool) -> Option<&'static str> {
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
pub(super) fn clean(value: &str, max: usize, breaks: bool) -> Result<String, String> {
    let trimmed = value.trim();
    if let Some(reason) = trimmed.chars().find_map(|c| refusal(c, breaks)) {
        return Err(reason.into());
    }
    if trimmed.chars().count() > max {
        return Err(format!("must be at most {max} characters"));
    }
    Ok(trimmed.to_string())
}

/// `clean`, with something in it besides white space.
fn clean_required(value: &str, max: usize, breaks: bool) -> Result<String, String> {
    let text = clean(value, max, breaks)?;
    if text.is_empty() {
        return Err("must not be blank".into());
    }
    Ok(text)
}

/// Whether a character is one `text` or `prose` refuses: for checks of text that did not come
/// through a wire type (a stored value, a generated document).
pub fn is_hidden(c: char) -> bool {
    refusal(c, true).is_some() && !c.is_control()
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
        clean_required(value, MAX, false).map(Self)
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
        clean_required(value, MAX, true).map(Self)
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
