//! Phone number normalisation to E.164, so that lookups compare one canonical form.

use phonenumber::{Mode, country};

/// The region assumed for numbers written without a country code (`PHONE_DEFAULT_REGION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultRegion(pub country::Id);

impl Default for DefaultRegion {
    fn default() -> Self {
        Self(country::Id::SE)
    }
}

impl std::str::FromStr for DefaultRegion {
    type Err = String;
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        code.trim()
            .to_ascii_uppercase()
            .parse::<country::Id>()
            .map(Self)
            .map_err(|_| format!("unknown region code {code:?}"))
    }
}

/// Parses a number as a person would write or say it ("070-123 45 67", "+46 70 123 45 67",
/// "0046701234567") and returns it as E.164, or an explanation of why it is not a number.
pub fn normalise(raw: &str, region: DefaultRegion) -> Result<String, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err("must not be empty".into());
    }
    if trimmed.len() > 40 {
        return Err("must be at most 40 characters".into());
    }
    // The parser skips what it does not understand ("+46701234567\0" would pass), so only
    // what people write in a number gets to it.
    if !trimmed
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')' | '.' | '/'))
    {
        return Err("may hold only digits, spaces and + - ( ) . /".into());
    }
    let international = trimmed
        .strip_prefix("00")
        .map(|rest| format!("+{rest}"))
        .unwrap_or_else(|| trimmed.to_string());
    let number = phonenumber::parse(Some(region.0), &international)
        .map_err(|_| "is not a phone number".to_string())?;
    if !phonenumber::is_valid(&number) {
        return Err("is not a valid phone number".into());
    }
    Ok(number.format().mode(Mode::E164).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swedish_national_forms_become_e164() {
        let se = DefaultRegion::default();
        assert_eq!(normalise("070-123 45 67", se).unwrap(), "+46701234567");
        assert_eq!(normalise("+46 70 123 45 67", se).unwrap(), "+46701234567");
        assert_eq!(normalise("0046701234567", se).unwrap(), "+46701234567");
    }

    #[test]
    fn garbage_is_rejected_with_a_reason() {
        let se = DefaultRegion::default();
        assert!(normalise("", se).is_err());
        assert!(normalise("hello", se).is_err());
        assert!(normalise("123", se).is_err());
        assert!(normalise("+46701234567\0", se).is_err());
        assert!(normalise("+46701234567x", se).is_err());
        assert!(normalise("+46 70 123\u{a0}45 67", se).is_err());
    }
}
