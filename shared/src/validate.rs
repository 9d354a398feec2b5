//! Rules between fields at the edge, collected so one 400 problem names every failing field.
//! Text is never checked here: it is parsed by a wire type (`crate::wire`), through serde or,
//! for a required field kept as text so that its absence does not hide the rest, by
//! `Validator::parse`.

use crate::error::{ApiError, FieldErrors};

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

    /// Parses a required field kept as text with wire type `T`, in place: read as a plain
    /// string, so that a bad or missing one does not hide the other fields' problems.
    pub fn parse<T: crate::wire::Parse>(&mut self, field: &str, value: &mut String) {
        if let Some(parsed) = self.check(field, T::parse_text(value)) {
            *value = parsed.into_string();
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

#[cfg(test)]
mod tests {
    use super::*;

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
