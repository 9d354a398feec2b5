//! Field validation at the edge: checks that collect every failing field into one 400 problem.

use crate::error::{ApiError, FieldErrors};

/// The most characters of prose a call carries (summaries, transcript lines, reasons): enough
/// for a long call, small enough that one call's items stay far under DynamoDB's 400 KB.
pub const MAX_PROSE: usize = 20_000;

/// The most characters of a short text of a call: numbers, names, ids given by the platform.
pub const MAX_SHORT_TEXT: usize = 200;

/// Collects the errors of every field of a request, so one answer names all of them.
#[derive(Debug, Default)]
pub struct Validator {
    errors: FieldErrors,
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    /// The value when the check passed; otherwise records the message under `field`.
    pub fn check<T>(&mut self, field: &str, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(message) => {
                self.errors
                    .entry(field.to_string())
                    .or_default()
                    .push(message);
                None
            }
        }
    }

    /// `Ok(())` when no field failed, otherwise the 400 problem listing them.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation {
                detail: "The request has invalid fields.".into(),
                errors: self.errors,
            })
        }
    }
}

/// A field the request must carry.
pub fn required<T>(value: Option<T>) -> Result<T, String> {
    value.ok_or_else(|| "is required".to_string())
}

/// A record id the request must carry: ids start at 1.
pub fn id(value: Option<i32>) -> Result<i32, String> {
    match required(value)? {
        id if id > 0 => Ok(id),
        _ => Err("must be an integer id above 0".into()),
    }
}

/// Trimmed free text of at most `max_chars` characters without control characters; blank
/// text is `None`.
pub fn text(value: &str, max_chars: usize) -> Result<Option<String>, String> {
    bounded(
        value,
        max_chars,
        |_| false,
        "must not contain control characters",
    )
}

/// Like `text`, but line breaks and tabs are allowed inside: transcripts and summaries are
/// prose.
pub fn prose(value: &str, max_chars: usize) -> Result<Option<String>, String> {
    bounded(
        value,
        max_chars,
        |c| matches!(c, '\n' | '\r' | '\t'),
        "must not contain control characters other than line breaks and tabs",
    )
}

const HIDDEN_MESSAGE: &str = "must not contain invisible format characters (bidirectional \
     controls, zero-width characters, byte order marks) or unassigned or private-use code points";

/// A character that changes how text reads without being seen, or that has no agreed meaning:
/// Unicode's format characters (Cf: U+202E turns the rest of a name around in a staff screen,
/// U+200B hides inside one), unassigned code points (Cn) and private-use ones (Co).
pub fn is_hidden(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    matches!(
        get_general_category(c),
        GeneralCategory::Format | GeneralCategory::Unassigned | GeneralCategory::PrivateUse
    )
}

fn bounded(
    value: &str,
    max_chars: usize,
    allowed_control: fn(char) -> bool,
    control_message: &str,
) -> Result<Option<String>, String> {
    let trimmed = value.trim();
    if trimmed
        .chars()
        .any(|c| c.is_control() && !allowed_control(c))
    {
        return Err(control_message.into());
    }
    if trimmed.chars().any(is_hidden) {
        return Err(HIDDEN_MESSAGE.into());
    }
    if trimmed.chars().count() > max_chars {
        return Err(format!("must be at most {max_chars} characters"));
    }
    Ok((!trimmed.is_empty()).then(|| trimmed.to_string()))
}

/// A list's `limit`: an integer from 1 to `max`.
pub fn page_limit(value: &str, max: usize) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|limit| (1..=max).contains(limit))
        .ok_or_else(|| format!("must be an integer from 1 to {max}"))
}

/// A list's `cursor` where items are listed by id: the id to start after, from 0. `what`
/// names the item ("client").
pub fn id_cursor(value: &str, what: &str) -> Result<i32, String> {
    value
        .parse::<i32>()
        .ok()
        .filter(|after| *after >= 0)
        .ok_or_else(|| format!("must be {what} id from 0 to 2147483647"))
}

/// Like `text`, but blank is an error.
pub fn required_text(value: &str, max_chars: usize) -> Result<String, String> {
    text(value, max_chars)?.ok_or_else(|| "must not be blank".into())
}

/// A BCP 47 language tag (RFC 5646), returned in its canonical letter case (`sv-SE`).
pub fn language_tag(value: &str) -> Result<String, String> {
    let value = value.trim();
    if value.len() > 35 {
        return Err("must be a BCP 47 language tag of at most 35 characters".into());
    }
    oxilangtag::LanguageTag::parse_and_normalize(value)
        .map(|tag| tag.into_inner())
        .map_err(|e| format!("must be a BCP 47 language tag such as sv or en-GB ({e})"))
}

/// A plausible e-mail address: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn email(value: &str) -> Result<String, String> {
    let value = value.trim();
    let shaped = value.len() <= 254
        && value.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && local.len() <= 64
                && !domain.contains('@')
                && domain.contains('.')
                && domain
                    .split('.')
                    .all(|label| !label.is_empty() && label.len() <= 63)
        })
        && !value.chars().any(|c| c.is_whitespace() || c.is_control());
    if shaped {
        Ok(value.to_string())
    } else {
        Err("must be an e-mail address such as name@example.se".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_trimmed_bounded_and_free_of_control_characters() {
        assert_eq!(text("  Solna ", 10), Ok(Some("Solna".into())));
        assert_eq!(text("   ", 10), Ok(None));
        assert!(text("a\u{0}b", 10).is_err());
        assert!(text("åäöåäöåäöåä", 10).is_err());
        assert!(required_text(" ", 10).is_err());
    }

    #[test]
    fn names_and_prose_refuse_invisible_format_unassigned_and_private_use_characters() {
        for hidden in [
            "Anna \u{202E}nossredna", // right-to-left override
            "Anna\u{200B}Andersson",  // zero-width space
            "\u{FEFF}Anna",           // byte order mark
            "Anna \u{2066}A\u{2069}", // isolates
            "Anna \u{E000}",          // private use
            "Anna \u{0378}",          // unassigned
        ] {
            assert!(text(hidden, 100).is_err(), "{hidden:?}");
            assert!(prose(hidden, 100).is_err(), "{hidden:?}");
        }
        assert_eq!(
            text("Åsa Öberg-Ñúñez 李", 100),
            Ok(Some("Åsa Öberg-Ñúñez 李".into()))
        );
        assert_eq!(
            prose("Rad ett.\nRad två.", 100),
            Ok(Some("Rad ett.\nRad två.".into()))
        );
    }

    #[test]
    fn prose_keeps_line_breaks_and_tabs_but_no_other_control_characters() {
        assert_eq!(
            prose(" Line one.\nLine\ttwo. ", 50),
            Ok(Some("Line one.\nLine\ttwo.".into()))
        );
        assert!(prose("bell\u{7}", 50).is_err());
        assert!(prose("abc", 2).is_err());
        assert_eq!(prose("  ", 5), Ok(None));
    }

    #[test]
    fn language_tags_follow_bcp_47_in_canonical_case() {
        assert_eq!(language_tag("sv"), Ok("sv".into()));
        assert_eq!(language_tag("SV-se"), Ok("sv-SE".into()));
        assert_eq!(language_tag("zh-hant-tw"), Ok("zh-Hant-TW".into()));
        for bad in ["", "swedish language", "s", "sv_SE", "x", "en-"] {
            assert!(language_tag(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn email_addresses_need_a_local_part_and_a_dotted_domain() {
        assert!(email("kontor@lidingo.example").is_ok());
        for bad in ["kontor", "@x.se", "a@b", "a@@b.se", "a b@c.se", "a@b..se"] {
            assert!(email(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_validator_reports_every_failing_field() {
        let mut validator = Validator::new();
        assert_eq!(validator.check("a", Ok::<_, String>(1)), Some(1));
        validator.check::<()>("b", Err("bad".into()));
        validator.check::<()>("c", Err("worse".into()));
        let ApiError::Validation { errors, .. } = validator.finish().unwrap_err() else {
            panic!("a validation problem")
        };
        assert_eq!(errors.keys().collect::<Vec<_>>(), ["b", "c"]);
    }
}
