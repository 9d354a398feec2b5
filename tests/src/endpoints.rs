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
    /// What its answer's body holds (nothing to check for a refusal or an empty answer).
    pub shape: &'static [Check],
}

/// One thing an answer's body holds, at a JSON pointer into it (`""` is the body itself,
/// `"/0"` its first item).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// An object with these fields.
    Fields(&'static str, &'static [&'static str]),
    /// An array (`true`: with at least one item).
    Array(&'static str, bool),
    /// This JSON value, written as JSON.
    Equals(&'static str, &'static str),
    /// A string holding this text.
    Contains(&'static str, &'static str),
    /// An integer.
    Integer(&'static str),
}

impl Endpoint {
    /// Panics, naming the event, unless `body` holds every check of the endpoint's shape.
    pub fn check_shape(&self, body: &Value) {
        let name = self.event;
        for check in self.shape {
            let at = |pointer: &str| {
                body.pointer(pointer)
                    .unwrap_or_else(|| panic!("{name}: nothing at {pointer:?} in {body}"))
            };
            match *check {
                Check::Fields(pointer, fields) => {
                    for field in fields {
                        assert!(
                            at(pointer).get(field).is_some(),
                            "{name}: no {field} in {body}"
                        );
                    }
                }
                Check::Array(pointer, non_empty) => {
                    let items = at(pointer).as_array();
                    assert!(items.is_some(), "{name}: not a list at {pointer:?}: {body}");
                    assert!(
                        !non_empty || items.is_some_and(|items| !items.is_empty()),
                        "{name}: an empty list at {pointer:?}"
                    );
                }
                Check::Equals(pointer, json) => {
                    let expected: Value = serde_json::from_str(json).expect("a check's JSON");
                    assert_eq!(*at(pointer), expected, "{name}: at {pointer:?} in {body}");
                }
                Check::Contains(pointer, text) => assert!(
                    at(pointer)
                        .as_str()
                        .is_some_and(|found| found.contains(text)),
                    "{name}: no {text:?} at {pointer:?} in {body}"
                ),
                Check::Integer(pointer) => {
                    assert!(
                        at(pointer).is_i64(),
                        "{name}: no integer at {pointer:?} in {body}"
                    )
                }
            }
        }
    }
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
    shape: &'static [Check],
) -> Endpoint {
    at(event, function, 200, Access::Read, budget, shape)
}

const fn write(
    event: &'static str,
    function: &'static str,
    status: u16,
    budget: (usize, &'static str),
    shape: &'static [Check],
) -> Endpoint {
    at(event, function, status, Access::Write, budget, shape)
}

const fn at(
    event: &'static str,
    function: &'static str,
    status: u16,
    access: Access,
    (budget, budget_reason): (usize, &'static str),
    shape: &'static [Check],
) -> Endpoint {
    Endpoint {
        event,
        function,
        status,
        access,
        budget,
        budget_reason,
        shape,
    }
}

// What the answers hold.
use Check::{Array, Contains, Equals, Fields, Integer};
const NONE: &[Check] = &[];
const LIST: &[Check] = &[Array("", false)];
const CALL_ID: &[Check] = &[Integer("/phoneCallId")];
const WROTE_IT_DOWN: &[Check] = &[Contains("/result", "written that down")];
const KNOWN_CALLER: &[Check] = &[
    Fields(
        "/variables",
        &[
            "knownCaller",
            "firstName",
            "openRequests",
            "questionnaireClientId",
        ],
    ),
    Equals("/variables/knownCaller", "\"true\""),
];

/// Every sample event in `events/` but the scheduler's, in the order the tests send them.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    write("authentication-request-otp", "authentication", 202, (1, WRITE), &[Fields("", &["requestId", "expiresAt"])]),
    write("authentication-validate-otp", "authentication", 401, (1, WRITE), NONE),
    read("phone-calls-get", "phone-calls", (3, TWO_READS_LOGGED), &[Fields("/0", &["id", "startDate", "transcript", "isUnknown"])]),
    read("phone-calls-requests", "phone-calls", (2, READ_LOGGED), LIST),
    read("clients-list", "clients", (2, READ_LOGGED), LIST),
    write("clients-patch", "clients", 200, (2, WRITE_LOGGED), &[Fields("", &["id", "name", "totalCalls", "lastCallAt"])]),
    read("portals-get", "portals", (1, READ), &[Fields("", &["id", "organisationId", "name"])]),
    write("portals-import-clients", "portals", 200, (3, CREATE_LOGGED), &[Fields("", &["created", "existing", "invalid"])]),
    read("contact-details-list", "contact-details", (1, READ), LIST),
    read("contact-details-get", "contact-details", (1, READ), &[Fields("", &["id", "priority", "isActive"])]),
    read("contact-details-active", "contact-details", (1, READ), LIST),
    write("contact-details-put", "contact-details", 200, (2, WRITE_LOGGED), &[Fields("", &["id", "priority", "isActive"])]),
    read("questionnaires-list", "questionnaires", (1, READ), LIST),
    read("questionnaires-get", "questionnaires", (3, TWO_READS_LOGGED), &[Fields("", &["questions", "answers", "clients"])]),
    write("questionnaires-add-question", "questionnaires", 201, (2, WRITE_AND_ID), &[Fields("", &["id", "position", "prompt"])]),
    write("questionnaires-start-for-clients", "questionnaires", 200, (3, CREATE_LOGGED), &[Fields("", &["created", "alreadyScheduled"])]),
    read("alerts-list", "questionnaires", (2, READ_LOGGED), LIST),
    // The demo holds no alert (a scheduler pass and a dialler's report make one:
    // tests/tests/api/alerts.rs), so alert 41 is missing here.
    at("alerts-get", "questionnaires", 404, Access::Read, (1, READ), NONE),
    write("alerts-acknowledge", "questionnaires", 404, (1, READ), NONE),
    read("organisations-suggest-unknown-client", "organisations", (3, TWO_READS_LOGGED), &[Fields("", &["clientId", "confidence", "candidates"])]),
    write("organisations-fix-unknown-client", "organisations", 200, (2, WRITE_LOGGED), &[Fields("", &["id", "clientId", "isUnknown"])]),
    write("integrations-voice-call-ended", "integrations", 200, (5, CALL_LOGGED), CALL_ID),
    write("integrations-voice-call-ended-urgent", "integrations", 200, (11, URGENT_CALL_LOGGED), CALL_ID),
    write("integrations-voice-call-analyzed", "integrations", 200, (2, TRANSACTION_LOGGED), CALL_ID),
    write("integrations-voice-call-failed", "integrations", 200, (4, OUTCOME_LOGGED), &[Equals("", r#"{"phoneCallId": null}"#)]),
    read("integrations-voice-inbound", "integrations", (5, CALLER_CONTEXT), KNOWN_CALLER),
    write("integrations-voice-tools", "integrations", 200, (3, TOOL_LOGGED), WROTE_IT_DOWN),
    read("integrations-voice-retell-inbound", "integrations", (5, CALLER_CONTEXT), &[Equals("/call_inbound/dynamic_variables/knownCaller", "\"true\"")]),
    write("integrations-voice-retell-tools", "integrations", 200, (3, TOOL_LOGGED), &[Contains("", "written that down")]),
    read("integrations-voice-vapi-assistant-request", "integrations", (5, CALLER_CONTEXT), &[Equals("/assistantId", "\"asst_care\""), Equals("/assistantOverrides/variableValues/knownCaller", "\"true\"")]),
    write("integrations-voice-vapi-tool-calls", "integrations", 200, (3, TOOL_LOGGED), &[Equals("/results/0/toolCallId", "\"call_tc_0001\"")]),
    read("integrations-voice-elevenlabs-inbound", "integrations", (5, CALLER_CONTEXT), &[Equals("/dynamic_variables/knownCaller", "\"true\"")]),
    write("integrations-voice-elevenlabs-record-request", "integrations", 200, (3, TOOL_LOGGED), WROTE_IT_DOWN),
    write("integrations-voice-elevenlabs-report-emergency", "integrations", 200, (10, EMERGENCY_LOGGED), &[Contains("/result", "alerted the staff")]),
    read("access-log-client-extract", "access-log", (3, EXTRACT), LIST),
    read("access-log-list", "access-log", (2, READ_LOGGED), &[Array("", true), Fields("/0", &["id", "at", "accessor", "action", "clientIds", "status"])]),
    write("access-log-record-review", "access-log", 201, (4, REVIEW), &[Fields("", &["id", "drawn", "population", "records"])]),
    read("access-log-reviews-list", "access-log", (2, READ_LOGGED), LIST),
    write("authentication-logout", "authentication", 204, (1, WRITE), NONE),
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
