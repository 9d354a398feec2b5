//! Building blocks of the OpenAPI document that several functions' schemas share: the text
//! patterns the validators of `validate` enforce, in JSON Schema's regular-expression dialect.

/// Single-line text (`wire::Text`): no control characters or line separators (blank is
/// allowed and clears).
pub const TEXT: &str = crate::wire::TEXT_PATTERN;

/// `wire::RequiredText` and `wire::Name`: single-line text with something besides spaces.
pub const REQUIRED_TEXT: &str = crate::wire::REQUIRED_TEXT_PATTERN;

/// `wire::Prose`: like `TEXT`, but line breaks and tabs are allowed.
pub const PROSE: &str = crate::wire::PROSE_PATTERN;

/// `wire::RequiredProse`: prose with something besides spaces.
pub const REQUIRED_PROSE: &str = crate::wire::REQUIRED_PROSE_PATTERN;

/// `contact_window::parse_time`: `HH:mm` or `HH:mm:ss`.
pub const TIME: &str = "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$";

/// A login code: six digits.
pub const OTP: &str = "^[0-9]{6}$";

/// Text with something in it besides spaces.
pub const SAID: &str = r"\S";

/// An access-log cursor (`access-log`'s `parse_cursor`): a record id (`time#trace#part`) or a
/// review id (`time#uuid`).
pub const LOG_CURSOR: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z(#[0-9A-Za-z=_-]{1,64}){1,2}$";
