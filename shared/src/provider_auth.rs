//! How the voice platforms' own webhooks prove where they come from, checked as each
//! platform documents it:
//! - Retell: `x-retell-signature: v=<unix ms>,d=<hex HMAC-SHA256(raw body + ms, API key)>`,
//!   within 5 minutes (https://docs.retellai.com/features/secure-webhook, and the test vector
//!   of Retell's SDKs).
//! - Vapi: an HMAC credential, by default `x-signature: <hex HMAC-SHA256("<x-timestamp>.<raw
//!   body>", secret)>` (https://docs.vapi.ai/server-url/server-authentication); the
//!   timestamp's unit is not documented, so seconds and milliseconds are both read.
//! - ElevenLabs: the conversation-initiation webhook and server tools carry the secret headers
//!   the agent is configured with, not a signature
//!   (https://elevenlabs.io/docs/agents-platform/customization/personalization/twilio-personalization).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::records::Timestamp;
use crate::webhook::{SIGNATURE_TOLERANCE, SignatureError};

/// Lowercase hex HMAC-SHA256 of `parts`, one after the other, keyed with `key`.
pub(crate) fn hmac_hex(key: &[u8], parts: &[&[u8]]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Whether `offered` is the lowercase hex digest `expected`, in either letter case, compared
/// in constant time.
pub(crate) fn hex_digest_eq(expected: &str, offered: &str) -> bool {
    expected
        .as_bytes()
        .ct_eq(offered.to_ascii_lowercase().as_bytes())
        .into()
}

/// `Ok` for a signature or secret that matches, `Err(Mismatch)` otherwise.
pub(crate) fn verdict(is_match: bool) -> Result<(), SignatureError> {
    if is_match {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

fn fresh(at: Timestamp, now: Timestamp) -> Result<(), SignatureError> {
    if (now - at).abs() > SIGNATURE_TOLERANCE {
        Err(SignatureError::Stale)
    } else {
        Ok(())
    }
}

/// Retell's `x-retell-signature` header, as its SDKs build it: `v=<ms>,d=<64 hex>` exactly.
pub fn retell_signature(api_key: &str, at_ms: i64, body: &[u8]) -> String {
    let digest = hmac_hex(api_key.as_bytes(), &[body, at_ms.to_string().as_bytes()]);
    format!("v={at_ms},d={digest}")
}

/// Checks Retell's `x-retell-signature` header over `body` with the workspace's API key.
pub fn verify_retell(
    header: Option<&str>,
    api_key: &str,
    body: &[u8],
    now: Timestamp,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Malformed)?;
    let (v, d) = header.split_once(",d=").ok_or(SignatureError::Malformed)?;
    let at_ms: i64 = v
        .strip_prefix("v=")
        .filter(|ms| !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|ms| ms.parse().ok())
        .ok_or(SignatureError::Malformed)?;
    if d.len() != 64 || !d.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SignatureError::Malformed);
    }
    let at = chrono::DateTime::from_timestamp_millis(at_ms).ok_or(SignatureError::Malformed)?;
    fresh(at, now)?;
    let expected = hmac_hex(api_key.as_bytes(), &[body, at_ms.to_string().as_bytes()]);
    verdict(hex_digest_eq(&expected, d))
}

/// Vapi's default HMAC credential: the `x-signature` of `"<x-timestamp>.<raw body>"`.
pub fn vapi_signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    hmac_hex(secret.as_bytes(), &[timestamp.as_bytes(), b".", body])
}

/// Checks Vapi's `x-signature` and `x-timestamp` headers (seconds or milliseconds) over
/// `body` with the portal's webhook secret.
pub fn verify_vapi(
    signature: Option<&str>,
    timestamp: Option<&str>,
    secret: &str,
    body: &[u8],
    now: Timestamp,
) -> Result<(), SignatureError> {
    let (signature, timestamp) = signature.zip(timestamp).ok_or(SignatureError::Malformed)?;
    let number: i64 = timestamp
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| timestamp.parse().ok())
        .flatten()
        .ok_or(SignatureError::Malformed)?;
    // Milliseconds since 1970 passed 10^11 in 1973; seconds will not before the year 5138.
    let at = if number > 100_000_000_000 {
        chrono::DateTime::from_timestamp_millis(number)
    } else {
        chrono::DateTime::from_timestamp(number, 0)
    }
    .ok_or(SignatureError::Malformed)?;
    fresh(at, now)?;
    let offered = signature.strip_prefix("sha256=").unwrap_or(signature);
    verdict(hex_digest_eq(
        &vapi_signature(secret, timestamp, body),
        offered,
    ))
}

/// Checks a secret header (ElevenLabs' configured request headers): the whole value, compared
/// in constant time.
pub fn verify_secret_header(header: Option<&str>, secret: &str) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Malformed)?;
    let offered = header.strip_prefix("Bearer ").unwrap_or(header);
    verdict(crate::auth::constant_time_eq(offered, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: i64) -> Timestamp {
        chrono::DateTime::from_timestamp_millis(ms).unwrap()
    }

    /// The vector both Retell SDKs test against (body, API key, timestamp, digest).
    const RETELL_BODY: &[u8] = br#"{"event":"call_ended"}"#;
    const RETELL_DIGEST: &str = "07024cabe7dd8f6d1c6e4a8324ca92c812e6ad4a7ee506c04f7e462e3321823e";

    #[test]
    fn retells_published_vector_is_accepted_within_five_minutes_either_way() {
        let header = format!("v=1700000000000,d={RETELL_DIGEST}");
        assert_eq!(
            retell_signature("test-api-key", 1_700_000_000_000, RETELL_BODY),
            header
        );
        for now in [1_700_000_000_000, 1_700_000_300_000, 1_699_999_700_000] {
            assert_eq!(
                verify_retell(Some(&header), "test-api-key", RETELL_BODY, at_ms(now)),
                Ok(())
            );
        }
        for now in [1_700_000_300_001, 1_699_999_699_999] {
            assert_eq!(
                verify_retell(Some(&header), "test-api-key", RETELL_BODY, at_ms(now)),
                Err(SignatureError::Stale)
            );
        }
    }

    #[test]
    fn retell_headers_that_are_not_exactly_the_sdks_shape_are_refused() {
        let now = at_ms(1_700_000_000_000);
        let good = format!("v=1700000000000,d={RETELL_DIGEST}");
        for bad in [
            format!("d={RETELL_DIGEST},v=1700000000000"),
            format!("x{good}"),
            format!("v=1700000000000,d={}", &RETELL_DIGEST[..62]),
            format!("v=1700000000000,d={}zz", &RETELL_DIGEST[..62]),
            format!("v=-1,d={RETELL_DIGEST}"),
            String::new(),
        ] {
            assert_eq!(
                verify_retell(Some(&bad), "test-api-key", RETELL_BODY, now),
                Err(SignatureError::Malformed),
                "{bad}"
            );
        }
        assert_eq!(
            verify_retell(Some(&good), "another key", RETELL_BODY, now),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_retell(Some(&good), "test-api-key", b"{}", now),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn vapi_signatures_in_seconds_or_milliseconds_pass_and_others_do_not() {
        let body = br#"{"message":{"type":"tool-calls"}}"#;
        let now = at_ms(1_795_176_000_000);
        for timestamp in ["1795176000", "1795176000000"] {
            let signature = vapi_signature("secret", timestamp, body);
            assert_eq!(
                verify_vapi(Some(&signature), Some(timestamp), "secret", body, now),
                Ok(())
            );
            let prefixed = format!("sha256={signature}");
            assert_eq!(
                verify_vapi(Some(&prefixed), Some(timestamp), "secret", body, now),
                Ok(())
            );
            assert_eq!(
                verify_vapi(Some(&signature), Some(timestamp), "other", body, now),
                Err(SignatureError::Mismatch)
            );
        }
        let old = vapi_signature("secret", "1795175000", body);
        assert_eq!(
            verify_vapi(Some(&old), Some("1795175000"), "secret", body, now),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify_vapi(Some("00"), None, "secret", body, now),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify_vapi(Some("00"), Some("soon"), "secret", body, now),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn a_secret_header_must_be_the_whole_secret() {
        assert_eq!(verify_secret_header(Some("s3cret"), "s3cret"), Ok(()));
        assert_eq!(
            verify_secret_header(Some("Bearer s3cret"), "s3cret"),
            Ok(())
        );
        for bad in ["s3cre", "s3cret ", "S3CRET", ""] {
            assert_eq!(
                verify_secret_header(Some(bad), "s3cret"),
                Err(SignatureError::Mismatch),
                "{bad}"
            );
        }
        assert_eq!(
            verify_secret_header(None, "s3cret"),
            Err(SignatureError::Malformed)
        );
    }
}
