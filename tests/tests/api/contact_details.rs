//! Contact-detail scenarios, each on both stores: lists, one record, the active ones by their
//! windows in Stockholm time (midnight and daylight saving included), and replacement.

use http::StatusCode;
use integration_tests::{
    Backend, TestApp, access_record_write, error_fields, on_both_stores, spawn_app, without_trace,
};
use serde_json::{Value, json};
use shared::store::access_log::{Action, Outcome};

use crate::demo::{EMIL, KARIN};
use crate::support::{at, ids, spawn_logged_in};

async fn the_portals_contact_details_come_by_priority_then_id(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/contact-details", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    app.expect_requests(&[("GetItem", 1), ("Query", 1)]);
    let list = answer.json();
    assert_eq!(ids(&list, "id"), [301, 303, 302]);
    assert_eq!(list[0].as_object().unwrap().len(), 11);
    assert_eq!(list[0]["contactBetweenStart"], "07:00");
}

async fn one_contact_detail_is_read_and_another_portals_is_not_found(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let answer = app.get("/contact-details/303", Some(&token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    app.expect_requests(&[("GetItem", 2)]);
    assert_eq!(answer.json()["name"], "Night patrol");
    let missing = app.get("/contact-details/99999", Some(&token)).await;
    let missing = without_trace(missing.problem(StatusCode::NOT_FOUND));
    let foreign = app.get("/contact-details/304", Some(&token)).await;
    assert_eq!(
        without_trace(foreign.problem(StatusCode::NOT_FOUND)),
        missing
    );
    let foreign_put = app
        .put_json(
            "/contact-details/304",
            Some(&token),
            json!({"name": "Taken over", "priority": 1, "isActive": true}),
        )
        .await;
    assert_eq!(
        without_trace(foreign_put.problem(StatusCode::NOT_FOUND)),
        missing
    );
    let ahmed = app.login("+46701000002").await;
    let theirs = app.get("/contact-details/304", Some(&ahmed)).await.json();
    assert_eq!(
        theirs["name"], "Lidingö office",
        "portal 2's record unchanged"
    );
}

/// Portal 1: 301 day 07:00-16:00 (priority 1), 302 evening 16:00-22:00 (2), 303 night
/// 22:00-07:00 (1). Instants in UTC, in time order (each login is an OTP send).
const ACTIVE_AT: [(&str, &[i64]); 17] = [
    // The last night of winter time (UTC+1), then the first summer morning (UTC+2).
    ("2026-03-28T05:59:59Z", &[303]),
    ("2026-03-28T06:00:00Z", &[301]),
    ("2026-03-29T04:59:59Z", &[303]),
    ("2026-03-29T05:00:00Z", &[301]),
    // Summer time ends on 25 October: 07:00 is 05:00 UTC before, 06:00 UTC after.
    ("2026-10-24T05:00:00Z", &[301]),
    ("2026-10-25T05:00:00Z", &[303]),
    ("2026-10-25T05:59:59Z", &[303]),
    ("2026-10-25T06:00:00Z", &[301]),
    // A November day (UTC+1), every edge.
    ("2026-11-20T05:59:59Z", &[303]),
    ("2026-11-20T06:00:00Z", &[301]),
    ("2026-11-20T14:59:59Z", &[301]),
    ("2026-11-20T15:00:00Z", &[302]),
    ("2026-11-20T20:59:59Z", &[302]),
    ("2026-11-20T21:00:00Z", &[303]),
    ("2026-11-20T22:59:59Z", &[303]),
    ("2026-11-20T23:00:00Z", &[303]),
    ("2026-11-21T02:30:00Z", &[303]),
];

async fn active_contact_details_follow_their_windows_in_stockholm_time(backend: Backend) {
    let app = spawn_app(backend).await;
    for (instant, expected) in ACTIVE_AT {
        let token = app.login_at(KARIN, at(instant)).await;
        app.take_dynamo_requests();
        let answer = app.get("/contact-details/active", Some(&token)).await;
        assert_eq!(answer.status, StatusCode::OK);
        app.expect_requests(&[("GetItem", 1), ("Query", 1)]);
        assert_eq!(ids(&answer.json(), "id"), expected, "at {instant}");
    }
}

async fn inactive_and_all_day_contacts_and_ties_in_priority(backend: Backend) {
    let app = spawn_app(backend).await;
    let token = app.login_at(KARIN, at("2026-11-20T23:30:00Z")).await;
    // 302 becomes an all-day contact with priority 1; 303 is switched off.
    for (id, body) in [
        (
            302,
            json!({"name": "Evening staff Solna", "priority": 1, "isActive": true,
                   "contactBetweenStart": null, "contactBetweenEnd": null}),
        ),
        (
            303,
            json!({"name": "Night patrol", "priority": 1, "isActive": false,
                   "contactBetweenStart": "22:00", "contactBetweenEnd": "07:00"}),
        ),
    ] {
        let answer = app
            .put_json(&format!("/contact-details/{id}"), Some(&token), body)
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    }
    let night = app
        .get("/contact-details/active", Some(&token))
        .await
        .json();
    assert_eq!(ids(&night, "id"), [302]);
    let token = app.login_at(KARIN, at("2026-11-21T09:00:00Z")).await;
    let morning = app
        .get("/contact-details/active", Some(&token))
        .await
        .json();
    assert_eq!(ids(&morning, "id"), [301, 302], "equal priority: by id");
}

async fn a_put_replaces_the_editable_fields_and_returns_the_record(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = app.get("/contact-details/302", Some(&token)).await.json();
    app.take_dynamo_requests();
    let answer = app
        .put_json(
            "/contact-details/302",
            Some(&token),
            json!({
                "name": " Kvällspersonal ",
                "contactNumber": "08-700 10 61",
                "contactEmail": "kvall@solna.example",
                "contactBetweenStart": "15:30:00",
                "contactBetweenEnd": "23:00",
                "priority": 0,
                "isActive": true
            }),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    app.expect_requests(&[("GetItem", 1), ("UpdateItem", 1), access_record_write(0)]);
    let record = answer.json();
    assert_eq!(record["name"], "Kvällspersonal");
    assert_eq!(record["contactNumber"], "+4687001061");
    assert_eq!(record["contactBetweenStart"], "15:30:00");
    assert_eq!(record["priority"], 0);
    for kept in ["id", "portalId", "createdAt", "contactWhenFinalOutpost"] {
        assert_eq!(record[kept], before[kept], "{kept}");
    }
    assert_eq!(
        app.get("/contact-details/302", Some(&token)).await.json(),
        record
    );
    let list = app.get("/contact-details", Some(&token)).await.json();
    assert_eq!(ids(&list, "id"), [302, 301, 303], "priority 0 comes first");
    // 302 was active with +4687001060, which no longer receives the portal's alerts.
    assert_eq!(told_no_longer_alerted(&app), ["+4687001060"]);

    let cleared = app
        .put_json(
            "/contact-details/302",
            Some(&token),
            json!({"name": "Kväll", "priority": 2, "isActive": false, "contactEmail": ""}),
        )
        .await
        .json();
    assert_eq!(cleared["contactEmail"], Value::Null);
    assert_eq!(cleared["contactNumber"], Value::Null);
    assert_eq!(cleared["contactBetweenStart"], Value::Null);
}

async fn invalid_contact_details_are_refused_field_by_field(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = app.get("/contact-details", Some(&token)).await.json();
    let cases = [
        (
            json!({"name": "", "priority": -1, "contactEmail": "nobody",
                   "contactBetweenStart": "25:00", "contactBetweenEnd": "7pm",
                   "contactNumber": "ring me"}),
            vec![
                "contactBetweenEnd",
                "contactBetweenStart",
                "contactEmail",
                "contactNumber",
                "name",
            ],
        ),
        // Required fields and ranges are checked once every value has parsed.
        (
            json!({"name": "A", "priority": -1, "isActive": true}),
            vec!["priority"],
        ),
        (json!({"name": "A", "priority": 1}), vec!["isActive"]),
        (
            json!({"name": "A", "priority": 1, "isActive": true, "contactBetweenStart": "08:00"}),
            vec!["contactBetweenEnd"],
        ),
        (
            json!({"name": "A", "priority": 2147483648i64, "isActive": true}),
            vec!["priority"],
        ),
    ];
    for (body, fields) in cases {
        let answer = app
            .put_json("/contact-details/301", Some(&token), body.clone())
            .await;
        let problem = answer.problem(StatusCode::BAD_REQUEST);
        let named = error_fields(&problem);
        assert_eq!(named, fields, "{body}");
    }
    for body in [
        json!({"name": "A", "priority": 1, "isActive": true, "portalId": 2}),
        json!({"name": "A", "priority": "1", "isActive": true}),
        json!({"name": "A", "priority": 1, "isActive": "yes"}),
    ] {
        app.put_json("/contact-details/301", Some(&token), body)
            .await
            .problem(StatusCode::BAD_REQUEST);
    }
    assert_eq!(
        app.get("/contact-details", Some(&token)).await.json(),
        before
    );
}

/// The numbers told by SMS that they no longer receive the portal's alerts, oldest first.
fn told_no_longer_alerted(app: &TestApp) -> Vec<String> {
    app.alert_messages()
        .into_iter()
        .filter(|(_, message)| message.contains("no longer receives"))
        .map(|(to, message)| {
            assert!(!message.contains("Gunnel"), "no client in {message}");
            to
        })
        .collect()
}

fn detail_301(number: &str, active: bool, name: &str) -> Value {
    json!({
        "name": name, "contactNumber": number, "contactEmail": null,
        "contactBetweenStart": "08:00", "contactBetweenEnd": "16:00",
        "priority": 1, "isActive": active
    })
}

/// Staff read the contact details, and only admins change them: the numbers there receive the
/// portal's alerts, with clients' names. A staff member's attempt is refused, changes nothing,
/// sends nothing, and is logged as a denial.
async fn staff_read_contact_details_and_only_admins_change_them(backend: Backend) {
    let (app, staff) = spawn_logged_in(backend, EMIL).await;
    let before = app.get("/contact-details", Some(&staff)).await;
    assert_eq!(before.status, StatusCode::OK);
    let answer = app
        .put_json(
            "/contact-details/303",
            Some(&staff),
            detail_301("+46701234567", true, "Night patrol"),
        )
        .await;
    let problem = answer.problem(StatusCode::FORBIDDEN);
    assert!(
        problem["detail"].as_str().unwrap().contains("admin"),
        "{problem}"
    );
    assert_eq!(
        app.get("/contact-details", Some(&staff)).await.json(),
        before.json()
    );
    assert_eq!(told_no_longer_alerted(&app), Vec::<String>::new());
    let records = app.access_records(&[1]).await;
    let attempt = records
        .iter()
        .find(|record| record.action == Action::UpdateContactDetail)
        .expect("the attempt is logged");
    assert_eq!((attempt.status, attempt.outcome), (403, Outcome::Denied));
}

/// A change that keeps a number receiving alerts tells nobody; one that takes a number out
/// (deactivated, or replaced) tells that number, once; a number coming in is not told.
async fn a_number_that_stops_receiving_alerts_is_told_once(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let put = |body: Value| app.put_json("/contact-details/301", Some(&token), body);
    assert_eq!(
        put(detail_301("+4687001050", true, "Dagpersonal"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        told_no_longer_alerted(&app),
        Vec::<String>::new(),
        "a new name only"
    );
    assert_eq!(
        put(detail_301("+4687001050", false, "Dagpersonal"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(told_no_longer_alerted(&app), ["+4687001050"], "deactivated");
    assert_eq!(
        put(detail_301("+4687001051", false, "Dagpersonal"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        put(detail_301("+4687001051", true, "Dagpersonal"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        told_no_longer_alerted(&app),
        ["+4687001050"],
        "inactive numbers and newcomers"
    );
    assert_eq!(
        put(detail_301("+4687001052", true, "Dagpersonal"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        told_no_longer_alerted(&app),
        ["+4687001050", "+4687001051"],
        "replaced"
    );
    let changes = app
        .access_records(&[1])
        .await
        .into_iter()
        .filter(|record| record.action == Action::UpdateContactDetail)
        .count();
    assert_eq!(changes, 5, "every change is logged");
}

on_both_stores!(
    the_portals_contact_details_come_by_priority_then_id,
    one_contact_detail_is_read_and_another_portals_is_not_found,
    active_contact_details_follow_their_windows_in_stockholm_time,
    inactive_and_all_day_contacts_and_ties_in_priority,
    a_put_replaces_the_editable_fields_and_returns_the_record,
    invalid_contact_details_are_refused_field_by_field,
    staff_read_contact_details_and_only_admins_change_them,
    a_number_that_stops_receiving_alerts_is_told_once,
);
