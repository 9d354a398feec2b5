//! Questionnaires: listing, detail, inserting questions and starting client entries.

use async_trait::async_trait;

use crate::domain::Schedule;
use crate::records::{
    Question, QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Timestamp,
};
use crate::store::StoreResult;

use crate::ids::{PortalId, QuestionnaireId};

pub(crate) mod dynamo;
mod memory;

/// A client entry to create: the client, its first try, and how it is retried.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub client_id: i32,
    pub start_date: Timestamp,
    pub schedule: Schedule,
}

/// What starting a questionnaire for clients did.
#[derive(Debug, Clone, PartialEq)]
pub enum StartOutcome {
    /// The questionnaire does not exist.
    NoQuestionnaire,
    /// These clients are not (live) clients of the portal; nothing was written.
    UnknownClients(Vec<i32>),
    Started {
        created: Vec<QuestionnaireClientEntry>,
        already_scheduled: Vec<QuestionnaireClientEntry>,
    },
}

/// A question to insert at `position`; later questions move down by one.
#[derive(Debug, Clone, PartialEq)]
pub struct NewQuestion {
    pub position: i32,
    pub kind: String,
    pub prompt: String,
    pub metadata: Option<String>,
}

/// What adding a question did.
#[derive(Debug, Clone, PartialEq)]
pub enum AddQuestionOutcome {
    NoQuestionnaire,
    /// `position` is past the end; the highest allowed position is given.
    PositionOutOfRange {
        max: i32,
    },
    /// The questionnaire already holds the most questions one transaction can shift.
    Full {
        max_questions: usize,
    },
    Added(Question),
}

/// The questionnaires function's reads and writes. Questionnaires are system-wide; entries
/// and answers are kept per portal of the client.
#[async_trait]
pub trait QuestionnaireStore: Send + Sync + 'static {
    async fn questionnaires(&self) -> StoreResult<Vec<QuestionnaireSummary>>;
    /// The questionnaire with its questions, and the entries and answers of `portal_id`'s
    /// clients; unordered.
    async fn questionnaire(
        &self,
        id: QuestionnaireId,
        portal_id: PortalId,
    ) -> StoreResult<Option<QuestionnaireDetail>>;
    /// Inserts a question atomically: a concurrent add makes this one re-read and retry.
    async fn add_question(
        &self,
        questionnaire_id: QuestionnaireId,
        question: &NewQuestion,
    ) -> StoreResult<AddQuestionOutcome>;
    /// Creates one open entry per client that has none for this questionnaire, all or nothing.
    async fn start_entries(
        &self,
        questionnaire_id: QuestionnaireId,
        portal_id: PortalId,
        entries: &[NewEntry],
        now: Timestamp,
    ) -> StoreResult<StartOutcome>;
}
