//! The item each record is stored as, shared by every capability that reads or writes the
//! record (a client is written by import and seed, read by clients, organisations and
//! questionnaires), so that no capability reaches into another's store code for it.

pub(crate) mod account;
pub(crate) mod call;
pub(crate) mod client;
pub(crate) mod entry;
pub(crate) mod live;

pub(crate) use account::ACCOUNT_ORGANISATION;
pub(crate) use call::{answer_item, call_items, request_item};
pub(crate) use client::{CALL_STATS, client_from_item, client_item, national_id_claim};
pub(crate) use entry::{
    ENDED, OUTCOMES, PENDING, QUESTIONNAIRE_OWNER, SCHEDULE, due_entry_from_item, entry_as_read,
    entry_from_item, entry_item, open_entry_key, questionnaire_from_item, with_history,
};
pub(crate) use live::live_from_item;
