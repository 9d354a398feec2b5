//! Questionnaires, their questions, and the client entries the scheduler and ingestion share.

use crate::ids::{OrganisationId, QuestionnaireId};
use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, Put, Update};

use crate::domain::question_refusal;
use crate::fixture::counters;
use crate::records::{
    Answer, Question, QuestionnaireClientEntry, QuestionnaireDetail, QuestionnaireSummary,
};
use crate::store::dynamo::errors::build_error;
use crate::store::dynamo::items::{
    data_keys, from_item, key, n, s, sk_of, to_item, version_guard, version_of,
};
use crate::store::dynamo::operations::{txn_put, txn_update};
use crate::store::dynamo::records::client_from_item;
use crate::store::dynamo::records::{entry_from_item, entry_item, questionnaire_from_item};
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::optimistic::{self, LostRace, Round};
use crate::store::{
    AddQuestionOutcome, EntriesStart, NewEntry, Owner, QuestionAdd, QuestionnaireRead,
    QuestionnaireStore, StartOutcome, StoreResult,
};

/// Rounds an insert may lose to concurrent inserts before it answers 503: more than
/// `optimistic::ROUNDS`, since staff editing one questionnaire together all write one version.
pub(crate) const QUESTION_INSERT_ROUNDS: u32 = 16;

#[async_trait]
impl QuestionnaireStore for DynamoStore {
    async fn questionnaires(
        &self,
        viewer: OrganisationId,
    ) -> StoreResult<Vec<QuestionnaireSummary>> {
        let mut visible = Vec::new();
        let items = self
            .index_items("gsi1", keys::QUESTIONNAIRES.into())
            .await?;
        for item in items {
            let (summary, owner) = questionnaire_from_item(item)?;
            if owner.visible_to(viewer) {
                visible.push(summary);
            }
        }
        Ok(visible)
    }

    async fn questionnaire_owner(&self, id: QuestionnaireId) -> StoreResult<Option<Owner>> {
        self.get_data(keys::questionnaire(id.get()), keys::META)
            .await?
            .map(|item| questionnaire_from_item(item).map(|(_, owner)| owner))
            .transpose()
    }

    async fn questionnaire(
        &self,
        read: QuestionnaireRead,
    ) -> StoreResult<Option<QuestionnaireDetail>> {
        let QuestionnaireRead {
            id,
            portal_id,
            viewer,
        } = read;
        let (id, portal_id) = (id.get(), portal_id.get());
        let (definition, portal) = futures::future::try_join(
            self.query_all("pk = :pk", vec![(":pk", s(keys::questionnaire(id)))]),
            self.query_all(
                "pk = :pk",
                vec![(":pk", s(keys::questionnaire_portal(id, portal_id)))],
            ),
        )
        .await?;
        let mut summary: Option<QuestionnaireSummary> = None;
        let mut questions: Vec<Question> = Vec::new();
        for item in definition {
            match sk_of(&item) {
                keys::META => {
                    let (read, owner) = questionnaire_from_item(item)?;
                    summary = owner.visible_to(viewer).then_some(read);
                }
                sk if sk.starts_with("QUESTION#") => questions.push(from_item(item)?),
                _ => {}
            }
        }
        let Some(summary) = summary else {
            return Ok(None);
        };
        let mut clients = Vec::new();
        let mut answers: Vec<Answer> = Vec::new();
        for item in portal {
            let sk = sk_of(&item);
            if sk.starts_with("OPEN#") || sk.starts_with("ENTRY#") {
                clients.push(entry_from_item(item)?);
            } else if sk.starts_with("ANSWER#") {
                answers.push(from_item(item)?);
            }
        }
        Ok(Some(summary.into_detail(questions, answers, clients)))
    }

    async fn add_question(&self, add: QuestionAdd<'_>) -> StoreResult<AddQuestionOutcome> {
        let question = add.question;
        let questionnaire_id = add.questionnaire_id.get();
        let pk = keys::questionnaire(questionnaire_id);
        let mut id = None;
        // A concurrent insert changes the version; read again and shift again.
        let mut rounds =
            optimistic::Rounds::new(QUESTION_INSERT_ROUNDS, "the questionnaire's questions");
        loop {
            rounds.start().await?;
            let items = self
                .query_all("pk = :pk", vec![(":pk", s(pk.clone()))])
                .await?;
            let mut owner = None;
            let mut version = 0;
            let mut questions: Vec<Question> = Vec::new();
            for item in items {
                match sk_of(&item) {
                    keys::META => owner = Some(questionnaire_from_item(item)?.1),
                    keys::QUESTIONS_VERSION => version = version_of(&item)?,
                    sk if sk.starts_with("QUESTION#") => questions.push(from_item(item)?),
                    _ => {}
                }
            }
            match owner.filter(|owner| owner.visible_to(add.editor)) {
                None => return Ok(AddQuestionOutcome::NoQuestionnaire),
                Some(Owner::Template) => return Ok(AddQuestionOutcome::Template),
                Some(Owner::Organisation(_)) => {}
            }
            // Our question is there: an earlier attempt landed and its answer was lost (the
            // SDK retried a transaction that had been applied). Inserting again would shift it.
            if let Some(landed) = id.and_then(|id| questions.iter().find(|q| q.id == id)) {
                return Ok(AddQuestionOutcome::Added(landed.clone()));
            }
            if let Some(refusal) = question_refusal(&questions, question.position) {
                return Ok(refusal);
            }
            let question_id = match id {
                Some(id) => id,
                None => *id.insert(self.reserve_ids(counters::QUESTION, 1).await?),
            };
            let added = Question {
                id: question_id,
                questionnaire_id,
                position: question.position,
                kind: Some(question.kind.clone()),
                prompt: Some(question.prompt.clone()),
                metadata: question.metadata.clone(),
            };
            let mut version_item = data_keys(pk.clone(), keys::QUESTIONS_VERSION.into(), None);
            version_item.insert("version".into(), n(version + 1));
            let (condition, values) = version_guard(version);
            let guard = Put::builder()
                .table_name(&self.tables.data)
                .set_item(Some(version_item))
                .condition_expression(condition)
                .set_expression_attribute_values(values)
                .build()
                .map_err(build_error)?;
            let mut writes = vec![
                txn_put(guard),
                self.data_put(
                    to_item(
                        &added,
                        data_keys(pk.clone(), keys::question(question_id), None),
                    )?,
                    Some("attribute_not_exists(pk)"),
                )?,
            ];
            for moved in questions.iter().filter(|q| q.position >= question.position) {
                writes.push(txn_update(
                    Update::builder()
                        .table_name(&self.tables.data)
                        .set_key(Some(key(pk.clone(), Some(&keys::question(moved.id)))))
                        .update_expression("SET #position = :position")
                        .expression_attribute_names("#position", "position")
                        .expression_attribute_values(":position", n(moved.position + 1))
                        .build()
                        .map_err(build_error)?,
                ));
            }
            if let Round::Done(()) = self.transact(writes).await.or_lost_transaction()? {
                return Ok(AddQuestionOutcome::Added(added));
            }
        }
    }

    async fn start_entries(&self, start: EntriesStart<'_>) -> StoreResult<StartOutcome> {
        let questionnaire_id = start.questionnaire_id.get();
        let portal_id = start.portal_id.get();
        let entry_pk = keys::questionnaire_portal(questionnaire_id, portal_id);
        let mut ids = None;
        // A concurrent start opens an entry for one of these clients: read again.
        let mut rounds =
            optimistic::Rounds::new(optimistic::ROUNDS, "the questionnaire's start.entries");
        loop {
            rounds.start().await?;
            let mut wanted = vec![key(keys::questionnaire(questionnaire_id), Some(keys::META))];
            for new in start.entries {
                wanted.push(key(
                    keys::portal(portal_id),
                    Some(&keys::client(new.client_id)),
                ));
                wanted.push(key(
                    entry_pk.clone(),
                    Some(&keys::open_entry(new.client_id)),
                ));
            }
            let mut exists = false;
            let mut live_clients = std::collections::HashSet::new();
            let mut open: HashMap<i32, QuestionnaireClientEntry> = HashMap::new();
            for item in self.batch_get_data(wanted).await? {
                let sk = sk_of(&item).to_string();
                if sk == keys::META {
                    exists = questionnaire_from_item(item)?.1.visible_to(start.viewer);
                } else if sk.starts_with("OPEN#") {
                    let entry = entry_from_item(item)?;
                    open.insert(entry.client_id, entry);
                } else if !matches!(item.get("isDeleted"), Some(AttributeValue::Bool(true))) {
                    live_clients.insert(client_from_item(item, start.now)?.id);
                }
            }
            if !exists {
                return Ok(StartOutcome::NoQuestionnaire);
            }
            let unknown: Vec<i32> = start
                .entries
                .iter()
                .map(|new| new.client_id)
                .filter(|id| !live_clients.contains(id))
                .collect();
            if !unknown.is_empty() {
                return Ok(StartOutcome::UnknownClients(unknown));
            }
            let fresh: Vec<&NewEntry> = start
                .entries
                .iter()
                .filter(|new| !open.contains_key(&new.client_id))
                .collect();
            let already_scheduled = start
                .entries
                .iter()
                .filter_map(|new| open.get(&new.client_id).cloned())
                .collect();
            if fresh.is_empty() {
                return Ok(StartOutcome::Started {
                    created: Vec::new(),
                    already_scheduled,
                });
            }
            let first = match ids {
                Some((first, count)) if count >= fresh.len() => first,
                _ => {
                    let first = self
                        .reserve_ids(counters::QUESTIONNAIRE_ENTRY, fresh.len())
                        .await?;
                    ids.insert((first, fresh.len())).0
                }
            };
            let mut created = Vec::with_capacity(fresh.len());
            let mut writes = Vec::with_capacity(fresh.len());
            for (id, new) in (first..).zip(&fresh) {
                let entry = new.opened(id, questionnaire_id, start.now);
                writes.push(self.data_put(
                    entry_item(&entry, portal_id, &new.schedule)?,
                    Some("attribute_not_exists(pk)"),
                )?);
                created.push(entry);
            }
            if let Round::Done(()) = self.transact(writes).await.or_lost_transaction()? {
                return Ok(StartOutcome::Started {
                    created,
                    already_scheduled,
                });
            }
        }
    }
}
