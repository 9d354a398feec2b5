//! Unit tests of the voice events' parsing and checks.

use super::*;
use serde_json::json;

fn ended() -> Value {
    json!({
        "type": "call.ended",
        "eventId": "evt-1",
        "conversationUuid": "conv-1",
        "startDate": "2026-11-20T10:00:00Z",
        "endDate": "2026-11-20T10:03:00Z",
        "fromNumber": "070-123 45 67",
        "toNumber": "+4618100100",
        "direction": "inbound",
        "dynamicVariables": {"questionnaireClientId": "41", "language": "sv"},
        "transcript": [
            {"createdAt": "2026-11-20T10:00:05Z", "by": "agent", "message": "Hej!", "category": 0},
            {"createdAt": "2026-11-20T10:00:09Z", "by": "caller", "message": "Flytta besöket.", "category": 1}
        ],
        "requests": [{"request": "Move the visit to Friday.", "transcriptLineIndex": 1}]
    })
}

fn parse(value: Value) -> Result<VoiceEvent, ApiError> {
    VoiceEvent::decode(value.to_string().as_bytes(), DefaultRegion::default())
}

fn error_fields(error: ApiError) -> Vec<String> {
    match error {
        ApiError::Validation { errors, .. } => errors.into_keys().collect(),
        other => panic!("not a validation error: {other:?}"),
    }
}

#[test]
fn a_call_ended_event_is_read_and_normalised() {
    let VoiceEvent::CallEnded(event) = parse(ended()).unwrap() else {
        panic!("call.ended");
    };
    assert_eq!(event.from_number, "+46701234567");
    assert_eq!(event.client_number(), "+46701234567");
    assert_eq!(event.questionnaire_client_id(), Some(41));
    assert_eq!(event.transcript[1].category, TranscriptCategory::Caller);
}

#[test]
fn every_bad_field_of_a_call_ended_event_is_named() {
    let mut body = ended();
    body["endDate"] = json!("2026-11-20T09:00:00Z");
    body["fromNumber"] = json!("not a number");
    body["eventId"] = json!("  ");
    body["requests"][0]["transcriptLineIndex"] = json!(2);
    assert_eq!(
        error_fields(parse(body).unwrap_err()),
        [
            "endDate",
            "eventId",
            "fromNumber",
            "requests[0].transcriptLineIndex"
        ]
    );
}

#[test]
fn unknown_types_fields_and_categories_are_refused() {
    let mut unknown_type = ended();
    unknown_type["type"] = json!("call.started");
    assert!(parse(unknown_type).is_err());
    let mut extra = ended();
    extra["favouriteColour"] = json!("blue");
    assert!(parse(extra).is_err());
    let mut category = ended();
    category["transcript"][0]["category"] = json!(7);
    assert!(parse(category).is_err());
}

#[test]
fn a_call_analyzed_event_checks_its_ranges_and_answers() {
    let body = json!({
        "type": "call.analyzed", "eventId": "evt-2", "conversationUuid": "conv-1",
        "summary": "Wants Friday.", "confidence": 120, "satisfaction": 4,
        "answers": [{"questionId": 0, "answerText": "Yes", "answeredAt": "2026-11-20T10:01:00Z"}]
    });
    assert_eq!(
        error_fields(parse(body).unwrap_err()),
        ["answers[0].questionId", "confidence"]
    );
}

#[test]
fn questionnaire_entry_ids_come_as_strings_and_variables_are_strings_only() {
    let entry = |value: Value| {
        let mut body = ended();
        body["dynamicVariables"] = json!({ "questionnaireClientId": value });
        match parse(body) {
            Ok(VoiceEvent::CallEnded(event)) => Ok(event.questionnaire_client_id()),
            Ok(_) => panic!("call.ended"),
            Err(_) => Err(()),
        }
    };
    assert_eq!(entry(json!("41")), Ok(Some(41)));
    assert_eq!(entry(json!(" 41 ")), Ok(Some(41)));
    assert_eq!(entry(json!("-1")), Ok(None));
    assert_eq!(entry(json!("5000000000")), Ok(None));
    assert_eq!(
        entry(json!(41)),
        Err(()),
        "every platform passes variables as strings"
    );
    assert_eq!(entry(json!({"id": 41})), Err(()));
    assert_eq!(entry(json!("4\u{202E}1")), Err(()));
}
