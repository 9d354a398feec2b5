//! The in-memory store's side of this capability.

use crate::ids::{OrganisationId, QuestionnaireId};
use std::collections::HashMap;

use async_trait::async_trait;

use crate::domain::question_refusal;
use crate::fixture::counters;
use crate::records::{
    Question, QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary,
};
use crate::store::memory::{MemoryStore, StoredEntry};
use crate::store::{
    AddQuestionOutcome, EntriesStart, Owner, QuestionAdd, QuestionnaireRead, QuestionnaireStore,
    StartOutcome, StoreError, StoreResult,
};

#[async_trait]
impl QuestionnaireStore for MemoryStore {
    async fn questionnaires(
        &self,
        viewer: OrganisationId,
    ) -> StoreResult<Vec<QuestionnaireSummary>> {
        let state = self.lock();
        Ok(state
            .questionnaires
            .values()
            .filter(|q| state.owner_of(q.id).visible_to(viewer))
            .map(QuestionnaireDetail::summary)
            .collect())
    }

    async fn questionnaire_owner(&self, id: QuestionnaireId) -> StoreResult<Option<Owner>> {
        let state = self.lock();
        Ok(state
            .questionnaires
            .contains_key(&id.get())
            .then(|| state.owner_of(id.get())))
    }

    async fn questionnaire(
        &self,
        read: QuestionnaireRead,
    ) -> StoreResult<Option<QuestionnaireDetail>> {
        let id = read.id.get();
        let portal_id = read.portal_id.get();
        let state = self.lock();
        let Some(questionnaire) = state
            .questionnaires
            .get(&id)
            .filter(|_| state.owner_of(id).visible_to(read.viewer))
        else {
            return Ok(None);
        };
        let clients: Vec<QuestionnaireClientEntry> = state
            .entries
            .values()
            .filter(|stored| stored.entry.questionnaire_id == id && stored.portal_id == portal_id)
            .map(|stored| stored.entry.clone())
            .collect();
        let answers = questionnaire
            .answers
            .iter()
            .filter(|answer| {
                clients
                    .iter()
                    .any(|entry| entry.id == answer.questionnaire_call_id)
            })
            .cloned()
            .collect();
        Ok(Some(QuestionnaireDetail {
            answers,
            clients,
            ..questionnaire.clone()
        }))
    }

    async fn add_question(&self, add: QuestionAdd<'_>) -> StoreResult<AddQuestionOutcome> {
        let questionnaire_id = add.questionnaire_id.get();
        let mut state = self.lock();
        let owner = state.owner_of(questionnaire_id);
        let Some(questions) = state
            .questionnaires
            .get(&questionnaire_id)
            .filter(|_| owner.visible_to(add.editor))
            .map(|q| q.questions.clone())
        else {
            return Ok(AddQuestionOutcome::NoQuestionnaire);
        };
        if owner == Owner::Template {
            return Ok(AddQuestionOutcome::Template);
        }
        if let Some(refusal) = question_refusal(&questions, add.question.position) {
            return Ok(refusal);
        }
        let id = state.next_id(counters::QUESTION, 1)?;
        let added = Question {
            id,
            questionnaire_id,
            position: add.question.position,
            kind: Some(add.question.kind.clone()),
            prompt: Some(add.question.prompt.clone()),
            metadata: add.question.metadata.clone(),
        };
        let questionnaire = state
            .questionnaires
            .get_mut(&questionnaire_id)
            .ok_or_else(|| StoreError::Corrupt("questionnaire vanished".into()))?;
        for existing in &mut questionnaire.questions {
            if existing.position >= add.question.position {
                existing.position += 1;
            }
        }
        questionnaire.questions.push(added.clone());
        Ok(AddQuestionOutcome::Added(added))
    }

    async fn start_entries(&self, start: EntriesStart<'_>) -> StoreResult<StartOutcome> {
        let questionnaire_id = start.questionnaire_id.get();
        let portal_id = start.portal_id.get();
        let mut state = self.lock();
        if !state.questionnaires.contains_key(&questionnaire_id)
            || !state.owner_of(questionnaire_id).visible_to(start.viewer)
        {
            return Ok(StartOutcome::NoQuestionnaire);
        }
        let unknown: Vec<i32> = start
            .entries
            .iter()
            .map(|new| new.client_id)
            .filter(|id| {
                !state
                    .clients
                    .get(id)
                    .is_some_and(|c| c.portal_id == portal_id && !c.is_deleted)
            })
            .collect();
        if !unknown.is_empty() {
            return Ok(StartOutcome::UnknownClients(unknown));
        }
        let open: HashMap<i32, QuestionnaireClientEntry> = state
            .entries
            .values()
            .filter(|stored| stored.entry.questionnaire_id == questionnaire_id && stored.is_open())
            .map(|stored| (stored.entry.client_id, stored.entry.clone()))
            .collect();
        let (mut created, mut already_scheduled) = (Vec::new(), Vec::new());
        for new in start.entries {
            if let Some(entry) = open.get(&new.client_id) {
                already_scheduled.push(entry.clone());
                continue;
            }
            let id = state.next_id(counters::QUESTIONNAIRE_ENTRY, 1)?;
            let entry = new.opened(id, questionnaire_id, start.now);
            state.entries.insert(
                id,
                StoredEntry {
                    entry: entry.clone(),
                    portal_id,
                    schedule: new.schedule,
                    pending: None,
                    outcomes: Vec::new(),
                    ended: None,
                    report_due: None,
                },
            );
            created.push(entry);
        }
        Ok(StartOutcome::Started {
            created,
            already_scheduled,
        })
    }
}
