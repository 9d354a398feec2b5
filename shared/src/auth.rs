//! Credentials: OTP codes and session tokens (generation, hashing), and the session check
//! every authenticated endpoint runs through the `Caller` extractor.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use http::request::Parts;
use rand::{Rng, RngCore};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::clock::Clock;
use crate::config::AuthRules;
use crate::error::ApiError;
use crate::store::{SessionReader, StoreError};

/// Six uniformly drawn decimal digits. `rand::rng()` is a CSPRNG (ChaCha, seeded and
/// periodically reseeded from the operating system).
pub fn new_otp_code() -> String {
    format!("{:06}", rand::rng().random_range(0..1_000_000u32))
}

/// 256 random bits, base64url without padding (43 characters).
pub fn new_session_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// An opaque request id for an OTP request.
pub fn new_request_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The stored form of a session token.
pub fn token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// `base64url_nopad(HMAC-SHA256(key, message))`: the keyed hash under which OTPs are stored,
/// and the derivation of per-portal secrets from a master secret.
pub fn keyed_hash(key: &[u8], message: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(message.as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// The hash an OTP is stored as: bound to its request and number, so a code cannot be replayed
/// against another request.
pub fn otp_hash(key: &[u8], request_id: &str, phone_number: &str, code: &str) -> String {
    keyed_hash(key, &format!("otp:{request_id}:{phone_number}:{code}"))
}

/// A portal's import secret (DESIGN.md section 4): `base64url_nopad(HMAC-SHA256(master,
/// "portal:" + portalId))`. Staff hand it to the integration that imports for that portal.
pub fn portal_import_secret(master: &[u8], portal_id: i32) -> String {
    keyed_hash(master, &format!("portal:{portal_id}"))
}

/// Whether `candidate` could be a secret of `keyed_hash`: 43 base64url characters (256 bits).
/// Anything else can never match, so it is refused before any lookup or rate-limit count.
pub fn is_secret_shaped(candidate: &str) -> bool {
    candidate.len() == 43
        && candidate
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Compares secrets without an early exit on the first differing byte.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// What a request's session check needs; each function's state exposes one through `FromRef`.
#[derive(Clone)]
pub struct Authenticator {
    pub sessions: Arc<dyn SessionReader>,
    pub clock: Arc<dyn Clock>,
    pub rules: AuthRules,
}

/// The authenticated caller of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub account_id: crate::ids::AccountId,
    /// As it was at login.
    pub account_name: String,
    pub portal_id: crate::ids::PortalId,
    pub organisation_id: crate::ids::OrganisationId,
    pub role: crate::records::Role,
    pub token_hash: String,
}

impl Authenticator {
    /// Checks a bearer token: known, not past its absolute lifetime, not idle too long. Every
    /// failure is the same 401.
    pub async fn authenticate(&self, token: &str) -> Result<Caller, ApiError> {
        if token.is_empty() || token.len() > 128 {
            return Err(ApiError::Unauthorized);
        }
        let hash = token_hash(token);
        let session = self
            .sessions
            .session(&hash)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        let now = self.clock.now();
        if now >= session.expires_at || now >= session.last_seen_at + self.rules.session_idle {
            return Err(ApiError::Unauthorized);
        }
        if now - session.last_seen_at >= self.rules.session_touch_interval {
            match self.sessions.touch_session(&hash, now).await {
                Ok(()) => {}
                // The request is already authenticated; a failed refresh only shortens the
                // idle window, so it is logged rather than failing the request.
                Err(error @ (StoreError::Throttled(_) | StoreError::Unavailable(_))) => {
                    tracing::warn!(error = %error, "session refresh skipped");
                }
                Err(other) => return Err(other.into()),
            }
        }
        Ok(Caller {
            account_id: session.account_id,
            account_name: session.account_name,
            portal_id: session.portal_id,
            organisation_id: session.organisation_id,
            role: session.role,
            token_hash: hash,
        })
    }
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts
        .headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

impl<S> FromRequestParts<S> for Caller
where
    S: Send + Sync,
    Authenticator: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let token = bearer_token(parts)
            .ok_or(ApiError::Unauthorized)?
            .to_string();
        Authenticator::from_ref(state).authenticate(&token).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The median over `rounds` of late/early, each round timing one call of each back to back
    /// (in alternating order), so that a busy machine slows both sides of a ratio alike.
    fn median_ratio(
        rounds: usize,
        mut early: impl FnMut() -> bool,
        mut late: impl FnMut() -> bool,
    ) -> f64 {
        let time = |call: &mut dyn FnMut() -> bool| {
            let started = std::time::Instant::now();
            std::hint::black_box(call());
            started.elapsed().as_nanos().max(1) as f64
        };
        let mut ratios: Vec<f64> = (0..rounds)
            .map(|round| {
                let (e, l) = if round % 2 == 0 {
                    let e = time(&mut early);
                    (e, time(&mut late))
                } else {
                    let l = time(&mut late);
                    (time(&mut early), l)
                };
                l / e
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios[rounds / 2]
    }

    /// Times secrets of 1 MiB that differ in their first byte against ones that differ in
    /// their last: an early exit makes the first kind far faster (checked on `==`, so the
    /// test is known to see one); the comparison used for secrets takes as long for both.
    #[test]
    fn secret_comparison_does_not_stop_at_the_first_differing_byte() {
        let secret = "s".repeat(1 << 20);
        let first = format!("x{}", &secret[1..]);
        let last = format!("{}x", &secret[..secret.len() - 1]);
        let ratio = |compare: fn(&str, &str) -> bool| {
            median_ratio(61, || compare(&secret, &first), || compare(&secret, &last))
        };
        let plain = ratio(|a, b| a == b);
        assert!(plain > 20.0, "`==` exits early: {plain:.1}x");
        let constant = ratio(constant_time_eq);
        eprintln!("last/first differing byte: `==` {plain:.1}x, constant_time_eq {constant:.2}x");
        assert!(
            (0.5..2.0).contains(&constant),
            "first and last differing byte take as long: {constant:.2}x"
        );
        assert!(!constant_time_eq(&secret, &first) && !constant_time_eq(&secret, &last));
        assert!(constant_time_eq(&secret, &secret.clone()));
    }

    #[test]
    fn otp_codes_are_six_digits() {
        for _ in 0..200 {
            let code = new_otp_code();
            assert_eq!(code.len(), 6);
            assert!(code.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn session_tokens_carry_256_bits_and_are_stored_hashed() {
        let token = new_session_token();
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap().len(), 32);
        assert_ne!(token_hash(&token), token);
        assert_eq!(token_hash(&token), token_hash(&token));
    }

    #[test]
    fn a_portals_import_secret_is_the_documented_hmac() {
        // The same value `IMPORT_SECRET=local-master scripts/import-secret.sh 1` prints.
        assert_eq!(
            portal_import_secret(b"local-master", 1),
            "y4COOgii6eFtOZZqo2a7CU5ish4Pfa_7ktW0wDNucM4"
        );
        assert_ne!(
            portal_import_secret(b"local-master", 2),
            portal_import_secret(b"local-master", 1)
        );
    }

    #[test]
    fn otp_hash_depends_on_request_number_and_code() {
        let base = otp_hash(b"k", "r1", "+46701234567", "123456");
        assert_ne!(base, otp_hash(b"k", "r2", "+46701234567", "123456"));
        assert_ne!(base, otp_hash(b"k", "r1", "+46701234568", "123456"));
        assert_ne!(base, otp_hash(b"k", "r1", "+46701234567", "123457"));
        assert_ne!(base, otp_hash(b"other", "r1", "+46701234567", "123456"));
    }
}
