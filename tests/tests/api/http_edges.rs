//! Body, content-type, compression and routing edges shared by every endpoint, on both stores.

use std::io::Read;

use http::StatusCode;
use integration_tests::{Backend, fixture_with_clients, on_both_stores, spawn_app, spawn_app_with};

const PATH: &str = "/authentication/request-otp";

async fn json_media_types_are_accepted_and_others_get_415(backend: Backend) {
    let app = spawn_app(backend).await;
    let body = br#"{"phoneNumber":"+46701000001"}"#.to_vec();
    for accepted in [
        "application/json",
        "application/json; charset=utf-8",
        "text/json",
        "application/merge-patch+json",
    ] {
        let answer = app.post_raw(PATH, None, accepted, body.clone()).await;
        assert_eq!(answer.status, StatusCode::ACCEPTED, "{accepted}");
        app.clock.advance(chrono::Duration::hours(1));
    }
    for refused in [
        "text/plain",
        "application/xml",
        "multipart/form-data",
        "json",
        "",
    ] {
        let answer = app.post_raw(PATH, None, refused, body.clone()).await;
        answer.problem(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
}

async fn bodies_over_256_kib_get_413(backend: Backend) {
    let app = spawn_app(backend).await;
    let padding = "x".repeat(256 * 1024);
    let body = format!(r#"{{"phoneNumber":"{padding}"}}"#).into_bytes();
    let answer = app.post_raw(PATH, None, "application/json", body).await;
    answer.problem(StatusCode::PAYLOAD_TOO_LARGE);
}

async fn malformed_json_wrong_types_and_unknown_fields_get_400_with_the_field(backend: Backend) {
    let app = spawn_app(backend).await;
    let cases: [(&[u8], &str); 7] = [
        (b"{\"phoneNumber\":", "phoneNumber"),
        (b"not json", "$"),
        (b"{\"phoneNumber\":\"+46701000001\"} trailing", "$"),
        (b"{\"phoneNumber\":5}", "phoneNumber"),
        (
            b"{\"phoneNumber\":\"+46701000001\",\"admin\":true}",
            "admin",
        ),
        (b"{}", "$"),
        (b"{\"phoneNumber\":\"\xff\xfe\"}", "phoneNumber"),
    ];
    for (body, field) in cases {
        let answer = app
            .post_raw(PATH, None, "application/json", body.to_vec())
            .await;
        let problem = answer.problem(StatusCode::BAD_REQUEST);
        let errors = problem["errors"].as_object().unwrap();
        assert!(
            errors.keys().any(|k| k.contains(field)),
            "{}: {problem}",
            String::from_utf8_lossy(body)
        );
    }
    let not_a_number = app
        .post_raw(
            PATH,
            None,
            "application/json",
            br#"{"phoneNumber":"hello"}"#.to_vec(),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert!(not_a_number["errors"]["phoneNumber"].is_array());
}

async fn unknown_routes_and_methods_answer_with_problems(backend: Backend) {
    let app = spawn_app(backend).await;
    app.get("/no-such-thing", None)
        .await
        .problem(StatusCode::NOT_FOUND);
    app.get(PATH, None)
        .await
        .problem(StatusCode::METHOD_NOT_ALLOWED);
}

/// Lambda answers are limited to 6 MB: a large list is gzipped for a client that accepts it.
async fn large_answers_are_gzipped_for_clients_that_accept_gzip(backend: Backend) {
    let app = spawn_app_with(backend, &fixture_with_clients(200)).await;
    let token = app.login("+46701000001").await;
    let plain = app.get("/clients", Some(&token)).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(plain.headers.get("content-encoding").is_none());
    assert!(plain.body.len() > usize::from(shared::runtime::COMPRESS_FROM_BYTES));

    let zipped = app
        .get_with(
            "/clients",
            Some(&token),
            &[("accept-encoding", "gzip, deflate, br")],
        )
        .await;
    assert_eq!(zipped.status, StatusCode::OK);
    assert_eq!(zipped.headers["content-encoding"], "gzip");
    assert_eq!(zipped.headers["vary"], "accept-encoding");
    assert!(
        zipped.body.len() * 5 < plain.body.len(),
        "{} bytes",
        zipped.body.len()
    );
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(zipped.body.as_slice())
        .read_to_end(&mut text)
        .unwrap();
    assert_eq!(text, plain.body, "the same answer, compressed");

    let small = app
        .get_with("/portals/1", Some(&token), &[("accept-encoding", "gzip")])
        .await;
    assert_eq!(small.status, StatusCode::OK);
    assert!(
        small.headers.get("content-encoding").is_none(),
        "small answers stay as they are"
    );
}

on_both_stores!(
    large_answers_are_gzipped_for_clients_that_accept_gzip,
    json_media_types_are_accepted_and_others_get_415,
    bodies_over_256_kib_get_413,
    malformed_json_wrong_types_and_unknown_fields_get_400_with_the_field,
    unknown_routes_and_methods_answer_with_problems,
);

mod streamed {
    use super::*;

    /// Without a Content-Length the limit is enforced while reading, and still answers 413.
    #[tokio::test]
    async fn a_chunked_body_over_the_limit_gets_413() {
        let app = spawn_app(Backend::Memory).await;
        let chunks = (0..300).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1024]));
        let body = axum::body::Body::from_stream(futures::stream::iter(chunks));
        let request = http::Request::post(PATH)
            .header("content-type", "application/json")
            .body(body)
            .unwrap();
        app.send(request)
            .await
            .problem(StatusCode::PAYLOAD_TOO_LARGE);
    }
}
