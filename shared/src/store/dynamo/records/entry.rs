//! A questionnaire entry as stored (open under its client's due key, closed under its id, with
//! its schedule, claim, outcomes and end), and a questionnaire's `META` item.

use crate::domain::{AttemptOutcome, EntryEnd, Schedule, entry_is_open};
use crate::ids::{OrganisationId, PortalId};
use crate::records::{QuestionnaireClientEntry, QuestionnaireSummary};
use crate::store::dynamo::expression::Expression;
use crate::store::dynamo::items::{
    Item, attribute, data_keys, encode, from_item, key, n, pk_of, s, to_item,
};
use crate::store::dynamo::keys;
use crate::store::{DueEntry, Owner, StoreError, StoreResult};

pub(crate) const SCHEDULE: &str = "schedule";
/// The attribute of a questionnaire's `META` item naming its organisation; absent on a template.
pub(crate) const QUESTIONNAIRE_OWNER: &str = "ownerOrganisationId";
pub(crate) const PENDING: &str = "pending";
/// The attributes of an entry holding its attempts' outcomes and how it ended.
pub(crate) const OUTCOMES: &str = "outcomes";
pub(crate) const ENDED: &str = "ended";

/// An entry as stored: open under `OPEN#{client}` in the due-time index, closed under
/// `ENTRY#{id}`, with its schedule.
pub(crate) fn entry_item(
    entry: &QuestionnaireClientEntry,
    portal_id: i32,
    schedule: &Schedule,
) -> StoreResult<Item> {
    let pk = keys::questionnaire_portal(entry.questionnaire_id, portal_id);
    let keys = match entry.next_try_at {
        Some(next) if entry_is_open(entry, schedule) => data_keys(
            pk,
            keys::open_entry(entry.client_id),
            Some((keys::due(entry.id), keys::due_at(next, entry.id))),
        ),
        _ => data_keys(pk, keys::closed_entry(entry.id), None),
    };
    let mut item = to_item(entry, keys)?;
    item.insert("gsi2pk".into(), s(keys::entry_id(entry.id)));
    item.insert(
        SCHEDULE.into(),
        serde_dynamo::to_attribute_value(schedule)
            .map_err(|e| StoreError::Corrupt(format!("cannot encode schedule: {e}")))?,
    );
    Ok(item)
}

pub(crate) fn entry_from_item(mut item: Item) -> StoreResult<QuestionnaireClientEntry> {
    for attribute in [SCHEDULE, PENDING, OUTCOMES, ENDED] {
        item.remove(attribute);
    }
    from_item(item)
}

/// The outcomes and end an entry's item keeps beside the record, written again whenever the
/// entry moves between its open and closed keys.
pub(crate) fn with_history(
    mut item: Item,
    outcomes: &[AttemptOutcome],
    ended: Option<EntryEnd>,
) -> StoreResult<Item> {
    if !outcomes.is_empty() {
        item.insert(OUTCOMES.into(), encode(&outcomes)?);
    }
    if let Some(ended) = ended {
        item.insert(ENDED.into(), encode(&ended)?);
    }
    Ok(item)
}

pub(crate) fn due_entry_from_item(mut item: Item) -> StoreResult<DueEntry> {
    let portal_id = keys::entry_portal(pk_of(&item))
        .ok_or_else(|| StoreError::Corrupt(format!("entry key {:?}", pk_of(&item))))?;
    let schedule = attribute(&mut item, SCHEDULE)?
        .ok_or_else(|| StoreError::Corrupt("entry without schedule".into()))?;
    let pending = attribute(&mut item, PENDING)?;
    let outcomes = attribute(&mut item, OUTCOMES)?.unwrap_or_default();
    let ended = attribute(&mut item, ENDED)?;
    Ok(DueEntry {
        entry: from_item(item)?,
        portal_id: PortalId(portal_id),
        schedule,
        pending,
        outcomes,
        ended,
    })
}

/// The key of the item holding an open entry the scheduler read.
pub(crate) fn open_entry_key(due: &DueEntry) -> Item {
    key(
        keys::questionnaire_portal(due.entry.questionnaire_id, due.portal_id.get()),
        Some(&keys::open_entry(due.entry.client_id)),
    )
}

/// The condition that an open entry is still as the scheduler read it: the same entry (a
/// client's `OPEN#` key is reused by its next entry), the same attempts, the same claim.
pub(crate) fn entry_as_read(
    due: &DueEntry,
    expression: &mut Expression,
) -> StoreResult<&'static str> {
    expression
        .name("#id", "id")
        .value(":id", n(due.entry.id))
        .name("#pending", PENDING);
    Ok(match due.pending {
        None => {
            expression
                .name("#schedule", SCHEDULE)
                .name("#attempts", "attempts")
                .value(":read", n(due.schedule.attempts));
            "#id = :id AND #schedule.#attempts = :read AND attribute_not_exists(#pending)"
        }
        Some(pending) => {
            expression
                .name("#attempt", "attempt")
                .name("#lease", "leaseUntil")
                .value(":held", n(pending.attempt))
                .value(":lease", encode(&pending.lease_until)?);
            "#id = :id AND #pending.#attempt = :held AND #pending.#lease = :lease"
        }
    })
}

/// A questionnaire's `META` item: the list form, and who owns it.
pub(crate) fn questionnaire_from_item(
    mut item: Item,
) -> StoreResult<(QuestionnaireSummary, Owner)> {
    let owner = attribute::<i32>(&mut item, QUESTIONNAIRE_OWNER)?.map(OrganisationId);
    Ok((from_item(item)?, Owner::of(owner)))
}
