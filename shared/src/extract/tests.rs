//! The extractors' unit tests: decoding, and where a request came from.

use axum::extract::FromRequestParts;

use super::decode::integral_numbers;
use super::decode_json;
use crate::source::SourceNetwork;

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
