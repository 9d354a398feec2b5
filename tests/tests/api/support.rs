//! Helpers more than one scenario module uses.

use chrono::{DateTime, Utc};
use integration_tests::quiet_demo;
use serde_json::{Value, json};

/// The `field` of every item of a JSON list.
pub fn ids(list: &Value, field: &str) -> Vec<i64> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|item| item[field].as_i64().unwrap())
        .collect()
}

/// An RFC 3339 time.
pub fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// The quiet demo with every contact of portal 1 a final outpost: the escalation's SMS go to
/// each of them.
pub fn final_outpost_demo() -> Value {
    let mut fixture = quiet_demo();
    for contact in fixture["contactDetails"].as_array_mut().unwrap() {
        if contact["portalId"] == 1 {
            contact["contactWhenFinalOutpost"] = json!(true);
        }
    }
    fixture
}
