//! The OpenAPI 3.1 document of the whole API: every function's paths (from their `ApiDoc`s),
//! then the rules that hold for every route, applied here once so no handler repeats them.

use serde_json::{Map, Value, json};
use utoipa::OpenApi;

/// The records of interface v1: always serialised with every field (`null` where empty).
const RECORDS: [&str; 12] = [
    "PhoneCall",
    "TranscriptLine",
    "ClientRequest",
    "ContactDetail",
    "Client",
    "Portal",
    "QuestionnaireSummary",
    "QuestionnaireDetail",
    "Question",
    "Answer",
    "QuestionnaireClientEntry",
    "Account",
];

const DESCRIPTION: &str = "\
The call-handling service, interface v1. Staff log in with a one-time code sent by SMS \
(`POST /authentication/request-otp`, then `validate-otp`) and send the session token as \
`Authorization: Bearer <token>` on every other request, except the client import (authorised \
by its portal's secret) and the voice platform's signed events.

Request bodies are JSON (`application/json`, `text/json` or `application/*+json`, charset \
allowed), at most 256 KiB (import: 1 MiB; events: 1 MiB). Timestamps are RFC 3339 in UTC with \
`Z` on output; any offset is accepted on input. Path ids are int32 above 0.

Every error is `application/problem+json` (RFC 9457) with `type`, `title`, `status`, `detail`, \
`traceId`, and `errors` (field to messages) for validation failures. Text fields (format \
`plain-text`, or `prose` where line breaks are allowed) refuse control characters, Unicode \
format characters (bidirectional controls, zero-width characters, byte order marks), and \
unassigned and private-use code points. A record of another \
tenant answers exactly like a missing one (404). List endpoints return the whole list; \
`GET /clients` and the access log page with `?limit=N` and a `Link` header.

Every request that reads or changes clients' personal data leaves an access record (who, in \
which portal, what, which clients and calls, when, the trace id and the answer's status) \
before its answer leaves; when the record cannot be written the answer is a 503 problem and \
carries no data. Admins read the log under `/access-log`.";

/// The whole API's document, as served at `/openapi.json` and checked in as `openapi.json`.
pub fn document() -> Value {
    let mut doc = authentication::ApiDoc::openapi();
    for part in [
        phone_calls::ApiDoc::openapi(),
        clients::ApiDoc::openapi(),
        portals::ApiDoc::openapi(),
        contact_details::ApiDoc::openapi(),
        questionnaires::ApiDoc::openapi(),
        organisations::ApiDoc::openapi(),
        integrations::ApiDoc::openapi(),
        access_log::ApiDoc::openapi(),
    ] {
        doc.merge(part);
    }
    let mut doc = serde_json::to_value(doc).expect("the document is JSON");
    doc["info"] = json!({
        "title": "Call-handling service",
        "version": "v1",
        "description": DESCRIPTION,
        // The workspace's `license = "UNLICENSED"`: not offered for use outside its operator.
        "license": {"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
        "contact": {"name": "The call-handling service's maintainers"},
    });
    // Only the deployed API: a published document does not point at localhost, where
    // `local-api` and `sam local start-api` serve the same paths on port 3000.
    doc["servers"] = json!([{
        "url": "https://{apiId}.execute-api.{region}.amazonaws.com",
        "description": "A deployed stack: its `ApiUrl` output. Locally, `local-api` and \
            `sam local start-api` serve the same paths at `http://localhost:3000`.",
        "variables": {
            "apiId": {"default": "abcdef1234", "description": "The stack's HTTP API id."},
            "region": {"default": "eu-north-1", "description": "The stack's region."},
        },
    }]);
    doc["tags"] = Value::Array(
        TAGS.iter()
            .map(|(name, description)| json!({"name": name, "description": description}))
            .collect(),
    );
    doc["components"]["securitySchemes"] = json!({
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "The `token` of `POST /authentication/validate-otp`: valid 12 hours, \
                ended by 2 hours without a request or by logout.",
        }
    });
    strict_records(&mut doc);
    record_examples(&mut doc);
    text_formats(&mut doc);
    lone_one_of(&mut doc);
    for operation in operations(&mut doc) {
        common_rules(operation);
    }
    doc
}

/// The operation tags, in the order a reader meets them, each with what it covers.
const TAGS: [(&str, &str); 10] = [
    (
        "authentication",
        "Login by a one-time code sent by SMS, sessions and logout.",
    ),
    (
        "phone calls",
        "Calls with their transcripts, and the requests raised in them.",
    ),
    ("clients", "The portal's clients and their contact fields."),
    (
        "portals",
        "The caller's portal, and the anonymous client import of external integrations.",
    ),
    (
        "contact details",
        "The portal's own contacts, with priorities and contact windows.",
    ),
    (
        "questionnaires",
        "Questionnaires, their questions, and starting them for clients by phone.",
    ),
    (
        "alerts",
        "Clients the questionnaire calls could not reach: escalated to the portal's final-outpost contacts until staff acknowledge them.",
    ),
    (
        "organisations",
        "Calls from unknown numbers: suggesting and linking their client.",
    ),
    (
        "integrations",
        "The voice platform's signed events: ended and analysed calls.",
    ),
    (
        "access log",
        "Who read or changed clients' personal data; admins only.",
    ),
];

/// utoipa wraps a `$ref` with a description or default of its own in a `oneOf` of one, as
/// OpenAPI 3.0 ignored a `$ref`'s siblings; 3.1 keeps them, so the `$ref` stands beside them.
fn lone_one_of(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Array(members)) = object.get("oneOf")
                && let [Value::Object(only)] = members.as_slice()
            {
                let only = only.clone();
                object.remove("oneOf");
                for (key, member) in only {
                    object.entry(key).or_insert(member);
                }
            }
            // An optional wire type (`Option<Text<100>>`) comes as `oneOf: [null, string]`;
            // written as `type: [string, null]` it reads as every other optional field.
            if let Some(Value::Array(members)) = object.get("oneOf")
                && let [null, Value::Object(inner)] = members.as_slice()
                && *null == serde_json::json!({"type": "null"})
                && let Some(Value::String(kind)) = inner.get("type")
            {
                let mut inner = inner.clone();
                inner.insert("type".into(), serde_json::json!([kind, "null"]));
                object.remove("oneOf");
                for (key, member) in inner {
                    object.entry(key).or_insert(member);
                }
            }
            object.values_mut().for_each(lone_one_of);
        }
        Value::Array(items) => items.iter_mut().for_each(lone_one_of),
        _ => {}
    }
}

/// Names the rule of every text field as its `format` (`plain-text`, or `prose` where line
/// breaks are allowed): beyond what its pattern says, text refuses Unicode format characters,
/// unassigned and private-use code points (`shared::wire::is_hidden`), which a regular
/// expression cannot list.
fn text_formats(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let format = match object.get("pattern").and_then(Value::as_str) {
                Some(shared::openapi::TEXT | shared::openapi::REQUIRED_TEXT) => Some("plain-text"),
                Some(shared::openapi::PROSE | shared::openapi::REQUIRED_PROSE) => Some("prose"),
                _ => None,
            };
            // A field with a format of its own (`phone`) keeps it.
            if let Some(format) = format {
                object.entry("format").or_insert_with(|| format.into());
            }
            object.values_mut().for_each(text_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(text_formats),
        _ => {}
    }
}

/// The operations of every path.
fn operations(doc: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(Value::as_object_mut)
}

/// Records are written with every field, so in an answer each one is present (possibly
/// `null`); the defaults serde fills in for missing input are not part of an answer.
fn strict_records(doc: &mut Value) {
    for name in RECORDS {
        let schema = &mut doc["components"]["schemas"][name];
        let Some(properties) = schema["properties"].as_object_mut() else {
            continue;
        };
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut() {
                property.remove("default");
            }
        }
        let required: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        schema["required"] = Value::Array(required);
    }
}

/// One example per record, taken from the demo fixture `local-api` serves.
fn record_examples(doc: &mut Value) {
    let fixture: Value = serde_json::from_str(crate::DEMO_FIXTURE).expect("the fixture is JSON");
    let first = |key: &str| fixture[key][0].clone();
    let call = first("phoneCalls");
    let questionnaire = first("questionnaires");
    let mut summary = questionnaire.clone();
    if let Some(object) = summary.as_object_mut() {
        for detail in ["questions", "answers", "clients"] {
            object.remove(detail);
        }
    }
    let examples = [
        ("PhoneCall", call.clone()),
        ("TranscriptLine", call["transcript"][0].clone()),
        ("ClientRequest", first("clientRequests")),
        ("ContactDetail", first("contactDetails")),
        ("Client", first("clients")),
        ("Portal", first("portals")),
        ("QuestionnaireSummary", summary),
        ("QuestionnaireDetail", questionnaire.clone()),
        ("Question", questionnaire["questions"][0].clone()),
        ("Answer", questionnaire["answers"][0].clone()),
        (
            "QuestionnaireClientEntry",
            questionnaire["clients"][0].clone(),
        ),
        ("Account", first("accounts")),
    ];
    for (name, mut example) in examples {
        if example.is_null() {
            continue;
        }
        let schema = &mut doc["components"]["schemas"][name];
        // The fixture format has fields the record does not show (a questionnaire's owner).
        if let (Some(fields), Some(properties)) =
            (example.as_object_mut(), schema["properties"].as_object())
        {
            fields.retain(|field, _| properties.contains_key(field));
        }
        schema["examples"] = json!([example]);
    }
}

fn problem(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    })
}

fn header(description: &str, schema: Value) -> Value {
    json!({"description": description, "schema": schema})
}

/// The answers every route may give besides its own: what the extractors, the session check
/// and the store do the same way everywhere.
fn common_rules(operation: &mut Map<String, Value>) {
    // No session: the operation's description says what authorises it instead (a signature,
    // the portal's secret in the body, or nothing for the login itself).
    operation.entry("security").or_insert_with(|| json!([]));
    let secured = operation
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty());
    let has_body = operation.contains_key("requestBody");
    let has_id = operation
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|ps| ps.iter().any(|p| p["in"] == "path"));
    let has_query = operation
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));

    if let Some(content) = operation
        .get_mut("requestBody")
        .and_then(|body| body.get_mut("content"))
        .and_then(Value::as_object_mut)
        && let Some(json) = content.get("application/json").cloned()
    {
        content.insert("text/json".into(), json);
    }

    let responses = operation
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("responses is an object");
    // Problems are labelled with their own media type.
    for response in responses.values_mut() {
        if let Some(content) = response.get_mut("content").and_then(Value::as_object_mut)
            && let Some(body) = content.remove("application/json")
        {
            if body["schema"]["$ref"] == "#/components/schemas/Problem" {
                content.insert("application/problem+json".into(), body);
            } else {
                content.insert("application/json".into(), body);
            }
        }
    }
    let mut add = |status: &str, response: Value| {
        responses.entry(status).or_insert(response);
    };
    if has_body || has_id || has_query {
        add(
            "400",
            problem("A malformed id, query or body, or invalid fields (`errors` names each)."),
        );
    }
    if secured {
        let mut unauthorized =
            problem("No session, or one that is unknown, expired, idle too long or logged out.");
        unauthorized["headers"] = json!({
            "WWW-Authenticate": header("`Bearer realm=\"call-handling\"`", json!({"type": "string"})),
        });
        add("401", unauthorized);
    }
    if has_body {
        add("413", problem("The body is over the route's size limit."));
        add(
            "415",
            problem("The body is not application/json, text/json or application/*+json."),
        );
    }
    add(
        "500",
        problem("An internal error; logged with the `traceId`, no details given."),
    );
    add(
        "503",
        problem("DynamoDB throttled or failed; retry after `Retry-After`."),
    );
    let retry_after = json!({
        "Retry-After": header("Seconds to wait.", json!({"type": "integer", "minimum": 1})),
    });
    for status in ["429", "503"] {
        if let Some(response) = responses.get_mut(status) {
            response["headers"] = retry_after.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_pattern_in_the_document_is_one_the_validators_share() {
        fn patterns<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
            match value {
                Value::Object(object) => {
                    if let Some(Value::String(pattern)) = object.get("pattern") {
                        found.push(pattern);
                    }
                    object.values().for_each(|v| patterns(v, found));
                }
                Value::Array(items) => items.iter().for_each(|v| patterns(v, found)),
                _ => {}
            }
        }
        let doc = document();
        let mut found = Vec::new();
        patterns(&doc, &mut found);
        let known = [
            shared::openapi::TEXT,
            shared::openapi::REQUIRED_TEXT,
            shared::openapi::PROSE,
            shared::openapi::REQUIRED_PROSE,
            shared::openapi::TIME,
            shared::openapi::OTP,
            shared::openapi::SAID,
            shared::openapi::LOG_CURSOR,
        ];
        assert!(found.len() > 10, "{found:?}");
        for pattern in found {
            assert!(
                known.contains(&pattern),
                "{pattern} is not in shared::openapi"
            );
        }
    }

    #[test]
    fn only_the_login_the_import_and_the_voice_platforms_routes_are_without_a_session() {
        let mut doc = document();
        let public: Vec<String> = operations(&mut doc)
            .filter(|operation| operation["security"] == json!([]))
            .map(|operation| operation["operationId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            public,
            [
                "request_otp",
                "validate_otp",
                "elevenlabs_inbound",
                "elevenlabs_record_request",
                "elevenlabs_report_emergency",
                "voice_event",
                "inbound_call",
                "retell_inbound",
                "retell_tool",
                "voice_tool",
                "vapi_message",
                "import_clients"
            ]
        );
        for operation in operations(&mut doc) {
            assert!(operation["security"].is_array(), "{operation:?}");
        }
    }

    #[test]
    fn records_list_every_field_as_required_and_problems_have_their_media_type() {
        let doc = document();
        let call = &doc["components"]["schemas"]["PhoneCall"];
        assert_eq!(call["required"].as_array().unwrap().len(), 20);
        assert_eq!(
            call["properties"]["endDate"]["type"],
            json!(["string", "null"])
        );
        assert!(call["properties"]["id"].get("default").is_none());
        let not_found = &doc["paths"]["/phone-calls/{id}"]["get"]["responses"]["404"];
        assert!(not_found["content"]["application/problem+json"].is_object());
        let patch = &doc["paths"]["/clients/{id}"]["patch"];
        assert!(patch["requestBody"]["content"]["text/json"].is_object());
        assert!(patch["responses"]["401"]["headers"]["WWW-Authenticate"].is_object());
    }
}
