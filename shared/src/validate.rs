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

/// Trimmed free text of at most `max_chars` characters, with nothing `wire::Text` refuses;
/// blank text is `None`.
pub fn text(value: &str, max_chars: usize) -> Result<Option<String>, String> {
    crate::wire::clean(value, max_chars, false).map(|text| (!text.is_empty()).then_some(text))
}

/// Like `text`, but line breaks and tabs are allowed inside: transcripts and summaries are
/// prose.
pub fn prose(value: &str, max_chars: usize) -> Result<Option<String>, String> {
    crate::wire::clean(value, max_chars, true).map(|text| (!text.is_empty()).then_some(text))
}

pub use crate::wire::is_hidden;

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

/// A BCP 47 language tag, as `wire::LanguageTag` takes it.
pub fn language_tag(value: &str) -> Result<String, String> {
    crate::wire::LanguageTag::parse(value).map(crate::wire::LanguageTag::into_inner)
}

/// An e-mail address, as `wire::Email` takes it.
pub fn email(value: &str) -> Result<String, String> {
    crate::wire::Email::parse(value).map(crate::wire::Email::into_inner)
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
