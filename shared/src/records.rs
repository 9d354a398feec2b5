//! The records of interface v1, with their exact wire shapes (camelCase, nulls present).
//!
//! The phone call and transcript line records reject unknown properties and always serialise
//! every field; the other records follow the same rule so that a stored item and its wire form
//! never drift. Nullability not fixed by the interface is decided here: identifiers, counters and
//! flags are non-null, free text and optional timestamps are nullable. A field missing on input
//! takes null, false, 0 (or the epoch for a timestamp); validation at the edge decides which
//! fields an endpoint requires.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every timestamp on the wire: RFC 3339, UTC, `Z` on output; any offset accepted on input.
pub type Timestamp = DateTime<Utc>;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PhoneCall {
    pub id: i32,
    pub start_date: DateTime<Utc>,
    pub end_date: Option<DateTime<Utc>>,
    pub from_number: Option<String>,
    pub to_number: Option<String>,
    pub summary: Option<String>,
    pub uuid: Option<String>,
    pub client_id: i32,
    pub confidence: i32,
    pub confidence_reason: Option<String>,
    pub satisfaction: i32,
    pub satisfaction_reason: Option<String>,
    pub purpose: Option<String>,
    /// The variables the call was placed with, as the JSON text of an object of string values
    /// (`{"questionnaireClientId":"41"}`): the interface's type for this field is a string.
    pub dynamic_variables: Option<String>,
    pub connected_to: Option<i32>,
    pub conversation_uuid: Option<String>,
    pub name: Option<String>,
    pub transcript: Option<Vec<TranscriptLine>>,
    pub is_unknown: bool,
    pub portal_id: i32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TranscriptLine {
    pub id: i32,
    pub created_at: DateTime<Utc>,
    pub by: Option<String>,
    pub message: Option<String>,
    pub phone_call_id: i32,
    pub category: TranscriptCategory,
}

/// Category of a transcript line. The interface fixes only the values; their meaning is this
/// project's decision (README): 0 spoken by the agent, 1 spoken by the caller, 2 a system event
/// (transfer, silence, tool call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub enum TranscriptCategory {
    #[default]
    Agent,
    Caller,
    System,
}

/// On the wire an integer enumeration, as the interface gives it.
impl utoipa::PartialSchema for TranscriptCategory {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Integer)
            .enum_values(Some([0, 1, 2]))
            .description(Some(
                "0 spoken by the agent, 1 spoken by the caller, 2 a system event.",
            ))
            .into()
    }
}

impl ToSchema for TranscriptCategory {}

impl TryFrom<i64> for TranscriptCategory {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, Self::Error> {
        match value {
            0 => Ok(Self::Agent),
            1 => Ok(Self::Caller),
            2 => Ok(Self::System),
            other => Err(format!("category must be 0, 1 or 2, not {other}")),
        }
    }
}

impl From<TranscriptCategory> for i64 {
    fn from(value: TranscriptCategory) -> Self {
        match value {
            TranscriptCategory::Agent => 0,
            TranscriptCategory::Caller => 1,
            TranscriptCategory::System => 2,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ClientRequest {
    pub id: i32,
    pub created_at: DateTime<Utc>,
    pub request: Option<String>,
    pub client_id: i32,
    pub portal_id: i32,
    pub phone_call_id: i32,
    pub phone_call_transcript_line_id: Option<i32>,
    pub status: Option<String>,
    pub response: Option<String>,
    pub responded_at: Option<DateTime<Utc>>,
    pub responded_by_account_id: Option<i32>,
    pub responded_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ContactDetail {
    pub id: i32,
    pub portal_id: i32,
    pub name: Option<String>,
    pub contact_number: Option<String>,
    pub contact_email: Option<String>,
    pub contact_between_start: Option<String>,
    pub contact_between_end: Option<String>,
    pub priority: i32,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub contact_when_final_outpost: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Client {
    pub id: i32,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub city: Option<String>,
    pub street: Option<String>,
    pub country: Option<String>,
    pub zip_code: Option<String>,
    pub about: Option<String>,
    pub primary_number: Option<String>,
    pub portal_id: i32,
    pub email: Option<String>,
    pub national_id: Option<String>,
    pub accepted_terms_at: Option<DateTime<Utc>>,
    pub total_calls: i32,
    pub last_call_at: Option<DateTime<Utc>>,
    pub call_length_in_seconds: i32,
    pub calls_last7_days: i32,
    pub is_unknown: bool,
    pub memory: Option<String>,
    pub is_inactive: bool,
    pub is_deleted: bool,
    pub language: Option<String>,
    #[serde(rename = "extECareDetails")]
    pub ext_e_care_details: Option<String>,
    pub is_customer_service: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Portal {
    pub id: i32,
    pub created_at: DateTime<Utc>,
    pub status: i32,
    pub name: Option<String>,
    pub customer_service_phone: Option<String>,
    pub supplier_phone: Option<String>,
    pub provider: Option<String>,
    #[serde(rename = "extECareCompanyCode")]
    pub ext_e_care_company_code: Option<String>,
    pub organisation_id: i32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct QuestionnaireSummary {
    pub id: i32,
    pub name: Option<String>,
    pub description: Option<String>,
    pub first_message: Option<String>,
    pub retry_interval_days: i32,
    pub max_tries: i32,
    pub interval_back_off_multiplier: f64,
    pub repeat_interval_days: i32,
    pub created_at: DateTime<Utc>,
}

impl QuestionnaireSummary {
    /// The detail form: these fields plus the three arrays.
    pub fn into_detail(
        self,
        questions: Vec<Question>,
        answers: Vec<Answer>,
        clients: Vec<QuestionnaireClientEntry>,
    ) -> QuestionnaireDetail {
        QuestionnaireDetail {
            id: self.id,
            name: self.name,
            description: self.description,
            first_message: self.first_message,
            retry_interval_days: self.retry_interval_days,
            max_tries: self.max_tries,
            interval_back_off_multiplier: self.interval_back_off_multiplier,
            repeat_interval_days: self.repeat_interval_days,
            created_at: self.created_at,
            questions,
            answers,
            clients,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct QuestionnaireDetail {
    pub id: i32,
    pub name: Option<String>,
    pub description: Option<String>,
    pub first_message: Option<String>,
    pub retry_interval_days: i32,
    pub max_tries: i32,
    pub interval_back_off_multiplier: f64,
    pub repeat_interval_days: i32,
    pub created_at: DateTime<Utc>,
    pub questions: Vec<Question>,
    pub answers: Vec<Answer>,
    pub clients: Vec<QuestionnaireClientEntry>,
}

impl QuestionnaireDetail {
    /// The list form of this questionnaire. The detail form repeats the list fields instead of
    /// flattening them because serde cannot combine `flatten` with `deny_unknown_fields`.
    pub fn summary(&self) -> QuestionnaireSummary {
        QuestionnaireSummary {
            id: self.id,
            name: self.name.clone(),
            description: self.description.clone(),
            first_message: self.first_message.clone(),
            retry_interval_days: self.retry_interval_days,
            max_tries: self.max_tries,
            interval_back_off_multiplier: self.interval_back_off_multiplier,
            repeat_interval_days: self.repeat_interval_days,
            created_at: self.created_at,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Question {
    pub id: i32,
    pub questionnaire_id: i32,
    pub position: i32,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub prompt: Option<String>,
    pub metadata: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Answer {
    pub question_id: i32,
    pub questionnaire_call_id: i32,
    pub prompt: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub metadata: Option<String>,
    pub answer_text: Option<String>,
    pub answered_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct QuestionnaireClientEntry {
    pub id: i32,
    pub client_id: i32,
    pub questionnaire_id: i32,
    pub phone_call_id: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub next_try_at: Option<DateTime<Utc>>,
}

/// What an account may do in its portal. Staff read and answer; an admin also changes the
/// definitions of their organisation (its questionnaires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[default]
    Staff,
    Admin,
}

/// A staff account: the identity behind a session. Not an interface record of its own; it is
/// returned inside the `validate-otp` answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Account {
    pub id: i32,
    pub name: String,
    pub phone_number: String,
    pub portal_id: i32,
    /// `staff` unless the fixture says `admin`.
    pub role: Role,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::decode_json;

    #[test]
    fn a_phone_call_serialises_all_twenty_fields_with_nulls() {
        let call = PhoneCall {
            id: 1,
            ..Default::default()
        };
        let json = serde_json::to_value(&call).unwrap();
        let object = json.as_object().unwrap();
        assert_eq!(object.len(), 20);
        assert_eq!(object["endDate"], serde_json::Value::Null);
        assert_eq!(object["transcript"], serde_json::Value::Null);
        assert_eq!(object["startDate"], "1970-01-01T00:00:00Z");
    }

    #[test]
    fn unknown_properties_on_a_phone_call_or_line_are_rejected_with_their_path() {
        let error = decode_json::<PhoneCall>(br#"{"id":1,"isAdmin":true}"#).unwrap_err();
        let text = format!("{error:?}");
        assert!(text.contains("isAdmin"), "{text}");
        let error = decode_json::<PhoneCall>(
            br#"{"id":1,"transcript":[{"id":1,"createdAt":"2026-01-01T00:00:00Z","extra":1}]}"#,
        )
        .unwrap_err();
        let ApiError::Validation { errors, .. } = error else {
            panic!("validation error expected");
        };
        assert!(
            errors.keys().any(|k| k.starts_with("transcript[0]")),
            "{errors:?}"
        );
    }

    #[test]
    fn timestamps_with_offsets_are_read_as_utc_and_written_with_z() {
        let line: TranscriptLine =
            decode_json(br#"{"id":1,"createdAt":"2026-03-01T10:00:00+02:00","category":1}"#)
                .unwrap();
        let json = serde_json::to_value(&line).unwrap();
        assert_eq!(json["createdAt"], "2026-03-01T08:00:00Z");
        assert_eq!(json["category"], 1);
    }

    #[test]
    fn transcript_categories_other_than_0_1_2_are_rejected() {
        assert!(decode_json::<TranscriptLine>(br#"{"id":1,"category":3}"#).is_err());
        assert!(decode_json::<TranscriptLine>(br#"{"id":1,"category":"1"}"#).is_err());
    }

    #[test]
    fn ids_beyond_int32_are_rejected() {
        assert!(decode_json::<PhoneCall>(br#"{"id":2147483648}"#).is_err());
    }

    use crate::error::ApiError;
}
