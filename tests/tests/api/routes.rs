//! One set of routes everywhere: the HTTP API routes `template.yaml` declares, the routes the
//! sample events in `events/` are for, the operations of the OpenAPI document, and the routes
//! `local-api` serves; and the checked-in `openapi.json` is the document the code generates.

use std::collections::BTreeSet;

use axum::body::Body;
use http::{Method, Request};
use integration_tests::{Backend, ENDPOINTS, sample_event, spawn_app};
use serde_json::Value;

/// `METHOD /path` of every `HttpApi` event of every function in the template.
fn template_routes() -> BTreeSet<String> {
    let template: serde_yaml::Value =
        serde_yaml::from_str(shared::store::schema::TEMPLATE).unwrap();
    let mut routes = BTreeSet::new();
    for (_, resource) in template["Resources"].as_mapping().unwrap() {
        let Some(events) = resource["Properties"]["Events"].as_mapping() else {
            continue;
        };
        for (_, event) in events {
            if event["Type"] == "HttpApi" {
                let properties = &event["Properties"];
                routes.insert(format!(
                    "{} {}",
                    properties["Method"].as_str().unwrap(),
                    properties["Path"].as_str().unwrap()
                ));
            }
        }
    }
    routes
}

fn event_routes() -> BTreeSet<String> {
    ENDPOINTS
        .iter()
        .map(|endpoint| {
            let event: Value = serde_json::from_str(&sample_event(endpoint.event)).unwrap();
            event["routeKey"].as_str().unwrap().to_string()
        })
        .collect()
}

/// `METHOD /path` of every operation of the OpenAPI document.
fn openapi_routes() -> BTreeSet<String> {
    let document = local_api::openapi::document();
    let mut routes = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            routes.insert(format!("{} {path}", method.to_uppercase()));
        }
    }
    routes
}

#[test]
fn the_template_the_sample_events_and_the_openapi_document_have_the_same_routes() {
    let template = template_routes();
    assert_eq!(template.len(), 35, "{template:?}");
    assert_eq!(template, event_routes());
    assert_eq!(template, openapi_routes());
}

#[test]
fn the_checked_in_openapi_json_is_the_document_the_code_generates() {
    let generated = local_api::openapi::document();
    let checked_in: Value =
        serde_json::from_str(include_str!("../../../openapi.json")).expect("openapi.json is JSON");
    assert!(
        checked_in == generated,
        "openapi.json is stale: run `cargo run -p local-api -- --openapi > openapi.json`"
    );
}

#[tokio::test]
async fn local_api_serves_every_declared_route_and_nothing_nearby() {
    let app = spawn_app(Backend::Memory).await;
    let not_a_route = |body: &Value| body["detail"] == "No route matches this path.";
    for route in template_routes() {
        let (method, path) = route.split_once(' ').unwrap();
        let request = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).unwrap())
            .uri(path.replace("{id}", "1"))
            .body(Body::empty())
            .unwrap();
        let answer = app.send(request).await;
        assert_ne!(
            answer.status,
            http::StatusCode::METHOD_NOT_ALLOWED,
            "{route}"
        );
        if answer.status == http::StatusCode::NOT_FOUND {
            assert!(!not_a_route(&answer.json()), "{route} is not served");
        }
    }
    for (method, path) in [
        (Method::GET, "/phone-call/1"),
        (Method::DELETE, "/clients/1"),
        (Method::GET, "/integrations/voice/events"),
        (Method::POST, "/portals"),
    ] {
        let request = Request::builder()
            .method(method.clone())
            .uri(path)
            .body(Body::empty())
            .unwrap();
        let answer = app.send(request).await;
        assert!(
            answer.status == http::StatusCode::NOT_FOUND
                || answer.status == http::StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path} answered {}",
            answer.status
        );
    }
}

#[tokio::test]
async fn local_api_serves_the_document_and_a_reference_page_with_its_own_assets() {
    let app = spawn_app(Backend::Memory).await;
    let served = app.get("/openapi.json", None).await;
    assert_eq!(served.status, http::StatusCode::OK);
    assert_eq!(served.json(), local_api::openapi::document());
    let page = app.get("/docs/", None).await;
    assert_eq!(page.status, http::StatusCode::OK);
    let html = String::from_utf8(page.body).unwrap();
    assert!(html.contains("swagger-ui-bundle.js"), "{html}");
    // Nothing is fetched from elsewhere: every script and stylesheet is a relative path.
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "{html}"
    );
    for asset in [
        "swagger-ui-bundle.js",
        "swagger-ui.css",
        "swagger-initializer.js",
    ] {
        let answer = app.get(&format!("/docs/{asset}"), None).await;
        assert_eq!(answer.status, http::StatusCode::OK, "{asset}");
        assert!(answer.body.len() > 100, "{asset}");
    }
}
