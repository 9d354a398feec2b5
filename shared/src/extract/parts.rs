//! What a request's head carries: its path id, its query, and the network it came from.

use axum::extract::FromRequestParts;
use http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldErrors};
use crate::source::SourceNetwork;

/// A path `{id}`: an int32 greater than zero, otherwise 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathId(pub i32);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Path(raw) =
            axum::extract::Path::<String>::from_request_parts(parts, state)
                .await
                .map_err(|_| ApiError::field("id", "must be an integer id"))?;
        // Digits only, without sign or leading zero: one spelling per id, so `+1` or `01`
        // cannot reach a record by a second name.
        let canonical = raw.bytes().all(|b| b.is_ascii_digit()) && !raw.starts_with('0');
        match raw.parse::<i32>() {
            Ok(id) if canonical && id > 0 => Ok(Self(id)),
            _ => Err(ApiError::field(
                "id",
                "must be an integer between 1 and 2147483647, written in digits",
            )),
        }
    }
}

/// A query string decoded into `T` (whose fields are wire types), otherwise 400 naming every
/// parameter that did not parse (as `decode_json` does for bodies).
#[derive(Debug, Clone)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let mut pairs: Vec<(String, String)> =
            form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        let mut errors = FieldErrors::new();
        loop {
            let query = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&pairs)
                .finish();
            let deserializer =
                serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
            let error = match serde_path_to_error::deserialize::<_, T>(deserializer) {
                Ok(value) if errors.is_empty() => return Ok(Query(value)),
                Ok(_) => break,
                Err(error) => error,
            };
            let name = error.path().to_string();
            let known = pairs.iter().any(|(key, _)| *key == name);
            if !known || errors.contains_key(&name) {
                // A rule of the whole query (an unknown parameter, a missing one).
                if errors.is_empty() {
                    errors.insert("query".into(), vec![error.inner().to_string()]);
                }
                break;
            }
            errors.insert(name.clone(), vec![error.inner().to_string()]);
            pairs.retain(|(key, _)| *key != name);
        }
        Err(ApiError::Validation {
            detail: "The request has invalid fields.".into(),
            errors,
        })
    }
}

/// Where a request came from, as its network (`crate::source`): API Gateway's
/// `requestContext.http.sourceIp` on Lambda (an `X-Forwarded-For` there is the client's own
/// say, and ignored); in `local-api` the TCP peer, or, when the peer is loopback (a proxy on
/// this machine, or a test), the leftmost address of `X-Forwarded-For` that parses; `Unknown`
/// when none is known. The budgets a stranger could spend for somebody else (failed import
/// secrets, login codes) are counted per source network, so that requests from one network
/// cannot lock out a person or an integration coming from another.
impl<S: Send + Sync> FromRequestParts<S> for SourceNetwork {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        use lambda_http::request::RequestContext;
        if let Some(RequestContext::ApiGatewayV2(context)) =
            parts.extensions.get::<RequestContext>()
        {
            let ip = context
                .http
                .source_ip
                .as_deref()
                .and_then(|ip| ip.parse().ok());
            return Ok(ip.map_or(Self::Unknown, Self::of));
        }
        if let Some(axum::extract::ConnectInfo(peer)) = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        {
            let forwarded = peer
                .ip()
                .is_loopback()
                .then(|| leftmost_forwarded(&parts.headers))
                .flatten();
            return Ok(Self::of(forwarded.unwrap_or(peer.ip())));
        }
        Ok(Self::Unknown)
    }
}

/// The leftmost address of the `X-Forwarded-For` headers (in order) that parses: the client
/// as the first proxy saw it.
fn leftmost_forwarded(headers: &http::HeaderMap) -> Option<std::net::IpAddr> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .find_map(|entry| entry.trim().parse().ok())
}
