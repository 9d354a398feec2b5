//! The authentication endpoints: request an OTP, exchange it for a session, log out.

use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::routing::post;
use axum::{Router, http::StatusCode};
use serde::{Deserialize, Serialize};

use chrono::{DateTime, Utc};
use shared::auth::{self, Authenticator, Caller};
use shared::error::ApiError;
use shared::error::Problem;
use shared::extract::{Json, JsonResponse};
use shared::ids::{AccountId, PortalId};
use shared::notify::{SmsSender, SnsSms};
use shared::phone::MetadataLoad;
use shared::phone::{self, DefaultRegion};
use shared::records::Account;
use shared::runtime::{Platform, Services};
use shared::source::SourceNetwork;
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{
    AuthStore, BoxError, CodeSend, Narrow, OtpLogin, OtpRequest, OtpSave, SendLog, Session,
    SessionReader, StaffAccount, StoreError,
};
use utoipa::ToSchema;

#[derive(Clone, FromRef)]
pub struct AuthState {
    pub store: Arc<dyn AuthStore>,
    pub sms: Arc<dyn SmsSender>,
    /// The session check, whose clock and rules the handlers use too.
    pub authenticator: Authenticator,
    pub region: DefaultRegion,
    /// Key of the HMAC under which OTP codes are stored.
    pub otp_key: Arc<[u8]>,
}

impl AuthState {
    pub fn new<S>(services: &Services<S>, sms: Arc<dyn SmsSender>, otp_key: Arc<[u8]>) -> Self
    where
        S: ?Sized + Narrow<dyn AuthStore> + Narrow<dyn SessionReader>,
    {
        Self {
            store: services.store(),
            sms,
            authenticator: services.authenticator(),
            // Every request reads a number, but a background load competes with the first answer
            // on a small machine: measured side by side in two full runs, first use was as fast
            // for the first real answer and 1.2-1.4x faster for a 401 (docs/performance.md).
            region: services.phone_region(MetadataLoad::FirstUse),
            otp_key,
        }
    }

    /// The state on Lambda: SMS through SNS, the OTP key from the environment or Secrets
    /// Manager.
    pub async fn for_lambda(platform: &Platform) -> Result<Self, BoxError> {
        let key = platform
            .secret("OTP_HASH_KEY", "OTP_HASH_KEY_SECRET_ARN")
            .await?;
        let sms = Arc::new(SnsSms::new(aws_sdk_sns::Client::new(&platform.sdk)));
        Ok(Self::new(&platform.services, sms, key.into()))
    }
}

/// The function's routes: a Lambda serves them through `shared::entry::serve_http`, `local-api`
/// merges them with the other functions'.
pub fn routes(state: AuthState) -> Router {
    Router::new()
        .route("/authentication/request-otp", post(request_otp))
        .route("/authentication/validate-otp", post(validate_otp))
        .route("/authentication/logout", post(logout))
        .with_state(state)
}

/// The OpenAPI description of this function's routes.
#[derive(utoipa::OpenApi)]
#[openapi(paths(request_otp, validate_otp, logout))]
pub struct ApiDoc;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"phoneNumber": "070-100 00 01"}))]
pub struct RequestOtpBody {
    /// The staff member's number, as written ("070-100 00 01", "+46701000001").
    #[schema(format = "phone", max_length = 40)]
    pub phone_number: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtpIssued {
    /// Goes with the code to `validate-otp`.
    #[schema(example = "3f1c9a2e6b7d4c58a0e1f2b3c4d5e6f7")]
    pub request_id: String,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "phoneNumber": "+46701000001",
    "requestId": "3f1c9a2e6b7d4c58a0e1f2b3c4d5e6f7",
    "otp": "123456"
}))]
pub struct ValidateOtpBody {
    #[schema(format = "phone", max_length = 40)]
    pub phone_number: String,
    #[schema(min_length = 1, max_length = 64)]
    pub request_id: String,
    /// The 6 digits of the SMS.
    #[schema(pattern = "^[0-9]{6}$")]
    pub otp: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionIssued {
    /// Sent as `Authorization: Bearer <token>`.
    pub token: String,
    /// Always `Bearer`.
    #[schema(example = "Bearer")]
    pub token_type: String,
    /// The absolute end of the session; it also ends after 2 hours without a request.
    pub expires_at: DateTime<Utc>,
    pub account: Account,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"all": false}))]
pub struct LogoutBody {
    /// `true` ends every session of the account, `false` (the default) only this one.
    #[serde(default)]
    pub all: bool,
}

fn e164(raw: &str, region: DefaultRegion) -> Result<String, ApiError> {
    phone::normalise(raw, region).map_err(|reason| ApiError::field("phoneNumber", reason))
}

/// Request a login code
///
/// Sends a login code by SMS when an account has the number. Every well-formed number gets the
/// same 202, so numbers cannot be enumerated. Not in interface v1: the code has to come from
/// somewhere.
#[utoipa::path(
    post, path = "/authentication/request-otp", tag = "authentication",
    request_body = RequestOtpBody,
    responses(
        (status = 202, description = "A code was sent if an account has this number.", body = OtpIssued),
        (status = 429, description = "Five unused codes were requested for this number from this network (an IPv4 address or an IPv6 /64) in the last hour, or ten from all networks it has not logged in from in 30 days.", body = Problem),
    )
)]
async fn request_otp(
    State(state): State<AuthState>,
    source: SourceNetwork,
    Json(body): Json<RequestOtpBody>,
) -> Result<JsonResponse<OtpIssued>, ApiError> {
    let phone = e164(&body.phone_number, state.region)?;
    // A concurrent request or login for the same number changed its send log: read it again.
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the number's send log");
    loop {
        rounds.start().await?;
        let (account, log) = state.store.otp_context(&phone).await?;
        let now = state.authenticator.clock.now();
        let rules = &state.authenticator.rules;
        let read_version = log.version;
        let log = log.settled(&rules.otp_sends, now);
        log.admit(&rules.otp_sends, &source, now)
            .inspect_err(|_| shared::metrics::codes_refused())?;
        let code = auth::new_otp_code();
        let request_id = auth::new_request_id();
        let request = OtpRequest {
            code_hash: auth::otp_hash(&state.otp_key, &request_id, &phone, &code),
            phone_number: phone.clone(),
            request_id,
            source,
            expires_at: now + rules.otp_lifetime,
            attempts: 0,
            used: false,
        };
        let mut sends = log.sends;
        sends.push(CodeSend {
            at: now,
            source,
            request_id: request.request_id.clone(),
        });
        // This network's previous code stops working; another network's stays valid.
        let mut pending = log.pending;
        let replaced = pending.insert(source, request.request_id.clone());
        let next_log = SendLog {
            sends,
            pending,
            validated: Default::default(),
            known: log.known,
            version: read_version + 1,
        };
        if let Round::Lost = state
            .store
            .save_otp(OtpSave {
                request: &request,
                replaces: replaced.as_deref(),
                log: &next_log,
                read_version,
            })
            .await
            .or_lost()?
        {
            continue;
        }
        // Only a number with an account gets a message; the answer is the same either way.
        if account.is_some() {
            let minutes = state.authenticator.rules.otp_lifetime.num_minutes();
            let text = format!("Your login code is {code}. It is valid for {minutes} minutes.");
            match state.sms.send_sms(&phone, &text).await {
                Ok(()) => shared::metrics::codes_sent(),
                Err(error) => {
                    shared::metrics::sms_failed(1);
                    tracing::error!(error = %error, "OTP SMS could not be sent");
                }
            }
        } else {
            shared::metrics::codes_refused();
        }
        return Ok(JsonResponse::ok(OtpIssued {
            request_id: request.request_id,
            expires_at: request.expires_at,
        })
        .with_status(StatusCode::ACCEPTED));
    }
}

/// Log in with a code
///
/// Exchanges a code for a session. A wrong, expired, used or mismatched code is one generic 401.
#[utoipa::path(
    post, path = "/authentication/validate-otp", tag = "authentication",
    request_body = ValidateOtpBody,
    responses(
        (status = 200, description = "The session.", body = SessionIssued),
        (status = 401, description = "The code is wrong, expired, used, or not this number's.", body = Problem),
        (status = 429, description = "Five wrong codes killed this request; ask for a new code.", body = Problem),
    )
)]
async fn validate_otp(
    State(state): State<AuthState>,
    Json(body): Json<ValidateOtpBody>,
) -> Result<JsonResponse<SessionIssued>, ApiError> {
    let phone = e164(&body.phone_number, state.region)?;
    if body.otp.len() != 6 || !body.otp.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::field("otp", "must be the 6 digits of the code"));
    }
    if body.request_id.is_empty() || body.request_id.len() > 64 {
        return Err(ApiError::field(
            "requestId",
            "must be the requestId of request-otp",
        ));
    }
    // A request id is a UUID: anything else names no request (the same 401 as a wrong one),
    // and never becomes part of a key.
    let shaped = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
    if !body.request_id.bytes().all(shaped) {
        return Err(ApiError::Unauthorized);
    }
    let (otp, account) = state
        .store
        .otp_and_account(&phone, &body.request_id)
        .await?;
    let otp = otp.ok_or(ApiError::Unauthorized)?;
    let max = state.authenticator.rules.otp_max_attempts;
    if otp.attempts >= max {
        return Err(ApiError::TooManyRequests {
            detail: "Too many wrong codes for this request; request a new code.".into(),
            retry_after_secs: 1,
        });
    }
    let now = state.authenticator.clock.now();
    if otp.used || now >= otp.expires_at {
        return Err(ApiError::Unauthorized);
    }
    let presented = auth::otp_hash(&state.otp_key, &otp.request_id, &phone, &body.otp);
    if !auth::constant_time_eq(&presented, &otp.code_hash) {
        match state.store.record_failed_attempt(&otp, max).await {
            Ok(_) | Err(StoreError::ConditionFailed) => return Err(ApiError::Unauthorized),
            Err(other) => return Err(other.into()),
        }
    }
    let StaffAccount {
        account,
        organisation_id,
    } = account.ok_or(ApiError::Unauthorized)?;
    let token = auth::new_session_token();
    let session = Session {
        token_hash: auth::token_hash(&token),
        account_id: AccountId(account.id),
        account_name: account.name.clone(),
        portal_id: PortalId(account.portal_id),
        organisation_id,
        role: account.role,
        created_at: now,
        last_seen_at: now,
        expires_at: now + state.authenticator.rules.session_absolute,
    };
    let known_until = now + state.authenticator.rules.otp_known_for;
    match state
        .store
        .consume_otp(OtpLogin {
            otp: &otp,
            max_attempts: max,
            session: &session,
            known_until,
        })
        .await
    {
        Ok(()) => {}
        // The code was used meanwhile. When this very session exists, the one who used it was
        // us: the write landed, its answer was lost, and the SDK's retry found the code used
        // (DynamoDB's transaction token would make that retry succeed; moto ignores it, and a
        // retry after the token's 10 minutes would not). Nobody else can hold this token.
        Err(StoreError::ConditionFailed) => {
            if state.store.session(&session.token_hash).await?.is_none() {
                return Err(ApiError::Unauthorized);
            }
            tracing::info!("validate-otp: a retried write had already created the session");
        }
        Err(other) => return Err(other.into()),
    }
    Ok(JsonResponse::ok(SessionIssued {
        token,
        token_type: "Bearer".into(),
        expires_at: session.expires_at,
        account,
    }))
}

/// Log out
///
/// Ends this session, or with `all` every session of the account; the token stops working at
/// once.
#[utoipa::path(
    post, path = "/authentication/logout", tag = "authentication",
    request_body = LogoutBody,
    responses((status = 204, description = "Logged out.")),
    security(("bearer" = []))
)]
async fn logout(
    State(state): State<AuthState>,
    caller: Caller,
    Json(body): Json<LogoutBody>,
) -> Result<StatusCode, ApiError> {
    // Every session is indexed under its account when created, so "all" includes this one.
    if body.all {
        state.store.delete_all_sessions(caller.account_id).await?;
    } else {
        state.store.delete_session(&caller.token_hash).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}
