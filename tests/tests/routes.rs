//! One set of routes everywhere: the HTTP API routes `template.yaml` declares, the routes the
//! sample events in `events/` are for, and the routes `local-api` serves.

use std::collections::BTreeSet;

use axum::body::Body;
use http::{Method, Request};
use integration_tests::{Backend, SAMPLE_EVENTS, sample_event, spawn_app};
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
    SAMPLE_EVENTS
        .iter()
        .map(|(name, ..)| {
            let event: Value = serde_json::from_str(&sample_event(name)).unwrap();
            event["routeKey"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn the_template_declares_exactly_the_routes_the_sample_events_are_for() {
    let template = template_routes();
    assert_eq!(template.len(), 20, "{template:?}");
    assert_eq!(template, event_routes());
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
