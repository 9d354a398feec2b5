//! Signed webhook deliveries from the voice platform: each portal's webhook secret, and the
//! check of the `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
//! header a delivery carries.

use chrono::TimeDelta;

use crate::auth::keyed_hash;
use crate::provider_auth::{hex_digest_eq, verdict};
use crate::records::Timestamp;

/// How far a delivery's timestamp may be from our clock, either way: a captured delivery
/// cannot be replayed later than this.
pub const SIGNATURE_TOLERANCE: TimeDelta = TimeDelta::minutes(5);

/// A portal's webhook secret: `base64url_nopad(HMAC-SHA256(master, "webhook:" + portalId))`,
/// derived like the import secret but from its own master. The voice platform signs with
/// this text (its ASCII bytes are the HMAC key).
pub fn portal_webhook_secret(master: &[u8], portal_id: i32) -> String {
    keyed_hash(master, &format!("webhook:{portal_id}"))
}

/// The secret header a portal's ElevenLabs agent sends with its webhooks (ElevenLabs signs
/// neither its conversation-initiation webhook nor its server tools): derived apart from the
/// webhook secret, so that a leaked header value cannot sign events.
pub fn portal_header_secret(master: &[u8], portal_id: i32) -> String {
    keyed_hash(master, &format!("header:{portal_id}"))
}

/// Why a delivery's signature was refused; every kind gets the same 401, this is for logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no X-Signature header, or not t=<seconds>,v1=<hex>")]
    Malformed,
    #[error("timestamp more than five minutes away from now")]
    Stale,
    #[error("no v1 signature matches")]
    Mismatch,
}

/// The `v1` signature of `body` at `timestamp` under `secret`, as lowercase hex.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    crate::provider_auth::hmac_hex(
        secret.as_bytes(),
        &[timestamp.to_string().as_bytes(), b".", body],
    )
}

/// The header a delivery of `body` signed at `timestamp` carries.
pub fn signature_header(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!("t={timestamp},v1={}", sign(secret, timestamp, body))
}

/// Checks a delivery: a well-formed header, a timestamp within the tolerance of `now`, and a
/// `v1` value (several are allowed, for a secret being rotated) equal to the expected one,
/// compared in constant time.
pub fn verify(
    header: Option<&str>,
    secret: &str,
    body: &[u8],
    now: Timestamp,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Malformed)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) if timestamp.is_none() => {
                timestamp = Some(
                    value
                        .parse::<i64>()
                        .map_err(|_| SignatureError::Malformed)?,
                );
            }
            Some(("v1", value)) if !value.is_empty() => signatures.push(value),
            // Other schemes a platform may add are ignored; a second `t` is not.
            Some((key, _)) if key != "t" => {}
            _ => return Err(SignatureError::Malformed),
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    let age = now.timestamp().saturating_sub(timestamp);
    if age.unsigned_abs() > SIGNATURE_TOLERANCE.num_seconds().unsigned_abs() {
        return Err(SignatureError::Stale);
    }
    let expected = sign(secret, timestamp, body);
    // Every offered value is compared, so the time taken does not say which one matched.
    verdict(signatures.iter().fold(false, |any, offered| {
        any | hex_digest_eq(&expected, offered)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(seconds, 0).unwrap()
    }

    const BODY: &[u8] = br#"{"type":"call.ended","eventId":"e1"}"#;

    #[test]
    fn a_portals_webhook_secret_differs_from_its_import_secret_and_other_portals() {
        let secret = portal_webhook_secret(b"master", 1);
        assert_ne!(secret, crate::auth::portal_import_secret(b"master", 1));
        assert_ne!(secret, portal_webhook_secret(b"master", 2));
        assert_eq!(secret.len(), 43);
        // The same value `WEBHOOK_SECRET=local-master scripts/portal-secret.sh webhook 1` prints.
        assert_eq!(
            portal_webhook_secret(b"local-master", 1),
            "ZQIozDIhwJVOB4_VAGotjhCp6ImjWx8GE5ckFUJ83Gk"
        );
    }

    #[test]
    fn a_portals_header_secret_is_neither_its_webhook_secret_nor_another_portals() {
        let header = portal_header_secret(b"master", 1);
        assert_ne!(header, portal_webhook_secret(b"master", 1));
        assert_ne!(header, portal_header_secret(b"master", 2));
        // The same value `WEBHOOK_SECRET=local-master scripts/portal-secret.sh header 1` prints.
        assert_eq!(
            portal_header_secret(b"local-master", 1),
            "PhFi8oEO-wtEgkBLgdIh_ZDC_hJP7wjfwBvOtkNfG5Y"
        );
    }

    #[test]
    fn the_signature_is_the_documented_hmac() {
        // printf '%s' '1795176000.{"type":"call.ended","eventId":"e1"}' \
        //   | openssl dgst -sha256 -hmac secret
        assert_eq!(
            sign("secret", 1_795_176_000, BODY),
            "cdad3ac440a1263005518da98dec15041be944693f51d5b248f39e52f31225c9"
        );
    }

    #[test]
    fn a_fresh_delivery_signed_with_the_secret_passes() {
        let header = signature_header("secret", 1_000_000, BODY);
        assert_eq!(verify(Some(&header), "secret", BODY, at(1_000_000)), Ok(()));
        assert_eq!(verify(Some(&header), "secret", BODY, at(1_000_299)), Ok(()));
        let rotating = format!("t=1000000,v1=00ff,{}", &header[10..]);
        assert_eq!(
            verify(Some(&rotating), "secret", BODY, at(1_000_000)),
            Ok(())
        );
    }

    #[test]
    fn tampered_stale_foreign_or_malformed_deliveries_are_refused() {
        let header = signature_header("secret", 1_000_000, BODY);
        let now = at(1_000_000);
        assert_eq!(
            verify(Some(&header), "secret", b"{}", now),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(Some(&header), "other portal's secret", BODY, now),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(Some(&header), "secret", BODY, at(1_000_301)),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify(Some(&header), "secret", BODY, at(999_699)),
            Err(SignatureError::Stale)
        );
        for malformed in [
            "",
            "v1=abc",
            "t=1000000",
            "t=soon,v1=abc",
            "t=1000000,t=1000000,v1=abc",
            "garbage",
        ] {
            assert_eq!(
                verify(Some(malformed), "secret", BODY, now),
                Err(SignatureError::Malformed),
                "{malformed}"
            );
        }
        assert_eq!(
            verify(None, "secret", BODY, now),
            Err(SignatureError::Malformed)
        );
    }
}
