//! Building blocks of the OpenAPI document that several functions' schemas share: the text
//! patterns the validators of `validate` enforce, in JSON Schema's regular-expression dialect.

/// `validate::text`: no control characters (blank is allowed and clears).
pub const TEXT: &str = r"^[^\u0000-\u001F\u007F-\u009F]*$";

/// `validate::required_text`: no control characters and at least one non-space character.
pub const REQUIRED_TEXT: &str = r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$";

/// `validate::prose`: like `TEXT`, but line breaks and tabs are allowed.
pub const PROSE: &str = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$";

/// `contact_window::parse_time`: `HH:mm` or `HH:mm:ss`.
pub const TIME: &str = "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$";

/// A login code: six digits.
pub const OTP: &str = "^[0-9]{6}$";

/// Text with something in it besides spaces.
pub const SAID: &str = r"\S";

/// An access-log cursor (`access-log`'s `parse_cursor`): a record id (`time#trace#part`) or a
/// review id (`time#uuid`).
pub const LOG_CURSOR: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z(#[0-9A-Za-z=_-]{1,64}){1,2}$";
