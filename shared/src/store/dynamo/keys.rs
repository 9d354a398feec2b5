//! Every key this store writes, in one place, so writers and readers cannot disagree: one
//! table, one key namespace.

use super::items::padded;

pub fn portal(id: i32) -> String {
    format!("PORTAL#{id}")
}
/// The `gsi1pk` of an organisation's portals.
pub fn organisation(id: i32) -> String {
    format!("ORGANISATION#{id}")
}
pub fn client(id: i32) -> String {
    format!("CLIENT#{}", padded(id))
}
pub fn contact(id: i32) -> String {
    format!("CONTACT#{}", padded(id))
}
pub fn account(phone: &str) -> String {
    format!("ACCOUNT#{phone}")
}
pub fn call(id: i32) -> String {
    format!("CALL#{id}")
}
pub fn line(id: i32) -> String {
    format!("LINE#{}", padded(id))
}
pub fn request(id: i32) -> String {
    format!("REQ#{}", padded(id))
}
/// The `gsi2pk` of a client's requests, wherever their calls are: the caller context counts them.
pub fn client_requests(portal: i32, client: i32) -> String {
    format!("REQUESTS#{portal}#{}", padded(client))
}
pub fn connected_to(id: i32) -> String {
    format!("CONNECTED#{id}")
}
pub fn national_id(id: &str) -> String {
    format!("NATID#{id}")
}
/// Above every padded client id, so `CLIENT#{id}`..`CLIENTS_END` is the portal's clients.
pub const CLIENTS_END: &str = "CLIENT#9999999999";
pub const IMPORT_GUARD: &str = "IMPORTGUARD";
pub const COUNTER: &str = "COUNTER";
pub fn questionnaire(id: i32) -> String {
    format!("QUESTIONNAIRE#{id}")
}
/// The id in a questionnaire's own key (`QUESTIONNAIRE#{id}`), not in a portal's key under it.
pub fn questionnaire_id(pk: &str) -> Option<i32> {
    pk.strip_prefix("QUESTIONNAIRE#")?.parse().ok()
}
pub fn questionnaire_portal(id: i32, portal: i32) -> String {
    format!("QUESTIONNAIRE#{id}#PORTAL#{portal}")
}
pub fn question(id: i32) -> String {
    format!("QUESTION#{}", padded(id))
}
/// The version item that serialises question inserts of one questionnaire.
pub const QUESTIONS_VERSION: &str = "QUESTIONS";
/// A client's open entry: one per questionnaire and client, which keeps starts idempotent.
pub fn open_entry(client_id: i32) -> String {
    format!("OPEN#{}", padded(client_id))
}
/// Every entry, open or closed, under its id in `gsi2`.
pub fn entry_id(entry_id: i32) -> String {
    format!("QENTRY#{}", padded(entry_id))
}
pub fn answer(entry_id: i32, question_id: i32) -> String {
    format!("ANSWER#{}#{}", padded(entry_id), padded(question_id))
}
/// A delivery from the voice platform that was processed (its receipt).
pub fn event(event_id: &str) -> String {
    format!("EVENT#{event_id}")
}
/// A conversation recorded as a call, by the platform's conversation uuid.
pub fn conversation(uuid: &str) -> String {
    format!("CONV#{uuid}")
}
/// An analysis waiting for its conversation's call.
/// What the agent's tools did during a conversation, until (and after) it is recorded.
pub fn live_call(uuid: &str) -> String {
    format!("LIVE#{uuid}")
}
pub fn held_analysis(uuid: &str) -> String {
    format!("ANALYSIS#{uuid}")
}
/// A closed entry (called, or out of attempts), kept for the record.
pub fn closed_entry(entry_id: i32) -> String {
    format!("ENTRY#{}", padded(entry_id))
}
/// Shards of the due-time index (`gsi1`) that the scheduler reads open entries from.
pub const DUE_SHARDS: i32 = 8;
pub fn due(entry_id: i32) -> String {
    format!("DUE#{}", entry_id.rem_euclid(DUE_SHARDS))
}
/// Fixed-width UTC time first, so that string order is time order.
pub fn due_at(at: crate::records::Timestamp, entry_id: i32) -> String {
    format!("{}#{}", due_time(at), padded(entry_id))
}
/// Above every `due_at(at, _)`: the upper bound of a due Query at `at`.
pub fn due_until(at: crate::records::Timestamp) -> String {
    format!("{}#~", due_time(at))
}
fn due_time(at: crate::records::Timestamp) -> String {
    instant(at)
}
/// An instant as a sort key: fixed width, so that keys sort in time.
pub fn instant(at: crate::records::Timestamp) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}
/// The portal of an entry from its partition key (`QUESTIONNAIRE#{q}#PORTAL#{p}`).
pub fn entry_portal(pk: &str) -> Option<i32> {
    pk.strip_prefix("QUESTIONNAIRE#")?
        .split_once("#PORTAL#")?
        .1
        .parse()
        .ok()
}
pub const META: &str = "META";
pub fn session(hash: &str) -> String {
    format!("SESSION#{hash}")
}
pub fn account_sessions(account_id: i32) -> String {
    format!("SESSIONS#{account_id}")
}
/// One OTP request of a number: requests from different addresses stand side by side.
pub fn otp(phone: &str, request_id: &str) -> String {
    format!("OTP#{phone}#{request_id}")
}
pub fn otp_sends(phone: &str) -> String {
    format!("OTPSENDS#{phone}")
}
/// A portal's alert, by its id.
pub fn alert(id: i32) -> String {
    format!("ALERT#{}", padded(id))
}
/// The marker of a portal's daily alarm-chain test of `day`: at most one test a day.
pub fn chain_test(day: chrono::NaiveDate) -> String {
    format!("CHAINTEST#{day}")
}
/// Above every padded alert id, so `ALERT#{id}`..`ALERTS_END` is the portal's alerts.
pub const ALERTS_END: &str = "ALERT#~";
/// The `gsi1` partition of open alerts waiting for their next escalation step; alerts are few
/// (one per entry that reached nobody, one per call that needs staff), so one partition holds
/// them.
pub const ESCALATION: &str = "ESCALATION";
/// What one account opened in one period (`ReadingWatch`): a partition of its own, so that
/// a data function's permission to count reads (IAM `dynamodb:LeadingKeys` `READING#*`)
/// reaches no other item.
pub fn reading(portal: i32, account: i32) -> String {
    format!("READING#{portal}#{account}")
}
/// The `gsi1` partition of periods that went over their threshold and wait for their alert.
pub const UNUSUAL: &str = "UNUSUAL";
/// The `gsi1` partition that lists every questionnaire (templates are shared by all
/// organisations, and few).
pub const QUESTIONNAIRES: &str = "QUESTIONNAIRES";
