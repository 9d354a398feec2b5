//! The answer every floor gives, so that floors differ only in what they do at start.

pub mod requests;

use lambda_http::http::{HeaderValue, header::CONTENT_TYPE};
use lambda_http::{Body, Error, Request, Response};

pub const HELLO: &str = r#"{"hello":"world"}"#;

pub async fn hello(_: Request) -> Result<Response<Body>, Error> {
    let mut response = Response::new(Body::from(HELLO));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}
