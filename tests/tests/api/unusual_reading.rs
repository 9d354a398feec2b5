//! Unusual reading: an account that opens more distinct clients' records in a period than the
//! threshold is refused with 429 until the period ends, and the portal's admins, and only they,
//! get one `unusual_access` alert for it at the next scheduler pass. Lists are not counted.

use chrono::TimeDelta;
use http::StatusCode;
use integration_tests::{Backend, TestApp, on_both_stores, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use shared::clock::Clock;
use shared::store::reading::ReadingRules;

use crate::demo::{EMIL, KARIN};
use crate::support::pass;

/// The app with `rules` in every function's access layer.
fn with_rules(mut app: TestApp, rules: ReadingRules) -> TestApp {
    app.api.services.rules.reading = rules;
    app.router = app.api.router();
    app
}

async fn past_the_threshold_reads_are_refused_and_the_admins_alerted_once(backend: Backend) {
    let rules = ReadingRules {
        clients: 1,
        period: TimeDelta::hours(1),
    };
    let app = with_rules(spawn_app(backend).await, rules);
    let start = app.clock.now();
    let emil = app.login(EMIL).await;
    let karin = app.login(KARIN).await;

    // Call 1001 is client 1's: one client, at the threshold.
    assert_eq!(
        app.get("/phone-calls/1001", Some(&emil)).await.status,
        StatusCode::OK
    );
    // The same client again is no new client.
    assert_eq!(
        app.get("/phone-calls/1001/requests", Some(&emil))
            .await
            .status,
        StatusCode::OK
    );
    // Call 1003 is client 5's: the second client, over it.
    let refused = app.get("/phone-calls/1003", Some(&emil)).await;
    let problem = refused.problem(StatusCode::TOO_MANY_REQUESTS);
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("more than 1 clients"),
        "{problem}"
    );
    let period_end = rules.period_at(start).end;
    let retry_after = refused.retry_after();
    assert_eq!(retry_after, (period_end - start).num_seconds());
    // Until the period ends every record is refused, a client read before included; the
    // client list is not counted and still answers.
    let again = app.get("/phone-calls/1001", Some(&emil)).await;
    assert_eq!(again.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        app.get("/clients", Some(&emil)).await.status,
        StatusCode::OK
    );
    // Another account of the portal is not slowed by Emil's reading.
    assert_eq!(
        app.get("/phone-calls/1003", Some(&karin)).await.status,
        StatusCode::OK
    );

    // The refused answers are logged as what left: a 429, no data.
    let records = app.access_records(&[1]).await;
    let refused_calls: Vec<u16> = records
        .iter()
        .filter(|r| {
            r.call_ids == [1003]
                && matches!(
                    r.accessor,
                    shared::store::access_log::Accessor::Account { account_id: 4, .. }
                )
        })
        .map(|r| r.status)
        .collect();
    assert_eq!(refused_calls, [429]);

    // The next pass opens one alert for the admins; a second pass opens none.
    let first = pass(&app, start + TimeDelta::minutes(5)).await;
    assert_eq!(first["unusualAccessAlerts"], 1, "{first}");
    let second = pass(&app, start + TimeDelta::minutes(10)).await;
    assert_eq!(second["unusualAccessAlerts"], 0, "{second}");
    let listed = app
        .get("/alerts?reason=unusual_access", Some(&karin))
        .await
        .json();
    let alerts = listed.as_array().unwrap();
    assert_eq!(alerts.len(), 1, "{listed}");
    let alert = &alerts[0];
    assert_eq!(alert["reason"], "unusual_access");
    assert_eq!(alert["accountId"], 4);
    assert_eq!(alert["clientId"], 0);
    assert_eq!(alert["escalation"], "portal_only");
    // Nobody is messaged about it.
    assert!(
        app.alert_messages().is_empty(),
        "{:?}",
        app.alert_messages()
    );

    // Staff never see it, by list or by id, nor acknowledge it.
    let id = alert["id"].as_i64().unwrap();
    let staff_list = app.get("/alerts", Some(&emil)).await;
    // Emil is still over his threshold for records, but a list is not counted.
    assert_eq!(staff_list.status, StatusCode::OK);
    assert!(
        !staff_list
            .json()
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == id),
        "staff see an alert about an account"
    );
    let by_staff = app
        .post_json(
            &format!("/alerts/{id}/acknowledge"),
            Some(&emil),
            json!({"note": "mine"}),
        )
        .await;
    assert_eq!(by_staff.status, StatusCode::NOT_FOUND);
    let by_admin = app
        .post_json(
            &format!("/alerts/{id}/acknowledge"),
            Some(&karin),
            json!({"note": "Emil was preparing the annual review; agreed to use reports instead."}),
        )
        .await;
    assert_eq!(by_admin.status, StatusCode::OK);

    // The next period starts afresh.
    app.clock.set(period_end + TimeDelta::seconds(1));
    let emil = app.login(EMIL).await;
    assert_eq!(
        app.get("/phone-calls/1003", Some(&emil)).await.status,
        StatusCode::OK
    );
}

on_both_stores!(past_the_threshold_reads_are_refused_and_the_admins_alerted_once);

/// Portal 1 with `n` more clients, each with one call (ids 5000 + i).
fn portal_of(n: i32) -> String {
    let mut fixture: Value =
        serde_json::from_str(local_api::DEMO_FIXTURE).expect("the demo fixture is JSON");
    for i in 0..n {
        fixture["clients"].as_array_mut().unwrap().push(json!({
            "id": 5000 + i, "portalId": 1, "name": format!("Klient {i}"),
        }));
        fixture["phoneCalls"].as_array_mut().unwrap().push(json!({
            "id": 50_000 + i, "portalId": 1, "clientId": 5000 + i,
            "startDate": "2026-11-20T08:00:00Z",
        }));
    }
    fixture.to_string()
}

#[tokio::test]
async fn with_the_defaults_paging_through_every_clients_calls_trips_it_at_150() {
    let (app, emil) = spawn_app_with(Backend::Memory, &portal_of(200))
        .await
        .logged_in(EMIL)
        .await;
    let mut answered = 0;
    for i in 0..200 {
        let status = app
            .get(&format!("/phone-calls/{}", 50_000 + i), Some(&emil))
            .await
            .status;
        if status != StatusCode::OK {
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
            break;
        }
        answered += 1;
    }
    assert_eq!(answered, ReadingRules::default().clients);
}
