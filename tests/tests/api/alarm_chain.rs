//! The daily test of a portal's alarm chain: at its time, one SMS marked as a test reaches the
//! contact it names through the real escalation path, the test alert is acknowledged at once
//! and listed only when asked for, the result reaches the operator, and a chain that reaches
//! nobody reports failure. Each scenario on both stores.

use chrono::{DateTime, NaiveTime, TimeDelta, Utc};
use integration_tests::{Backend, TestApp, on_both_stores, quiet_demo, spawn_app_with};
use questionnaire_scheduler::ChainTest;
use serde_json::{Value, json};
use shared::ids::PortalId;
use shared::notify::Channel;

use crate::demo::{DAY, KARIN};
use crate::support::pass;

/// 09:00 in Stockholm on a winter day.
fn nine_in_the_morning() -> DateTime<Utc> {
    "2026-11-20T08:00:00Z".parse().unwrap()
}

/// The demo without entries, with portal 1's alarm chain tested daily from 08:30 on contact
/// 301, changed by `change` first.
async fn spawn_tested(backend: Backend, change: impl FnOnce(&mut Value)) -> TestApp {
    let mut fixture = quiet_demo();
    change(&mut fixture);
    let mut app = spawn_app_with(backend, &fixture.to_string()).await;
    app.api.scheduler_config.chain_tests = vec![ChainTest {
        portal_id: PortalId(1),
        at: NaiveTime::from_hms_opt(8, 30, 0).unwrap(),
        contact_detail_id: 301,
    }];
    app
}

fn operator_notices(app: &TestApp) -> Vec<(String, Value)> {
    app.api
        .outbox
        .messages()
        .into_iter()
        .filter(|m| m.channel == Channel::Operator)
        .map(|m| (m.to, serde_json::from_str(&m.message).unwrap()))
        .collect()
}

async fn a_working_chain_sends_one_test_sms_and_reports_success(backend: Backend) {
    let app = spawn_tested(backend, |_| {}).await;

    // Before its time nothing is tested.
    let early = pass(&app, nine_in_the_morning() - TimeDelta::hours(1)).await;
    assert_eq!(early["chainTests"], Value::Null, "{early}");
    assert!(app.alert_messages().is_empty());

    let report = pass(&app, nine_in_the_morning()).await;
    let result = &report["chainTests"][0];
    assert_eq!(result["passed"], true, "{report}");
    assert_eq!(result["portalId"], 1);
    assert_eq!(result["day"], "2026-11-20");
    assert_eq!(result["problem"], Value::Null);
    let messages = app.alert_messages();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].0, DAY);
    assert!(
        messages[0].1.starts_with("TEST / TEST:"),
        "{}",
        messages[0].1
    );
    assert!(
        messages[0]
            .1
            .contains(&format!("Test alert {}", result["alertId"]))
    );

    let notices = operator_notices(&app);
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].0, "Alarm-chain test passed for portal 1");
    assert_eq!(&notices[0].1, result);

    // The test alert is acknowledged, listed only when asked for, and never among real ones.
    let token = app.login(KARIN).await;
    let real = app.get("/alerts", Some(&token)).await.json();
    assert_eq!(
        real,
        json!([]),
        "test alerts are never mixed with real ones"
    );
    let tests = app.get("/alerts?reason=test", Some(&token)).await.json();
    assert_eq!(tests.as_array().unwrap().len(), 1, "{tests}");
    assert_eq!(tests[0]["id"], result["alertId"]);
    assert_eq!(tests[0]["status"], "acknowledged");
    assert_eq!(tests[0]["notifications"][0]["contactDetailId"], 301);
    let shown = app
        .get(&format!("/alerts/{}", result["alertId"]), Some(&token))
        .await
        .json();
    assert_eq!(shown["note"], "Daily alarm-chain test: passed.");

    // The same day again, or a retried pass, tests nothing more; the next day tests again.
    let again = pass(&app, nine_in_the_morning() + TimeDelta::hours(3)).await;
    assert_eq!(again["chainTests"], Value::Null, "{again}");
    assert_eq!(app.alert_messages().len(), 1);
    let tomorrow = pass(&app, nine_in_the_morning() + TimeDelta::days(1)).await;
    assert_eq!(tomorrow["chainTests"][0]["passed"], true, "{tomorrow}");
    assert_eq!(tomorrow["chainTests"][0]["day"], "2026-11-21");
    assert_eq!(app.alert_messages().len(), 2);
}

async fn a_chain_with_no_reachable_contact_reports_failure(backend: Backend) {
    let app = spawn_tested(backend, |fixture| {
        for contact in fixture["contactDetails"].as_array_mut().unwrap() {
            if contact["id"] == 301 {
                contact["isActive"] = json!(false);
            }
        }
    })
    .await;

    let report = pass(&app, nine_in_the_morning()).await;
    let result = &report["chainTests"][0];
    assert_eq!(result["passed"], false, "{report}");
    assert_eq!(result["problem"], "the contact is not active");
    assert!(
        app.alert_messages().is_empty(),
        "nobody else is messaged instead"
    );
    let notices = operator_notices(&app);
    assert_eq!(notices[0].0, "Alarm-chain test FAILED for portal 1");
    assert_eq!(notices[0].1["passed"], false);

    // Left as it is, the failed test's alert is never escalated to anyone by a later pass.
    pass(&app, nine_in_the_morning() + TimeDelta::minutes(10)).await;
    assert!(app.alert_messages().is_empty());
    let token = app.login(KARIN).await;
    let tests = app.get("/alerts?reason=test", Some(&token)).await.json();
    assert_eq!(tests[0]["status"], "acknowledged", "{tests}");
    assert_eq!(
        tests[0]["note"],
        "Daily alarm-chain test: failed, the contact is not active."
    );
}

on_both_stores!(
    a_working_chain_sends_one_test_sms_and_reports_success,
    a_chain_with_no_reachable_contact_reports_failure,
);
