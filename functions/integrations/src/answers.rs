//! The documented 401 answers the webhook and tool routes share, named once for their OpenAPI
//! `responses` (the handlers answer them through `ApiError`).

use shared::error::Problem;

/// A portal-signed route (tools, call events, caller lookup) given a bad signature or an
/// unknown portal: one answer for all, so a stranger learns nothing of which portals exist.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 401,
    description = "A missing, malformed, stale or wrong signature, or an unknown portal (one answer for all)."
)]
pub struct UnsignedPortal(pub Problem);

/// A provider route signed with the provider's HMAC (Retell, Vapi) given a bad signature.
#[derive(utoipa::IntoResponses)]
#[response(status = 401, description = "A missing, stale or wrong signature.")]
pub struct BadSignature(pub Problem);

/// A provider route authenticated by a shared secret header (ElevenLabs) given a bad one.
#[derive(utoipa::IntoResponses)]
#[response(status = 401, description = "A missing or wrong secret header.")]
pub struct BadSecret(pub Problem);
