//! The fixture format of DESIGN.md section 6: parsed strictly, checked for consistency, then
//! written by any `SeedWriter`, so `local-api`, the tests and both stores load data one way.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use crate::contact_window::Window;
use crate::ids::OrganisationId;
use crate::national_id;
use crate::phone::{self, DefaultRegion};
use crate::records::{
    Account, Client, ClientRequest, ContactDetail, PhoneCall, Portal, QuestionnaireDetail,
};
use crate::store::{SeedWriter, StoreError};

/// Counter names, one per kind of record with an integer id.
pub mod counters {
    pub const CLIENT: &str = "client";
    pub const PHONE_CALL: &str = "phoneCall";
    pub const TRANSCRIPT_LINE: &str = "transcriptLine";
    pub const CLIENT_REQUEST: &str = "clientRequest";
    pub const CONTACT_DETAIL: &str = "contactDetail";
    pub const QUESTIONNAIRE: &str = "questionnaire";
    pub const QUESTION: &str = "question";
    pub const QUESTIONNAIRE_ENTRY: &str = "questionnaireEntry";
    /// Alerts share the entries' sequence: an entry's alert takes its entry's id, a call's
    /// alert draws a number no entry has.
    pub const ALERT: &str = QUESTIONNAIRE_ENTRY;
    pub const PORTAL: &str = "portal";
    pub const ACCOUNT: &str = "account";
}

/// A fixture as written: every key optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct Fixture {
    portals: Vec<Portal>,
    accounts: Vec<Account>,
    clients: Vec<Client>,
    phone_calls: Vec<PhoneCall>,
    client_requests: Vec<ClientRequest>,
    contact_details: Vec<ContactDetail>,
    questionnaires: Vec<FixtureQuestionnaire>,
}

/// A questionnaire in detail form plus, in the fixture only, the organisation that owns it
/// (`organisationId`; absent or null: a template). The record's wire shape has no owner.
#[derive(Debug)]
struct FixtureQuestionnaire {
    detail: QuestionnaireDetail,
    organisation_id: Option<i32>,
}

impl<'de> Deserialize<'de> for FixtureQuestionnaire {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut object = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let organisation_id = match object.remove("organisationId") {
            None | Some(serde_json::Value::Null) => None,
            Some(value) => Some(i32::deserialize(value).map_err(D::Error::custom)?),
        };
        let detail = QuestionnaireDetail::deserialize(serde_json::Value::Object(object))
            .map_err(D::Error::custom)?;
        Ok(Self {
            detail,
            organisation_id,
        })
    }
}

/// A fixture that parsed and passed the consistency checks.
#[derive(Debug, Clone, Default)]
pub struct Seed {
    pub portals: Vec<Portal>,
    pub accounts: Vec<Account>,
    pub clients: Vec<Client>,
    pub phone_calls: Vec<PhoneCall>,
    pub client_requests: Vec<ClientRequest>,
    pub contact_details: Vec<ContactDetail>,
    pub questionnaires: Vec<QuestionnaireDetail>,
    /// The organisation of each questionnaire that is not a template, by questionnaire id.
    pub questionnaire_owners: HashMap<i32, OrganisationId>,
}

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("fixture is not valid JSON for its format at {path}: {message}")]
    Format { path: String, message: String },
    #[error("fixture is inconsistent: {0}")]
    Inconsistent(String),
    #[error("fixture could not be written")]
    Store(#[from] StoreError),
}

fn unique(kind: &str, ids: impl IntoIterator<Item = i32>) -> Result<HashSet<i32>, FixtureError> {
    let mut seen = HashSet::new();
    for id in ids {
        if id <= 0 {
            return Err(FixtureError::Inconsistent(format!(
                "{kind} id {id} is not > 0"
            )));
        }
        if !seen.insert(id) {
            return Err(FixtureError::Inconsistent(format!(
                "{kind} id {id} appears twice"
            )));
        }
    }
    Ok(seen)
}

fn known(kind: &str, id: i32, of: &str, ids: &HashSet<i32>) -> Result<(), FixtureError> {
    if ids.contains(&id) {
        Ok(())
    } else {
        Err(FixtureError::Inconsistent(format!(
            "{kind} refers to unknown {of} {id}"
        )))
    }
}

impl Seed {
    /// Parses and checks a fixture. Account phone numbers are normalised to E.164 so that
    /// logins find them whatever form the file used.
    pub fn parse(json: &str, region: DefaultRegion) -> Result<Self, FixtureError> {
        let deserializer = &mut serde_json::Deserializer::from_str(json);
        let fixture: Fixture =
            serde_path_to_error::deserialize(deserializer).map_err(|e| FixtureError::Format {
                path: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        let portals = unique("portal", fixture.portals.iter().map(|p| p.id))?;
        unique("account", fixture.accounts.iter().map(|a| a.id))?;
        let client_ids = unique("client", fixture.clients.iter().map(|c| c.id))?;
        let calls = unique("phone call", fixture.phone_calls.iter().map(|c| c.id))?;
        unique(
            "transcript line",
            fixture
                .phone_calls
                .iter()
                .flat_map(|c| c.transcript.iter().flatten().map(|l| l.id)),
        )?;
        unique(
            "client request",
            fixture.client_requests.iter().map(|r| r.id),
        )?;
        unique(
            "contact detail",
            fixture.contact_details.iter().map(|d| d.id),
        )?;
        unique(
            "questionnaire",
            fixture.questionnaires.iter().map(|q| q.detail.id),
        )?;
        let organisations: HashSet<i32> =
            fixture.portals.iter().map(|p| p.organisation_id).collect();
        let mut questionnaire_owners = HashMap::new();
        let mut questionnaires = Vec::with_capacity(fixture.questionnaires.len());
        for FixtureQuestionnaire {
            detail,
            organisation_id,
        } in fixture.questionnaires
        {
            if let Some(owner) = organisation_id {
                known(
                    &format!("questionnaire {}", detail.id),
                    owner,
                    "organisation",
                    &organisations,
                )?;
                questionnaire_owners.insert(detail.id, OrganisationId(owner));
            }
            questionnaires.push(detail);
        }

        let mut accounts = Vec::with_capacity(fixture.accounts.len());
        let mut phones = HashSet::new();
        for account in fixture.accounts {
            known("account", account.portal_id, "portal", &portals)?;
            let phone_number = phone::normalise(&account.phone_number, region).map_err(|e| {
                FixtureError::Inconsistent(format!("account {} phoneNumber {e}", account.id))
            })?;
            if !phones.insert(phone_number.clone()) {
                return Err(FixtureError::Inconsistent(format!(
                    "phone number {phone_number} belongs to two accounts"
                )));
            }
            accounts.push(Account {
                phone_number,
                ..account
            });
        }
        // Ten-digit national ids take their century from today's date.
        let today = chrono::Utc::now().date_naive();
        let mut national_ids = HashSet::new();
        let mut clients = fixture.clients;
        for client in &mut clients {
            known("client", client.portal_id, "portal", &portals)?;
            if let Some(raw) = &client.national_id {
                let normalised = national_id::normalise(raw, today).map_err(|reason| {
                    FixtureError::Inconsistent(format!("client {} nationalId {reason}", client.id))
                })?;
                if !national_ids.insert((client.portal_id, normalised.clone())) {
                    return Err(FixtureError::Inconsistent(format!(
                        "national id {normalised} belongs to two clients of portal {}",
                        client.portal_id
                    )));
                }
                client.national_id = Some(normalised);
            }
        }
        let mut phone_calls = fixture.phone_calls;
        for call in &mut phone_calls {
            known("phone call", call.portal_id, "portal", &portals)?;
            if call.client_id != 0 {
                known("phone call", call.client_id, "client", &client_ids)?;
            }
            for line in call.transcript.iter_mut().flatten() {
                match line.phone_call_id {
                    0 => line.phone_call_id = call.id,
                    id if id == call.id => {}
                    other => {
                        return Err(FixtureError::Inconsistent(format!(
                            "transcript line {} of call {} names call {other}",
                            line.id, call.id
                        )));
                    }
                }
            }
        }
        for request in &fixture.client_requests {
            known(
                "client request",
                request.phone_call_id,
                "phone call",
                &calls,
            )?;
            known("client request", request.portal_id, "portal", &portals)?;
        }
        for detail in &fixture.contact_details {
            known("contact detail", detail.portal_id, "portal", &portals)?;
            Window::parse(
                detail.contact_between_start.as_deref(),
                detail.contact_between_end.as_deref(),
            )
            .map_err(|e| {
                FixtureError::Inconsistent(format!("contact detail {}: {e}", detail.id))
            })?;
        }
        let mut open_entries = HashSet::new();
        for questionnaire in &questionnaires {
            for entry in &questionnaire.clients {
                known(
                    "questionnaire entry",
                    entry.client_id,
                    "client",
                    &client_ids,
                )?;
                let open = entry.phone_call_id.is_none() && entry.next_try_at.is_some();
                if open && !open_entries.insert((questionnaire.id, entry.client_id)) {
                    return Err(FixtureError::Inconsistent(format!(
                        "client {} has two open entries for questionnaire {}",
                        entry.client_id, questionnaire.id
                    )));
                }
            }
        }
        Ok(Self {
            portals: fixture.portals,
            accounts,
            clients,
            phone_calls,
            client_requests: fixture.client_requests,
            contact_details: fixture.contact_details,
            questionnaires,
            questionnaire_owners,
        })
    }

    /// The highest id of every kind, so counters can continue above them.
    pub fn counter_floors(&self) -> Vec<(&'static str, i32)> {
        fn top<T>(items: impl IntoIterator<Item = T>, id: impl Fn(T) -> i32) -> i32 {
            items.into_iter().map(id).max().unwrap_or(0)
        }
        let questions = self.questionnaires.iter().flat_map(|q| &q.questions);
        let entries = self.questionnaires.iter().flat_map(|q| &q.clients);
        let lines = self
            .phone_calls
            .iter()
            .flat_map(|c| c.transcript.iter().flatten());
        vec![
            (counters::PORTAL, top(&self.portals, |p| p.id)),
            (counters::ACCOUNT, top(&self.accounts, |a| a.id)),
            (counters::CLIENT, top(&self.clients, |c| c.id)),
            (counters::PHONE_CALL, top(&self.phone_calls, |c| c.id)),
            (counters::TRANSCRIPT_LINE, top(lines, |l| l.id)),
            (
                counters::CLIENT_REQUEST,
                top(&self.client_requests, |r| r.id),
            ),
            (
                counters::CONTACT_DETAIL,
                top(&self.contact_details, |d| d.id),
            ),
            (counters::QUESTIONNAIRE, top(&self.questionnaires, |q| q.id)),
            (counters::QUESTION, top(questions, |q| q.id)),
            (counters::QUESTIONNAIRE_ENTRY, top(entries, |e| e.id)),
        ]
    }

    /// Parses, checks and writes a fixture into a store.
    pub async fn load(
        json: &str,
        region: DefaultRegion,
        store: &dyn SeedWriter,
    ) -> Result<Self, FixtureError> {
        let seed = Self::parse(json, region)?;
        store.write_seed(&seed).await?;
        Ok(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fixture_keys_are_an_error_with_their_path() {
        let error = Seed::parse(
            r#"{"portals":[{"id":1,"colour":"red"}]}"#,
            Default::default(),
        )
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("portals[0]") && text.contains("colour"),
            "{text}"
        );
    }

    #[test]
    fn missing_fields_take_empty_values_and_transcript_lines_get_their_call() {
        let seed = Seed::parse(
            r#"{"portals":[{"id":1}],"phoneCalls":[{"id":7,"portalId":1,
                "transcript":[{"id":3,"createdAt":"2026-01-01T10:00:00+01:00"}]}]}"#,
            Default::default(),
        )
        .unwrap();
        let call = &seed.phone_calls[0];
        assert_eq!(call.summary, None);
        assert!(!call.is_unknown);
        let line = &call.transcript.as_ref().unwrap()[0];
        assert_eq!(line.phone_call_id, 7);
        assert_eq!(line.created_at.to_rfc3339(), "2026-01-01T09:00:00+00:00");
    }

    #[test]
    fn references_to_missing_records_are_rejected() {
        let error =
            Seed::parse(r#"{"clients":[{"id":1,"portalId":9}]}"#, Default::default()).unwrap_err();
        assert!(error.to_string().contains("unknown portal 9"));
    }

    #[test]
    fn counters_continue_above_the_highest_id() {
        let seed = Seed::parse(
            r#"{"portals":[{"id":4},{"id":2}],"clients":[{"id":40,"portalId":4}]}"#,
            Default::default(),
        )
        .unwrap();
        let floors = seed.counter_floors();
        assert!(floors.contains(&(counters::PORTAL, 4)));
        assert!(floors.contains(&(counters::CLIENT, 40)));
    }
}
