//! Why a call attempt reached nobody, as the dialler reports it (`call.failed`), and what the
//! entry's next try is after it.

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use crate::domain::Schedule;
use crate::records::Timestamp;

/// A busy line is tried again this soon (the scheduler still calls only within calling hours).
pub const BUSY_RETRY: TimeDelta = TimeDelta::minutes(30);

/// What became of an attempt that reached nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    NoAnswer,
    Busy,
    Voicemail,
    InvalidNumber,
    Rejected,
    Failed,
}

/// An attempt's outcome as the entry keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptOutcome {
    pub attempt: i32,
    pub outcome: CallOutcome,
    /// When the attempt was placed (`startDate` of the report).
    pub at: chrono::DateTime<chrono::Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why an entry ended without a call that reached its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryEnd {
    /// The number does not exist: no retry can reach the client.
    InvalidNumber,
    /// The client refused the call: not tried again, and not an alarm.
    Refused,
    /// Every attempt was made and the last one reached nobody.
    Exhausted,
}

/// What an outcome does to its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Kept with the entry; the next try stays as the back-off set it.
    Record,
    /// The next try moves to this time.
    RetryAt(Timestamp),
    /// No more tries.
    End(EntryEnd),
}

impl Effect {
    /// Whether writing this effect raises the entry's alert (an end that is not a refusal).
    pub fn raises_alert(self) -> bool {
        matches!(self, Self::End(end) if crate::domain::AlertReason::of(end).is_some())
    }
}

/// The effect of `outcome` on an open entry whose latest attempt is `schedule.attempts` and
/// whose next try is `next_try_at`. Only the latest attempt's outcome moves the schedule: a
/// late report of an earlier attempt is kept and changes nothing.
pub fn effect_of(
    outcome: &AttemptOutcome,
    schedule: &Schedule,
    next_try_at: Option<Timestamp>,
) -> Effect {
    // Attempt 0: nothing was placed yet, so the report cannot be about the latest attempt.
    if schedule.attempts == 0 || outcome.attempt != schedule.attempts {
        return Effect::Record;
    }
    match outcome.outcome {
        CallOutcome::InvalidNumber => Effect::End(EntryEnd::InvalidNumber),
        CallOutcome::Rejected => Effect::End(EntryEnd::Refused),
        CallOutcome::Busy => match next_try_at {
            // Sooner than the back-off, never later; without attempts left there is no next try.
            Some(next) if schedule.attempts < schedule.retries => {
                Effect::RetryAt(next.min(outcome.at + BUSY_RETRY))
            }
            _ => Effect::Record,
        },
        CallOutcome::NoAnswer | CallOutcome::Voicemail | CallOutcome::Failed => Effect::Record,
    }
}

/// The effect of `outcome` on an entry its scheduler closed when it handed over the last
/// attempt, which no call has reached and nothing has ended yet: a report that this last
/// attempt reached nobody ends it (`Exhausted`, or as an invalid number or a refusal says).
pub fn effect_after_last_attempt(outcome: &AttemptOutcome, schedule: &Schedule) -> Effect {
    let last = schedule.attempts > 0 && schedule.attempts >= schedule.retries;
    if !last || outcome.attempt != schedule.attempts {
        return Effect::Record;
    }
    Effect::End(match outcome.outcome {
        CallOutcome::InvalidNumber => EntryEnd::InvalidNumber,
        CallOutcome::Rejected => EntryEnd::Refused,
        CallOutcome::NoAnswer
        | CallOutcome::Busy
        | CallOutcome::Voicemail
        | CallOutcome::Failed => EntryEnd::Exhausted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn schedule(attempts: i32) -> Schedule {
        Schedule {
            interval: 1,
            retries: 3,
            multiplier: 1.0,
            attempts,
        }
    }

    fn outcome(attempt: i32, outcome: CallOutcome) -> AttemptOutcome {
        AttemptOutcome {
            attempt,
            outcome,
            at: at("2026-11-23T10:00:00Z"),
            detail: None,
        }
    }

    #[test]
    fn a_busy_line_is_tried_again_in_half_an_hour_instead_of_after_the_back_off() {
        let next = Some(at("2026-11-24T10:00:00Z"));
        let effect = effect_of(&outcome(1, CallOutcome::Busy), &schedule(1), next);
        assert_eq!(effect, Effect::RetryAt(at("2026-11-23T10:30:00Z")));
    }

    #[test]
    fn no_answer_voicemail_and_failures_keep_the_back_off() {
        let next = Some(at("2026-11-24T10:00:00Z"));
        for kind in [
            CallOutcome::NoAnswer,
            CallOutcome::Voicemail,
            CallOutcome::Failed,
        ] {
            assert_eq!(
                effect_of(&outcome(1, kind), &schedule(1), next),
                Effect::Record
            );
        }
    }

    #[test]
    fn an_invalid_number_ends_the_entry_and_a_refusal_stops_it() {
        let next = Some(at("2026-11-24T10:00:00Z"));
        assert_eq!(
            effect_of(&outcome(1, CallOutcome::InvalidNumber), &schedule(1), next),
            Effect::End(EntryEnd::InvalidNumber)
        );
        assert_eq!(
            effect_of(&outcome(1, CallOutcome::Rejected), &schedule(1), next),
            Effect::End(EntryEnd::Refused)
        );
    }

    #[test]
    fn the_last_attempt_reaching_nobody_ends_the_entry_as_exhausted() {
        let last = Schedule {
            retries: 3,
            ..schedule(3)
        };
        assert_eq!(
            effect_after_last_attempt(&outcome(3, CallOutcome::Busy), &last),
            Effect::End(EntryEnd::Exhausted)
        );
        assert_eq!(
            effect_after_last_attempt(&outcome(3, CallOutcome::InvalidNumber), &last),
            Effect::End(EntryEnd::InvalidNumber)
        );
        assert_eq!(
            effect_after_last_attempt(&outcome(2, CallOutcome::NoAnswer), &last),
            Effect::Record,
            "an earlier attempt's report"
        );
        assert_eq!(
            effect_after_last_attempt(&outcome(2, CallOutcome::NoAnswer), &schedule(2)),
            Effect::Record,
            "attempts left: not the last"
        );
    }

    #[test]
    fn an_end_raises_an_alert_unless_the_client_refused() {
        assert!(Effect::End(EntryEnd::Exhausted).raises_alert());
        assert!(Effect::End(EntryEnd::InvalidNumber).raises_alert());
        assert!(!Effect::End(EntryEnd::Refused).raises_alert());
        assert!(!Effect::Record.raises_alert());
        assert!(!Effect::RetryAt(at("2026-11-24T10:00:00Z")).raises_alert());
    }

    #[test]
    fn a_late_report_of_an_earlier_attempt_changes_nothing() {
        let next = Some(at("2026-11-24T10:00:00Z"));
        assert_eq!(
            effect_of(&outcome(1, CallOutcome::InvalidNumber), &schedule(2), next),
            Effect::Record
        );
    }
}
