//! Questionnaires: listing, detail, inserting questions and starting client entries.

use async_trait::async_trait;

use crate::domain::Schedule;
use crate::records::{
    Question, QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary, Timestamp,
};
use crate::store::StoreResult;

use crate::ids::{OrganisationId, PortalId, QuestionnaireId};

pub(crate) mod dynamo;
mod memory;

/// Who a questionnaire belongs to: one organisation, or none (a template every organisation
/// may use and none may change through the API).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Template,
    Organisation(OrganisationId),
}

impl Owner {
    pub fn of(organisation: Option<OrganisationId>) -> Self {
        organisation.map_or(Self::Template, Self::Organisation)
    }

    /// Whether staff of `organisation` see it: a template, or their organisation's own.
    pub fn visible_to(self, organisation: OrganisationId) -> bool {
        match self {
            Self::Template => true,
            Self::Organisation(owner) => owner == organisation,
        }
    }
}

/// A client entry to create: the client, its first try, and how it is retried.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub client_id: i32,
    pub start_date: Timestamp,
    pub schedule: Schedule,
}

impl NewEntry {
    /// The entry as it opens, with the id the store gave it, at `now`.
    pub fn opened(
        &self,
        id: i32,
        questionnaire_id: i32,
        now: Timestamp,
    ) -> QuestionnaireClientEntry {
        QuestionnaireClientEntry {
            id,
            client_id: self.client_id,
            questionnaire_id,
            phone_call_id: None,
            created_at: now,
            next_try_at: Some(self.start_date),
        }
    }
}

/// What starting a questionnaire for clients did.
#[derive(Debug, Clone, PartialEq)]
pub enum StartOutcome {
    /// The questionnaire does not exist, or belongs to another organisation.
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
    /// The questionnaire does not exist, or belongs to another organisation.
    NoQuestionnaire,
    /// A template: read-only through the API.
    Template,
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

/// The questionnaires function's reads and writes. A questionnaire belongs to an organisation or
/// is a template (`Owner`); one of another organisation is answered as a missing one. Entries
/// and answers are kept per portal of the client.
/// A questionnaire as a portal reads it: its entries and answers are that portal's clients',
/// and `viewer`, the portal's organisation, must see the questionnaire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuestionnaireRead {
    pub id: QuestionnaireId,
    pub portal_id: PortalId,
    pub viewer: OrganisationId,
}

/// A question to insert into a questionnaire of `editor`'s organisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuestionAdd<'a> {
    pub questionnaire_id: QuestionnaireId,
    pub editor: OrganisationId,
    pub question: &'a NewQuestion,
}

/// Entries to open at `now` for clients of a portal, in a questionnaire `viewer` (the
/// portal's organisation) sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntriesStart<'a> {
    pub questionnaire_id: QuestionnaireId,
    pub portal_id: PortalId,
    pub viewer: OrganisationId,
    pub entries: &'a [NewEntry],
    pub now: Timestamp,
}

#[async_trait]
pub trait QuestionnaireStore: Send + Sync + 'static {
    /// The questionnaires `viewer` sees: the templates and its own.
    async fn questionnaires(
        &self,
        viewer: OrganisationId,
    ) -> StoreResult<Vec<QuestionnaireSummary>>;
    /// Who the questionnaire belongs to; `None` when it does not exist.
    async fn questionnaire_owner(&self, id: QuestionnaireId) -> StoreResult<Option<Owner>>;
    /// The questionnaire with its questions, and the entries and answers of the portal's
    /// clients, unordered; `None` when it does not exist or the viewer does not see it.
    async fn questionnaire(
        &self,
        read: QuestionnaireRead,
    ) -> StoreResult<Option<QuestionnaireDetail>>;
    /// Inserts a question atomically into a questionnaire of the editor: a concurrent add makes
    /// this one re-read and retry.
    async fn add_question(&self, add: QuestionAdd<'_>) -> StoreResult<AddQuestionOutcome>;
    /// Creates one open entry per client that has none for this questionnaire (which the
    /// viewer must see), all or nothing.
    async fn start_entries(&self, start: EntriesStart<'_>) -> StoreResult<StartOutcome>;
}
