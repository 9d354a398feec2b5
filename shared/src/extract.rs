//! Request extractors and the negotiated JSON response: the one way every function reads a
//! body, a path id, and answers with JSON.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{HeaderValue, StatusCode, header};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldErrors};
use crate::source::SourceNetwork;

/// Default body limit (DESIGN.md section 3); bulk endpoints widen it through the parameter.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;

/// A JSON request body of at most `LIMIT` bytes, in `application/json`, `text/json` or
/// `application/*+json` (charset allowed). Errors: 415, 413, 400 with field paths.
#[derive(Debug, Clone)]
pub struct Json<T, const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub T);

fn is_json_content_type(headers: &http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Ok(mime) = value.parse::<mime::Mime>() else {
        return false;
    };
    match (
        mime.type_().as_str(),
        mime.subtype().as_str(),
        mime.suffix(),
    ) {
        ("application", "json", _) | ("text", "json", _) => true,
        ("application", _, Some(suffix)) => suffix == mime::JSON,
        _ => false,
    }
}

/// Decodes JSON, naming the path of every field whose value does not parse: after a field
/// fails, it is taken out and the rest decoded again, so one answer lists them all (up to
/// `MAX_FIELD_ERRORS`). Rules between fields, and required fields, are the handler's, once
/// every value has parsed.
pub fn decode_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    decode_json_then(bytes, Ok)
}

/// Like `decode_json`, then `rules` (between fields, or needing the portal's region) on the
/// value. When some fields do not parse, `rules` still runs on the body without them, and its
/// field errors join theirs: one answer names every field, whatever layer found it.
pub fn decode_json_then<T: DeserializeOwned, U>(
    bytes: &[u8],
    rules: impl Fn(T) -> Result<U, ApiError>,
) -> Result<U, ApiError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') && expects_object::<T>() {
        let mut errors = FieldErrors::new();
        errors.insert("$".into(), vec!["must be a JSON object".into()]);
        return Err(ApiError::Validation {
            detail: "The body does not have the expected shape.".into(),
            errors,
        });
    }
    let bytes = integral_numbers(bytes);
    let (path, error) = match decode_once::<T>(&bytes) {
        Ok(value) => return rules(value),
        Err(failure) => failure,
    };
    let detail = if error.is_syntax() || error.is_eof() {
        "The body is not well-formed JSON."
    } else {
        "The body does not have the expected shape."
    };
    let mut errors = FieldErrors::new();
    errors.insert(path.clone(), vec![error.to_string()]);
    if let Ok(mut document) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        let mut failed = path;
        while errors.len() < MAX_FIELD_ERRORS && remove_at(&mut document, &failed) {
            let again = serde_json::to_vec(&document).expect("a JSON value serialises");
            match decode_once::<T>(&again) {
                // Taking a required field out makes the body miss it: not news.
                Err((path, error)) if path != "$" && !errors.contains_key(&path) => {
                    errors.insert(path.clone(), vec![error.to_string()]);
                    failed = path;
                }
                Ok(rest) => {
                    if let Err(ApiError::Validation { errors: more, .. }) = rules(rest) {
                        for (path, messages) in more {
                            errors.entry(path).or_insert(messages);
                        }
                    }
                    break;
                }
                Err(_) => break,
            }
        }
    }
    Err(ApiError::Validation {
        detail: detail.into(),
        errors,
    })
}

/// The most fields one 400 names.
const MAX_FIELD_ERRORS: usize = 32;

fn decode_once<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, (String, serde_json::Error)> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = match error.path().to_string() {
            path if path == "." => "$".to_string(),
            path => path,
        };
        (path, error.into_inner())
    })?;
    // Trailing characters after the document make it malformed too.
    deserializer
        .end()
        .map_err(|error| ("$".to_string(), error))?;
    Ok(value)
}

/// Takes out the value at a path as serde_path_to_error writes it (`name`, `[2].retries`,
/// `transcript[0].message`); false when there is nothing there to take out.
fn remove_at(document: &mut serde_json::Value, path: &str) -> bool {
    let mut segments = Vec::new();
    for part in path.split('.') {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            segments.push(Err(key.to_string()));
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            match index.trim_end_matches(']').parse::<usize>() {
                Ok(i) => segments.push(Ok(i)),
                Err(_) => return false,
            }
        }
    }
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut at = document;
    for segment in parents {
        let next = match segment {
            Ok(i) => at.get_mut(*i),
            Err(key) => at.get_mut(key.as_str()),
        };
        match next {
            Some(next) => at = next,
            None => return false,
        }
    }
    match (last, at) {
        (Err(key), serde_json::Value::Object(map)) => map.remove(key).is_some(),
        _ => false,
    }
}

/// Whether `T` reads a JSON object. serde's derived structs also take an array of their
/// fields in order, which no client means (`[true]` would be a logout of every session); a
/// probe deserializer notes whether `T` asks for a struct first, and fails at once.
fn expects_object<T: DeserializeOwned>() -> bool {
    use serde::de::value::Error;
    use serde::de::{Error as _, Visitor};

    struct Probe<'a>(&'a std::cell::Cell<bool>);

    impl<'de> serde::Deserializer<'de> for Probe<'_> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Error::custom("probe"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Error> {
            self.0.set(true);
            Err(Error::custom("probe"))
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Error> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }

    let object = std::cell::Cell::new(false);
    let _ = T::deserialize(Probe(&object));
    object.get()
}

/// The body with every number written as an integer with a zero fraction (`27059.0`) written
/// without it, outside strings: JSON Schema counts `1.0` as an integer, serde's integer types
/// do not. Other numbers and all strings are left byte for byte; most bodies are borrowed as
/// they are.
fn integral_numbers(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            match byte {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if byte.is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let mut end = i;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if end < bytes.len() && bytes[end] == b'.' {
                let mut zeros = end + 1;
                while zeros < bytes.len() && bytes[zeros] == b'0' {
                    zeros += 1;
                }
                let followed = bytes.get(zeros).copied();
                let number_ends = !followed
                    .is_some_and(|b| b.is_ascii_digit() || b == b'e' || b == b'E' || b == b'.');
                if zeros > end + 1 && number_ends {
                    spans.push((end, zeros));
                }
                i = zeros;
                continue;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for (start, end) in spans {
        out.extend_from_slice(&bytes[from..start]);
        from = end;
    }
    out.extend_from_slice(&bytes[from..]);
    std::borrow::Cow::Owned(out)
}

/// The raw bytes of a JSON request body of at most `LIMIT` bytes, with the same content-type
/// and size checks as `Json`: for a handler that must see the exact bytes (a signature check)
/// before it decodes them with `decode_json`.
#[derive(Debug, Clone)]
pub struct JsonBytes<const LIMIT: usize = DEFAULT_BODY_LIMIT>(pub axum::body::Bytes);

impl<S, const LIMIT: usize> FromRequest<S> for JsonBytes<LIMIT>
where
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        if !is_json_content_type(request.headers()) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        if declared.is_some_and(|length| length > LIMIT) {
            return Err(ApiError::PayloadTooLarge { limit: LIMIT });
        }
        axum::body::to_bytes(request.into_body(), LIMIT)
            .await
            .map(JsonBytes)
            .map_err(|error| {
                let over_limit = std::iter::successors(
                    Some(&error as &(dyn std::error::Error + 'static)),
                    |e| e.source(),
                )
                .any(|e| e.is::<http_body_util::LengthLimitError>());
                if over_limit {
                    ApiError::PayloadTooLarge { limit: LIMIT }
                } else {
                    ApiError::BadRequest("The request body could not be read.".into())
                }
            })
    }
}

impl<T, S, const LIMIT: usize> FromRequest<S> for Json<T, LIMIT>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonBytes(bytes) = JsonBytes::<LIMIT>::from_request(request, state).await?;
        decode_json(&bytes).map(Json)
    }
}

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

/// The media types a JSON answer may be labelled with, chosen from `Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFlavour {
    ApplicationJson,
    TextJson,
    TextPlain,
}

impl JsonFlavour {
    fn content_type(self) -> &'static str {
        match self {
            Self::ApplicationJson => "application/json; charset=utf-8",
            Self::TextJson => "text/json; charset=utf-8",
            Self::TextPlain => "text/plain; charset=utf-8",
        }
    }

    /// The most preferred acceptable flavour (`q` weights honoured, ties in header order);
    /// no `Accept` header means application/json; nothing acceptable is 406.
    pub fn negotiate(headers: &http::HeaderMap) -> Result<Self, ApiError> {
        let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
            return Ok(Self::ApplicationJson);
        };
        if accept.trim().is_empty() {
            return Ok(Self::ApplicationJson);
        }
        let mut best: Option<(f32, Self)> = None;
        for range in accept.split(',') {
            let Ok(mime) = range.trim().parse::<mime::Mime>() else {
                continue;
            };
            let quality = mime
                .get_param("q")
                .and_then(|q| q.as_str().parse::<f32>().ok())
                .unwrap_or(1.0);
            let flavour = match (mime.type_().as_str(), mime.subtype().as_str()) {
                ("application", "json") | ("application", "*") | ("*", "*") => {
                    Self::ApplicationJson
                }
                ("text", "json") => Self::TextJson,
                ("text", "plain") => Self::TextPlain,
                ("text", "*") => Self::TextJson,
                _ => continue,
            };
            if quality > 0.0 && best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, flavour));
            }
        }
        best.map(|(_, flavour)| flavour)
            .ok_or(ApiError::NotAcceptable)
    }
}

/// A JSON answer with a status and a negotiated content type.
pub struct JsonResponse<T> {
    pub status: StatusCode,
    pub flavour: JsonFlavour,
    pub body: T,
}

impl<T> JsonResponse<T> {
    pub fn ok(body: T) -> Self {
        Self {
            status: StatusCode::OK,
            flavour: JsonFlavour::ApplicationJson,
            body,
        }
    }

    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    pub fn negotiated(mut self, flavour: JsonFlavour) -> Self {
        self.flavour = flavour;
        self
    }
}

impl<T: Serialize> IntoResponse for JsonResponse<T> {
    fn into_response(self) -> Response {
        match serde_json::to_vec(&self.body) {
            Ok(bytes) => {
                let mut response = (self.status, bytes).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.flavour.content_type()),
                );
                response
            }
            Err(error) => ApiError::internal(error).into_response(),
        }
    }
}

/// One page of a list read with `?limit=N` (and `&cursor=C` after the first): the items as a
/// JSON array and, while more follow, a `Link: <path?limit=N&cursor=next&...>; rel="next"`
/// header (RFC 8288) that repeats the list's filters. Without a limit the list is one page
/// and has no link.
pub struct Paged<T> {
    items: Vec<T>,
    next: Option<String>,
}

impl<T> Paged<T> {
    /// The page `items` of the list at `path`; `next` is the cursor the following page starts
    /// after, `filters` the query's other values in the order they go into the link.
    pub fn new(
        items: Vec<T>,
        path: &str,
        limit: Option<usize>,
        next: Option<String>,
        filters: &[(&str, String)],
    ) -> Self {
        let next = limit.zip(next).map(|(limit, cursor)| {
            let mut link = format!("<{path}?limit={limit}&cursor={}", query_value(&cursor));
            for (name, value) in filters {
                link.push_str(&format!("&{name}={}", query_value(value)));
            }
            link.push_str(">; rel=\"next\"");
            link
        });
        Self { items, next }
    }
}

impl<T: Serialize> IntoResponse for Paged<T> {
    fn into_response(self) -> Response {
        let mut response = JsonResponse::ok(self.items).into_response();
        if let (true, Some(link)) = (response.status().is_success(), self.next) {
            match HeaderValue::from_str(&link) {
                Ok(value) => {
                    response.headers_mut().insert(header::LINK, value);
                }
                Err(error) => return ApiError::internal(error).into_response(),
            }
        }
        response
    }
}

/// A value as it goes into a URL's query: everything but unreserved characters and `:`
/// percent-encoded (a cursor's `#` would otherwise end the URL, an `&` split the query).
pub fn query_value(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Logout {
        #[serde(default)]
        all: bool,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(transparent)]
    struct Wrapped(#[allow(dead_code)] Logout);

    #[test]
    fn a_struct_is_read_from_an_object_only_and_a_list_from_an_array() {
        assert_eq!(
            decode_json::<Logout>(b" {\"all\":true}").unwrap(),
            Logout { all: true }
        );
        for body in [&b"[true]"[..], b"[]", b" \n[false]"] {
            assert!(decode_json::<Logout>(body).is_err());
            assert!(decode_json::<Wrapped>(body).is_err());
        }
        assert_eq!(decode_json::<Vec<i32>>(b"[1,2]").unwrap(), vec![1, 2]);
        assert_eq!(decode_json::<Option<Logout>>(b"null").unwrap(), None);
        assert!(decode_json::<serde_json::Value>(b"[1]").is_ok());
    }

    #[test]
    fn integers_written_with_a_zero_fraction_are_read_as_integers_outside_strings() {
        let body = br#"{"a":27059.0,"b":"1.0 \"2.0\"","c":[1.50,2.000,-3.0e2,0.0],"d":7}"#;
        assert_eq!(
            &*integral_numbers(body),
            br#"{"a":27059,"b":"1.0 \"2.0\"","c":[1.50,2,-3.0e2,0],"d":7}"#
        );
        assert_eq!(decode_json::<i32>(b"5.0").unwrap(), 5);
        assert_eq!(decode_json::<f64>(b"1.0").unwrap(), 1.0);
        assert!(decode_json::<i32>(b"5.5").is_err());
        assert!(matches!(
            integral_numbers(br#"{"a":1}"#),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    async fn source_of(peer: &str, forwarded: &[&str]) -> SourceNetwork {
        let mut request = http::Request::builder().uri("/");
        for value in forwarded {
            request = request.header("x-forwarded-for", *value);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        let peer = std::net::SocketAddr::new(peer.parse().unwrap(), 40_000);
        parts.extensions.insert(axum::extract::ConnectInfo(peer));
        let Ok(source) = SourceNetwork::from_request_parts(&mut parts, &()).await;
        source
    }

    #[tokio::test]
    async fn a_loopback_peer_is_replaced_by_the_leftmost_forwarded_address_that_parses() {
        let network = |text: &str| SourceNetwork::of(text.parse().unwrap());
        let source = source_of("127.0.0.1", &["junk, 2001:db8::7 , 192.0.2.1"]).await;
        assert_eq!(source, network("2001:db8::1"));
        let source = source_of("::1", &["not-an-ip", "192.0.2.9"]).await;
        assert_eq!(source, network("192.0.2.9"));
        assert_eq!(
            source_of("127.0.0.1", &["junk"]).await,
            network("127.0.0.1")
        );
        // Only a proxy on this machine is believed.
        let source = source_of("198.51.100.4", &["192.0.2.1"]).await;
        assert_eq!(source, network("198.51.100.4"));
    }

    #[tokio::test]
    async fn on_lambda_the_source_is_api_gateways_and_the_header_is_ignored() {
        use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
        use lambda_http::request::RequestContext;
        let mut context = ApiGatewayV2httpRequestContext::default();
        context.http.source_ip = Some("2001:db8:5:6::9".into());
        let (mut parts, ()) = http::Request::builder()
            .header("x-forwarded-for", "192.0.2.1")
            .body(())
            .unwrap()
            .into_parts();
        parts
            .extensions
            .insert(RequestContext::ApiGatewayV2(context));
        let Ok(source) = SourceNetwork::from_request_parts(&mut parts, &()).await;
        assert_eq!(source.to_string(), "2001:db8:5:6::/64");
    }
}
