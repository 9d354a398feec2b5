//! How a questionnaire's client entry is retried, and when it is still open.

use crate::records::{QuestionnaireClientEntry, QuestionnaireDetail};

/// How a client entry is retried: the parameters given at start and the attempts made so far.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    /// Days before the first retry; later retries wait `interval * multiplier^(attempt-1)`.
    pub interval: i32,
    /// How many attempts (calls) at most.
    pub retries: i32,
    pub multiplier: f64,
    pub attempts: i32,
}

impl Schedule {
    /// The schedule of an entry that came without one (a fixture): the questionnaire's own.
    pub fn defaults_of(questionnaire: &QuestionnaireDetail) -> Self {
        Self {
            interval: questionnaire.retry_interval_days.max(0),
            retries: questionnaire.max_tries.clamp(1, 10),
            multiplier: questionnaire.interval_back_off_multiplier.clamp(1.0, 10.0),
            attempts: 0,
        }
    }
}

/// Open: still to be called. No call recorded yet, a next try set, and attempts left.
pub fn entry_is_open(entry: &QuestionnaireClientEntry, schedule: &Schedule) -> bool {
    entry.phone_call_id.is_none()
        && entry.next_try_at.is_some()
        && schedule.attempts < schedule.retries
}
