//! The events a voice platform delivers, as they arrive (`type` names the kind), and their
//! validation into what ingestion writes: every failing field is reported with its path.

use chrono::TimeDelta;
use serde::Deserialize;
use serde_json::{Map, Value};

use chrono::{DateTime, Utc};
use shared::domain::CallOutcome;
use shared::error::ApiError;
use shared::extract::{decode_json, decode_json_then};
use shared::phone::DefaultRegion;
use shared::records::TranscriptCategory;
use shared::store::{Analysis, GivenAnswer};
use shared::validate::{self, Validator};
use shared::wire::string;
use shared::wire::{PhoneText, Prose, RequiredProse, RequiredText, Variables};

/// Text fields of an event are capped so one delivery cannot bloat an item (400 KB limit).
const MAX_TEXT: usize = shared::wire::MAX_PROSE;
const MAX_ID: usize = shared::wire::MAX_SHORT_TEXT;
/// An analysis waiting for its call is one item: 98 answers of this size keep it well under
/// DynamoDB's 400 KB.
const MAX_ANSWER_TEXT: usize = 2_000;
/// A failure's `detail` is a line or two from the platform.
const MAX_DETAIL: usize = 2_000;
/// One answer per question, and a questionnaire has at most this many questions.
pub const MAX_ANSWERS: usize = shared::domain::MAX_QUESTIONS;
/// A call may last at most this long; anything longer is a broken timestamp.
const MAX_CALL: TimeDelta = TimeDelta::hours(24);

/// An id a platform gives: of a delivery, of a conversation.
type PlatformId = RequiredText<MAX_ID>;
/// A transcript line, a summary, a reason.
type CallText = Prose<MAX_TEXT>;
/// A request the agent wrote down.
type RequestText = RequiredProse<MAX_TEXT>;
/// A question's answer as the platform heard it.
type AnswerText = Prose<MAX_ANSWER_TEXT>;
/// A failure's words from the platform.
type Detail = Prose<MAX_DETAIL>;

/// A delivery's `type`, read before its kind's fields.
#[derive(Deserialize)]
struct TypeOnly {
    #[serde(rename = "type")]
    kind: String,
}

/// A delivery, as `VoiceEvent::decode` reads it; its `type` names the kind.
#[derive(Debug, Clone, PartialEq)]
pub enum VoiceEvent {
    CallEnded(CallEnded),
    CallAnalyzed(CallAnalyzed),
    CallFailed(CallFailed),
}

impl VoiceEvent {
    /// Reads a delivery: its `type`, then that kind's fields, then the rules between them,
    /// with its numbers in E.164 (read in `region` when written nationally). The kind is read
    /// first because serde reads a tagged enum's fields without their paths; read this way,
    /// every field that fails is named, whichever step found it.
    pub fn decode(bytes: &[u8], region: DefaultRegion) -> Result<Self, ApiError> {
        let TypeOnly { kind } = decode_json(bytes)?;
        match kind.as_str() {
            "call.ended" => decode_json_then(bytes, |event: CallEnded| event.validated(region))
                .map(Self::CallEnded),
            "call.analyzed" => {
                decode_json_then(bytes, CallAnalyzed::validated).map(Self::CallAnalyzed)
            }
            "call.failed" => decode_json_then(bytes, |event: CallFailed| event.validated(region))
                .map(Self::CallFailed),
            _ => Err(ApiError::field(
                "type",
                format!("must be one of {}", KINDS.map(|kind| kind.tag).join(", ")),
            )),
        }
    }
}

type Schema = utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;

/// One kind of event in the document: its `type`, its schema's name, and its fields' schema.
struct Kind {
    tag: &'static str,
    name: &'static str,
    fields: fn() -> Schema,
}

const KINDS: [Kind; 3] = [
    Kind {
        tag: "call.ended",
        name: "CallEnded",
        fields: <CallEnded as utoipa::PartialSchema>::schema,
    },
    Kind {
        tag: "call.analyzed",
        name: "CallAnalyzed",
        fields: <CallAnalyzed as utoipa::PartialSchema>::schema,
    },
    Kind {
        tag: "call.failed",
        name: "CallFailed",
        fields: <CallFailed as utoipa::PartialSchema>::schema,
    },
];

/// One named schema per kind (`CallEnded`, `CallAnalyzed`, `CallFailed`), its `type` among its fields, and
/// `type` as the discriminator: the derived tagged-enum schema would add `type` beside a schema
/// that forbids other properties, which nothing can satisfy, and generated clients give named
/// kinds classes of their own.
impl utoipa::PartialSchema for VoiceEvent {
    fn schema() -> Schema {
        let path = |kind: &Kind| format!("#/components/schemas/{}", kind.name);
        let schema = serde_json::json!({
            "oneOf": KINDS.iter().map(|kind| serde_json::json!({"$ref": path(kind)})).collect::<Vec<_>>(),
            "discriminator": {
                "propertyName": "type",
                "mapping": KINDS.iter().map(|kind| (kind.tag.to_owned(), path(kind).into())).collect::<Map<String, Value>>(),
            },
        });
        serde_json::from_value(schema).expect("a well-formed schema")
    }
}

impl utoipa::ToSchema for VoiceEvent {
    fn schemas(schemas: &mut Vec<(String, Schema)>) {
        <CallEnded as utoipa::ToSchema>::schemas(schemas);
        <CallAnalyzed as utoipa::ToSchema>::schemas(schemas);
        <CallFailed as utoipa::ToSchema>::schemas(schemas);
        for kind in KINDS {
            let mut schema = serde_json::to_value((kind.fields)()).expect("a schema is JSON");
            schema["properties"]["type"] =
                serde_json::json!({"type": "string", "enum": [kind.tag]});
            if let Some(required) = schema["required"].as_array_mut() {
                required.insert(0, "type".into());
            }
            let schema = serde_json::from_value(schema).expect("a well-formed schema");
            schemas.push((kind.name.to_owned(), schema));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Inbound,
    Outbound,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "type": "call.ended", "eventId": "evt-7f3a", "conversationUuid": "conv-2001",
    "startDate": "2026-11-21T08:00:00Z", "endDate": "2026-11-21T08:03:10Z",
    "fromNumber": "+46731110001", "toNumber": "+4687001000", "direction": "inbound",
    "dynamicVariables": {"questionnaireClientId": "41"},
    "transcript": [
        {"createdAt": "2026-11-21T08:00:02Z", "by": "agent", "message": "Hej!", "category": 0},
        {"createdAt": "2026-11-21T08:00:06Z", "by": "caller", "message": "Kan ni ringa min dotter?", "category": 1}
    ],
    "requests": [{"request": "Call her daughter.", "transcriptLineIndex": 1}]
}))]
pub struct CallEnded {
    /// `{"type": ...}`, read by `VoiceEvent::decode`; the schema's `type` is written there.
    #[serde(rename = "type")]
    #[schema(ignore)]
    pub _kind: serde::de::IgnoredAny,
    /// The platform's id of this delivery; a redelivery carries the same one.
    #[schema(value_type = PlatformId, inline)]
    pub event_id: String,
    /// The platform's id of the conversation (the call's `conversationUuid`).
    #[schema(value_type = PlatformId, inline)]
    pub conversation_uuid: String,
    pub start_date: DateTime<Utc>,
    /// At or after `startDate`, within 24 hours of it.
    pub end_date: DateTime<Utc>,
    #[schema(value_type = PhoneText, inline)]
    pub from_number: String,
    #[schema(value_type = PhoneText, inline)]
    pub to_number: String,
    pub direction: Direction,
    /// The conversation this leg was transferred from or to; another conversation than this.
    #[serde(default)]
    #[serde(deserialize_with = "string::optional::<_, PlatformId>")]
    #[schema(value_type = Option<PlatformId>, inline)]
    pub connected_to_conversation_uuid: Option<String>,
    /// The variables the call was placed with, as string values (`questionnaireClientId`
    /// names the questionnaire entry a call answers); at most 20,000 characters as JSON text.
    #[serde(default)]
    #[schema(inline)]
    pub dynamic_variables: Option<Variables>,
    #[serde(default)]
    pub transcript: Vec<IncomingLine>,
    #[serde(default)]
    pub requests: Vec<IncomingRequest>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncomingLine {
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    #[serde(deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub by: Option<String>,
    #[serde(default)]
    #[serde(deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub message: Option<String>,
    pub category: TranscriptCategory,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncomingRequest {
    #[schema(value_type = RequestText, inline)]
    pub request: String,
    /// The 0-based index, in `transcript`, of the line that raised it.
    pub transcript_line_index: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "type": "call.analyzed", "eventId": "evt-7f3b", "conversationUuid": "conv-2001",
    "summary": "Asked staff to call her daughter.", "purpose": "Message",
    "confidence": 90, "satisfaction": 4, "name": "Gunnel Andersson",
    "answers": [{"questionId": 21, "answerText": "Ja", "answeredAt": "2026-11-21T08:02:00Z"}]
}))]
pub struct CallAnalyzed {
    /// `{"type": ...}`, read by `VoiceEvent::decode`; the schema's `type` is written there.
    #[serde(rename = "type")]
    #[schema(ignore)]
    pub _kind: serde::de::IgnoredAny,
    #[schema(value_type = PlatformId, inline)]
    pub event_id: String,
    #[schema(value_type = PlatformId, inline)]
    pub conversation_uuid: String,
    #[serde(default, deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub summary: Option<String>,
    #[serde(default, deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub purpose: Option<String>,
    #[serde(default)]
    pub confidence: i32,
    #[serde(default, deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub confidence_reason: Option<String>,
    #[serde(default)]
    pub satisfaction: i32,
    #[serde(default, deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub satisfaction_reason: Option<String>,
    #[serde(default, deserialize_with = "string::optional::<_, CallText>")]
    #[schema(value_type = Option<CallText>, inline)]
    pub name: Option<String>,
    #[serde(default)]
    pub answers: Vec<IncomingAnswer>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncomingAnswer {
    pub question_id: i32,
    #[serde(default, deserialize_with = "string::optional::<_, AnswerText>")]
    #[schema(value_type = Option<AnswerText>, inline)]
    pub answer_text: Option<String>,
    pub answered_at: DateTime<Utc>,
}

/// A required number, read as `PhoneText` and written in E.164 in place.
fn e164(v: &mut Validator, field: &str, number: &mut String, region: DefaultRegion) {
    let parsed = PhoneText::parse(number).and_then(|text| text.e164(region));
    if let Some(parsed) = v.check(field, parsed) {
        *number = parsed;
    }
}

/// The dialler's report that an attempt reached nobody: no answer, a busy line, a voicemail,
/// a number that does not exist, a refusal, or a failure of its own.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "type": "call.failed", "eventId": "evt-7f40", "questionnaireClientId": 41, "attempt": 1,
    "toNumber": "+46731110001", "startDate": "2026-11-23T09:05:00Z", "outcome": "busy"
}))]
pub struct CallFailed {
    /// `{"type": ...}`, read by `VoiceEvent::decode`; the schema's `type` is written there.
    #[serde(rename = "type")]
    #[schema(ignore)]
    pub _kind: serde::de::IgnoredAny,
    /// The platform's id of this delivery; a redelivery carries the same one.
    #[schema(value_type = PlatformId, inline)]
    pub event_id: String,
    /// The conversation, when the platform opened one before the attempt failed.
    #[serde(default)]
    #[serde(deserialize_with = "string::optional::<_, PlatformId>")]
    #[schema(value_type = Option<PlatformId>, inline)]
    pub conversation_uuid: Option<String>,
    /// The questionnaire entry the attempt was for (the dialler message's
    /// `questionnaireClientId`).
    #[serde(default)]
    #[schema(minimum = 1)]
    pub questionnaire_client_id: Option<i32>,
    /// Which attempt of the entry (the dialler message's `attempt`); absent: its latest.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub attempt: Option<i32>,
    #[schema(value_type = PhoneText, inline)]
    pub to_number: String,
    /// When the attempt was placed.
    pub start_date: DateTime<Utc>,
    pub outcome: CallOutcome,
    /// The platform's own words for it, kept with the outcome.
    #[serde(default)]
    #[serde(deserialize_with = "string::optional::<_, Detail>")]
    #[schema(value_type = Option<Detail>, inline)]
    pub detail: Option<String>,
}

impl CallFailed {
    /// The report with its id parsed and its number in E.164; its optional text was parsed
    /// with the body.
    pub fn validated(mut self, region: DefaultRegion) -> Result<Self, ApiError> {
        let mut v = Validator::new();
        v.parse::<PlatformId>("eventId", &mut self.event_id);
        for (field, value) in [
            ("questionnaireClientId", self.questionnaire_client_id),
            ("attempt", self.attempt),
        ] {
            v.check(
                field,
                match value {
                    Some(id) if id < 1 => Err("must be at least 1".to_string()),
                    _ => Ok(()),
                },
            );
        }
        e164(&mut v, "toNumber", &mut self.to_number, region);
        v.finish()?;
        Ok(self)
    }
}

impl CallFailed {
    /// What the delivery's receipt keeps of it: its conversation (when it names one) and a
    /// digest of the report, so that the same `eventId` with another report is told apart from
    /// a redelivery (409, as `call.ended` answers a reused id).
    pub fn receipt(&self) -> String {
        let report = serde_json::json!([
            self.questionnaire_client_id,
            self.attempt,
            self.to_number,
            self.start_date,
            self.outcome,
            self.detail,
        ]);
        format!(
            "{}|{}",
            self.conversation_uuid.as_deref().unwrap_or_default(),
            shared::auth::keyed_hash(b"call.failed", &report.to_string())
        )
    }
}

impl CallEnded {
    /// The event with its ids parsed, its numbers in E.164, and the rules between its fields
    /// checked; its optional text was parsed with the body.
    pub fn validated(mut self, region: DefaultRegion) -> Result<Self, ApiError> {
        let mut v = Validator::new();
        v.parse::<PlatformId>("eventId", &mut self.event_id);
        v.parse::<PlatformId>("conversationUuid", &mut self.conversation_uuid);
        if self.connected_to_conversation_uuid.as_ref() == Some(&self.conversation_uuid) {
            v.check::<()>(
                "connectedToConversationUuid",
                Err("must name another conversation than conversationUuid".to_string()),
            );
        }
        let length = self.end_date - self.start_date;
        v.check(
            "endDate",
            if length < TimeDelta::zero() {
                Err("must not be before startDate".to_string())
            } else if length > MAX_CALL {
                Err("must be within 24 hours of startDate".to_string())
            } else {
                Ok(())
            },
        );
        e164(&mut v, "fromNumber", &mut self.from_number, region);
        e164(&mut v, "toNumber", &mut self.to_number, region);
        let lines = self.transcript.len();
        for (i, raised) in self.requests.iter_mut().enumerate() {
            v.parse::<RequestText>(&format!("requests[{i}].request"), &mut raised.request);
            v.check(
                &format!("requests[{i}].transcriptLineIndex"),
                if raised.transcript_line_index < lines {
                    Ok(())
                } else {
                    Err(format!("must be below the {lines} transcript lines"))
                },
            );
        }
        v.finish()?;
        Ok(self)
    }

    /// The entry id a questionnaire call carries in its dynamic variables, if any.
    pub fn questionnaire_client_id(&self) -> Option<i32> {
        self.dynamic_variables
            .as_ref()?
            .get("questionnaireClientId")?
            .trim()
            .parse::<i32>()
            .ok()
            .filter(|id| *id > 0)
    }

    /// The number of the person on the other end: the caller for an inbound call, the number
    /// dialled for an outbound one.
    pub fn client_number(&self) -> &str {
        match self.direction {
            Direction::Inbound => &self.from_number,
            Direction::Outbound => &self.to_number,
        }
    }
}

impl CallAnalyzed {
    /// The analysis with its ids parsed and the rules its fields' types do not hold checked;
    /// its optional text was parsed with the body.
    pub fn validated(mut self) -> Result<Self, ApiError> {
        let mut v = Validator::new();
        v.parse::<PlatformId>("eventId", &mut self.event_id);
        v.parse::<PlatformId>("conversationUuid", &mut self.conversation_uuid);
        for (field, value) in [
            ("confidence", self.confidence),
            ("satisfaction", self.satisfaction),
        ] {
            v.check(
                field,
                if (0..=100).contains(&value) {
                    Ok(())
                } else {
                    Err("must be from 0 to 100".to_string())
                },
            );
        }
        if self.answers.len() > MAX_ANSWERS {
            v.check::<()>(
                "answers",
                Err(format!("must hold at most {MAX_ANSWERS} answers")),
            );
        }
        for (i, answer) in self.answers.iter().enumerate() {
            v.check(
                &format!("answers[{i}].questionId"),
                validate::id(Some(answer.question_id)),
            );
        }
        v.finish()?;
        Ok(self)
    }

    /// What the analysis says about the call, as the store keeps it.
    pub fn analysis(&self) -> Analysis {
        Analysis {
            summary: self.summary.clone(),
            purpose: self.purpose.clone(),
            confidence: self.confidence,
            confidence_reason: self.confidence_reason.clone(),
            satisfaction: self.satisfaction,
            satisfaction_reason: self.satisfaction_reason.clone(),
            name: self.name.clone(),
            answers: self
                .answers
                .iter()
                .map(|answer| GivenAnswer {
                    question_id: answer.question_id,
                    answer_text: answer.answer_text.clone(),
                    answered_at: answer.answered_at,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
