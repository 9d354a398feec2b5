//! The endpoints by their sample events in `events/`: one table that the event, runtime,
//! hostile-input tests and the benchmark share, and the events with their placeholders filled.

use serde_json::Value;

/// Whether an endpoint's sample event only reads, or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// One endpoint, by its sample event in `events/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    /// `events/{event}.json`.
    pub event: &'static str,
    /// The function that serves it.
    pub function: &'static str,
    /// The status it gets when the events are sent in `ENDPOINTS` order to an API over the
    /// demo fixture with a logged-in token of portal 1.
    pub status: u16,
    pub access: Access,
    /// DESIGN.md section 2: the DynamoDB requests it may make after the session check. A write
    /// that creates records also reserves their ids, one counter update per kind (section 2's
    /// id rule), on top of its one write or one transaction per 100 records.
    pub budget: usize,
    /// What the budget is made of.
    pub budget_reason: &'static str,
}

const READ: &str = "read";
const WRITE: &str = "single-record write";
const WRITE_AND_ID: &str = "1 write + 1 id";
// A request that shows or changes clients' data appends its access record, one
// write (a transaction of the record and each client's copy, 100 items per transaction).
const READ_LOGGED: &str = "read + access record";
const TWO_READS_LOGGED: &str = "read of two item collections + access record";
const WRITE_LOGGED: &str = "single-record write + access record";
const CREATE_LOGGED: &str = "1 transaction per 100 records + 1 id range + access record";
const CALL_LOGGED: &str =
    "1 transaction per 100 records + 3 id ranges (call, lines, requests) + access record";
const URGENT_CALL_LOGGED: &str = "the call's 5 + 1 alert id + the alert's first step (alert, \
     client name, contacts, step, disclosure record)";
const TRANSACTION_LOGGED: &str = "1 transaction per 100 records + access record";
const OUTCOME_LOGGED: &str = "delivery read + entry read + 1 transaction + access record";
const CALLER_CONTEXT: &str = "client by number + open requests + questionnaires + the client's \
     entries + access record";
const TOOL_LOGGED: &str = "live state (tool answers and the recorded call) + 1 transaction + \
     access record";
const EMERGENCY_LOGGED: &str = "live state + client by number + 1 alert id + 1 transaction + \
     the alert's first step (alert, client name, contacts, step, disclosure record) + access \
     record";
const EXTRACT: &str = "client check + read + access record";
const REVIEW: &str =
    "read of the period's record ids + read of the drawn records + review + access record";

const fn read(
    event: &'static str,
    function: &'static str,
    budget: (usize, &'static str),
) -> Endpoint {
    at(event, function, 200, Access::Read, budget)
}

const fn write(
    event: &'static str,
    function: &'static str,
    status: u16,
    budget: (usize, &'static str),
) -> Endpoint {
    at(event, function, status, Access::Write, budget)
}

const fn at(
    event: &'static str,
    function: &'static str,
    status: u16,
    access: Access,
    (budget, budget_reason): (usize, &'static str),
) -> Endpoint {
    Endpoint {
        event,
        function,
        status,
        access,
        budget,
        budget_reason,
    }
}

/// Every sample event in `events/` but the scheduler's, in the order the tests send them.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    write("authentication-request-otp", "authentication", 202, (1, WRITE)),
    write("authentication-validate-otp", "authentication", 401, (1, WRITE)),
    read("phone-calls-get", "phone-calls", (3, TWO_READS_LOGGED)),
    read("phone-calls-requests", "phone-calls", (2, READ_LOGGED)),
    read("clients-list", "clients", (2, READ_LOGGED)),
    write("clients-patch", "clients", 200, (2, WRITE_LOGGED)),
    read("portals-get", "portals", (1, READ)),
    write("portals-import-clients", "portals", 200, (3, CREATE_LOGGED)),
    read("contact-details-list", "contact-details", (1, READ)),
    read("contact-details-get", "contact-details", (1, READ)),
    read("contact-details-active", "contact-details", (1, READ)),
    write("contact-details-put", "contact-details", 200, (1, WRITE)),
    read("questionnaires-list", "questionnaires", (1, READ)),
    read("questionnaires-get", "questionnaires", (3, TWO_READS_LOGGED)),
    write("questionnaires-add-question", "questionnaires", 201, (2, WRITE_AND_ID)),
    write("questionnaires-start-for-clients", "questionnaires", 200, (3, CREATE_LOGGED)),
    read("alerts-list", "questionnaires", (2, READ_LOGGED)),
    // The demo holds no alert (a scheduler pass and a dialler's report make one:
    // tests/tests/api/alerts.rs), so alert 41 is missing here.
    at("alerts-get", "questionnaires", 404, Access::Read, (1, READ)),
    write("alerts-acknowledge", "questionnaires", 404, (1, READ)),
    read("organisations-suggest-unknown-client", "organisations", (3, TWO_READS_LOGGED)),
    write("organisations-fix-unknown-client", "organisations", 200, (2, WRITE_LOGGED)),
    write("integrations-voice-call-ended", "integrations", 200, (5, CALL_LOGGED)),
    write("integrations-voice-call-ended-urgent", "integrations", 200, (11, URGENT_CALL_LOGGED)),
    write("integrations-voice-call-analyzed", "integrations", 200, (2, TRANSACTION_LOGGED)),
    write("integrations-voice-call-failed", "integrations", 200, (4, OUTCOME_LOGGED)),
    read("integrations-voice-inbound", "integrations", (5, CALLER_CONTEXT)),
    write("integrations-voice-tools", "integrations", 200, (3, TOOL_LOGGED)),
    read("integrations-voice-retell-inbound", "integrations", (5, CALLER_CONTEXT)),
    write("integrations-voice-retell-tools", "integrations", 200, (3, TOOL_LOGGED)),
    read("integrations-voice-vapi-assistant-request", "integrations", (5, CALLER_CONTEXT)),
    write("integrations-voice-vapi-tool-calls", "integrations", 200, (3, TOOL_LOGGED)),
    read("integrations-voice-elevenlabs-inbound", "integrations", (5, CALLER_CONTEXT)),
    write("integrations-voice-elevenlabs-record-request", "integrations", 200, (3, TOOL_LOGGED)),
    write("integrations-voice-elevenlabs-report-emergency", "integrations", 200, (10, EMERGENCY_LOGGED)),
    read("access-log-client-extract", "access-log", (3, EXTRACT)),
    read("access-log-list", "access-log", (2, READ_LOGGED)),
    write("access-log-record-review", "access-log", 201, (4, REVIEW)),
    read("access-log-reviews-list", "access-log", (2, READ_LOGGED)),
    write("authentication-logout", "authentication", 204, (1, WRITE)),
];

/// The endpoint of a sample event.
pub fn endpoint(event: &str) -> &'static Endpoint {
    ENDPOINTS
        .iter()
        .find(|endpoint| endpoint.event == event)
        .unwrap_or_else(|| panic!("no endpoint has the sample event {event}"))
}

/// The EventBridge event that runs the questionnaire scheduler.
pub const SCHEDULED_EVENT: &str = "questionnaire-scheduler-scheduled";

/// The text of `events/{name}.json`.
pub fn sample_event(name: &str) -> String {
    let path = format!("{}/../events/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What a sample event's placeholders stand for.
pub struct EventSecrets<'a> {
    pub token: &'a str,
    pub import_secret: &'a str,
    pub webhook_secret: &'a str,
    /// The header secret of portal 1's ElevenLabs agent.
    pub header_secret: &'a str,
    /// The Retell workspace key that signs Retell's webhooks.
    pub retell_api_key: &'a str,
    /// The time a voice-platform delivery is signed at (the receiver's now).
    pub signed_at: i64,
}

/// A sample event with its placeholders filled in; a voice-platform delivery is signed over
/// its body as delivered.
pub fn prepared_event(name: &str, secrets: &EventSecrets<'_>) -> String {
    prepared(sample_event(name), secrets)
}

/// A sample event changed by `edit` (the event as JSON, its body as JSON when it has one),
/// then given its credentials like `prepared_event`: for a test that needs the same request
/// with other values, such as a fresh `eventId` that is not a repeated delivery.
pub fn edited_event(
    name: &str,
    secrets: &EventSecrets<'_>,
    edit: impl FnOnce(&mut Value, Option<&mut Value>),
) -> String {
    let mut event: Value = serde_json::from_str(&sample_event(name)).expect("an event is JSON");
    let mut body: Option<Value> = event["body"]
        .as_str()
        .map(|text| serde_json::from_str(text).expect("a sample body is JSON"));
    edit(&mut event, body.as_mut());
    if let Some(body) = body {
        event["body"] = Value::String(body.to_string());
    }
    prepared(event.to_string(), secrets)
}

fn prepared(text: String, secrets: &EventSecrets<'_>) -> String {
    let mut text = text
        .replace("REPLACE_WITH_A_SESSION_TOKEN", secrets.token)
        .replace(
            "REPLACE_WITH_THE_PORTAL_IMPORT_SECRET",
            secrets.import_secret,
        );
    text = text.replace(
        "REPLACE_WITH_THE_PORTAL_HEADER_SECRET",
        secrets.header_secret,
    );
    // The body as delivered, before any signature is filled in (the body holds none).
    let body = serde_json::from_str::<Value>(&text).expect("an event is JSON")["body"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if text.contains("REPLACE_WITH_A_SIGNATURE") {
        let signature = shared::webhook::signature_header(
            secrets.webhook_secret,
            secrets.signed_at,
            body.as_bytes(),
        );
        text = text.replace("REPLACE_WITH_A_SIGNATURE", &signature);
    }
    if text.contains("REPLACE_WITH_A_RETELL_SIGNATURE") {
        let signature = shared::provider_auth::retell_signature(
            secrets.retell_api_key,
            secrets.signed_at * 1000,
            body.as_bytes(),
        );
        text = text.replace("REPLACE_WITH_A_RETELL_SIGNATURE", &signature);
    }
    if text.contains("REPLACE_WITH_A_VAPI_SIGNATURE") {
        let timestamp = secrets.signed_at.to_string();
        let signature = shared::provider_auth::vapi_signature(
            secrets.webhook_secret,
            &timestamp,
            body.as_bytes(),
        );
        text = text
            .replace("REPLACE_WITH_A_VAPI_SIGNATURE", &signature)
            .replace("REPLACE_WITH_A_VAPI_TIMESTAMP", &timestamp);
    }
    text
}
