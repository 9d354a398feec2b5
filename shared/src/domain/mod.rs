//! Domain rules both stores and the handlers share: call statistics, retry schedules and call
//! outcomes and the alerts they raise, the triage of a call's words and the alert it raises,
//! question positions and the order of a call thread.

mod alert;
mod budget;
mod call_stats;
mod outcome;
mod questions;
mod schedule;
mod thread;
mod urgent;

pub use alert::{
    Alert, AlertReason, AlertStatus, Delays, Delivery, EscalationState, FAILED_SEND_RETRY,
    NO_CONTACT_RECHECK, Notification, REPORT_WAIT, Round, Step, next_step,
};
pub use budget::{SourcedBudget, SourcedEvent};
pub use call_stats::{CallStats, CountedCall, RECENT_CALL_WINDOW};
pub use outcome::{
    AttemptOutcome, BUSY_RETRY, CallOutcome, Effect, EntryEnd, effect_after_last_attempt, effect_of,
};
pub use questions::{MAX_QUESTIONS, question_refusal};
pub use schedule::{Schedule, entry_is_open};
pub use thread::order_thread;
pub use urgent::{
    AckOutcome, AlertCategory, CallFinding, CallOrigin, MAX_WORDS, triage_call, warm_triage,
};
