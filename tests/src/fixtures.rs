//! Fixtures built from the demo data: quieter, larger, or with clients and entries added.

use serde_json::Value;

use local_api::DEMO_FIXTURE;

use crate::app::*;

/// The demo fixture without its questionnaire entries, so that only a test's own fall due.
pub fn quiet_demo() -> Value {
    let mut fixture: Value = serde_json::from_str(DEMO_FIXTURE).unwrap();
    fixture["questionnaires"][0]["clients"] = serde_json::json!([]);
    fixture
}

/// A copy of the fixture's first client (portal 1) as client `id` with its own primary number,
/// and without the national id, which must be unique in a portal.
pub fn copy_of_first_client(fixture: &Value, id: i32, primary_number: String) -> Value {
    let mut client = fixture["clients"][0].clone();
    client["id"] = serde_json::json!(id);
    client["nationalId"] = Value::Null;
    client["primaryNumber"] = serde_json::json!(primary_number);
    client
}

/// Adds a copy of the fixture's first questionnaire as questionnaire `id`, owned by
/// `organisation` (`None`: a shared template), without entries or answers, its questions
/// numbered from `first_question`.
pub fn add_questionnaire_copy(
    fixture: &mut Value,
    id: i64,
    organisation: Option<i64>,
    first_question: i64,
) {
    let mut questionnaire = fixture["questionnaires"][0].clone();
    questionnaire["id"] = serde_json::json!(id);
    questionnaire["organisationId"] = serde_json::json!(organisation);
    questionnaire["clients"] = serde_json::json!([]);
    questionnaire["answers"] = serde_json::json!([]);
    let questions = questionnaire["questions"].as_array_mut().unwrap();
    for (question, number) in questions.iter_mut().zip(first_question..) {
        question["id"] = serde_json::json!(number);
        question["questionnaireId"] = serde_json::json!(id);
    }
    fixture["questionnaires"]
        .as_array_mut()
        .unwrap()
        .push(questionnaire);
}

/// The quiet demo fixture plus `n` clients of portal 1 (ids from 100,000), for list sizes.
pub fn fixture_with_clients(n: usize) -> String {
    let mut fixture = quiet_demo();
    for i in 0..n as i32 {
        let number = format!("+4673{:07}", 1_000_000 + i);
        let mut client = copy_of_first_client(&fixture, 100_000 + i, number.clone());
        client["phone"] = serde_json::json!(number);
        fixture["clients"].as_array_mut().unwrap().push(client);
    }
    fixture.to_string()
}

/// The quiet demo fixture plus `n` clients of portal 1, each with an entry of questionnaire 11
/// due at the start time.
pub fn fixture_with_due_entries(n: i32) -> String {
    fixture_with_due_entries_ending(n, 0)
}

/// As `fixture_with_due_entries`, but the first `ending` entries belong to questionnaire 12, a
/// copy of 11 with one try: their first attempt is their last, so nobody reached ends them in
/// an alert. Portal 1's day contact (301, 07:00-16:00) is a final-outpost contact.
pub fn fixture_with_due_entries_ending(n: i32, ending: i32) -> String {
    let mut fixture = quiet_demo();
    if ending > 0 {
        add_questionnaire_copy(&mut fixture, 12, Some(1), 9_000);
        let copy = fixture["questionnaires"].as_array().unwrap().len() - 1;
        fixture["questionnaires"][copy]["maxTries"] = serde_json::json!(1);
        for contact in fixture["contactDetails"].as_array_mut().unwrap() {
            if contact["id"] == 301 {
                contact["contactWhenFinalOutpost"] = serde_json::json!(true);
            }
        }
    }
    for i in 0..n {
        let client = copy_of_first_client(&fixture, 100 + i, format!("+467320{i:05}"));
        fixture["clients"].as_array_mut().unwrap().push(client);
        let questionnaire = if i < ending {
            fixture["questionnaires"].as_array().unwrap().len() - 1
        } else {
            0
        };
        fixture["questionnaires"][questionnaire]["clients"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "id": 100_000 + i,
                "clientId": 100 + i,
                "questionnaireId": if i < ending { 12 } else { 11 },
                "phoneCallId": null,
                "createdAt": "2026-11-10T08:00:00Z",
                "nextTryAt": start_time()
            }));
    }
    fixture.to_string()
}

/// A valid Swedish personnummer (12 digits) for every `n` below 1,000,000: births spread over
/// 1930-1949, serial and Luhn digit computed.
pub fn personnummer(n: u32) -> String {
    let year = 1930 + n % 20;
    let month = 1 + (n / 20) % 12;
    let day = 1 + (n / 240) % 28;
    let serial = (n / 6720) % 1000;
    let nine = format!("{:02}{month:02}{day:02}{serial:03}", year % 100);
    let check = shared::national_id::luhn_digit(&nine);
    format!("{}{nine}{check}", year / 100)
}
