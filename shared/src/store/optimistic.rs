//! Optimistic concurrency, written once: read, decide, write on the condition that nothing
//! changed since the read, and start again from the read when another writer came first. Every
//! handler and store loop counts its rounds with `Rounds`, so all of them share one bound, one pause and
//! one answer for a record that keeps changing (`StoreError::KeptChanging`, which the API
//! answers 503 with `Retry-After`, since the same request very likely passes a moment later).

use std::time::Duration;

use crate::store::{StoreError, StoreResult};

/// Rounds a read-decide-write may lose before it gives up: enough for the races a single
/// record sees in practice (a login and a logout, two deliveries of one call).
pub const ROUNDS: u32 = 3;

/// How one round ended: with its result, or having lost the race to another writer.
#[derive(Debug, Clone, PartialEq)]
pub enum Round<T> {
    Done(T),
    Lost,
}

/// A conditional write's result read as a round.
pub trait LostRace<T> {
    /// A failed condition means another writer changed the record since it was read.
    fn or_lost(self) -> StoreResult<Round<T>>;
    /// As `or_lost`, and a transaction DynamoDB cancelled for a conflicting transaction (or
    /// throttled) is lost too: both leave nothing written and pass when tried again.
    fn or_lost_transaction(self) -> StoreResult<Round<T>>;
    /// Whether a conditional write was made: `false` when its condition failed.
    fn applied(self) -> StoreResult<bool>;
    /// A conditional write's result, or `None` when its condition failed (for a write whose
    /// condition is that the record exists, a missing record).
    fn if_applied(self) -> StoreResult<Option<T>>;
}

impl<T> LostRace<T> for StoreResult<T> {
    fn or_lost(self) -> StoreResult<Round<T>> {
        match self {
            Ok(value) => Ok(Round::Done(value)),
            Err(StoreError::ConditionFailed) => Ok(Round::Lost),
            Err(other) => Err(other),
        }
    }

    fn or_lost_transaction(self) -> StoreResult<Round<T>> {
        match self {
            Err(StoreError::Throttled(_)) => Ok(Round::Lost),
            other => other.or_lost(),
        }
    }

    fn applied(self) -> StoreResult<bool> {
        Ok(self.if_applied()?.is_some())
    }

    fn if_applied(self) -> StoreResult<Option<T>> {
        Ok(match self.or_lost()? {
            Round::Done(value) => Some(value),
            Round::Lost => None,
        })
    }
}

/// The rounds of one read-then-conditional-write loop. Each round starts with `start`, which
/// pauses a short random time before every round but the first (so that a crowd of writers
/// spreads out) and ends the loop with `StoreError::KeptChanging` once all are lost:
///
/// ```ignore
/// let mut rounds = Rounds::new(ROUNDS, "the phone call");
/// loop {
///     rounds.start().await?;
///     let read = store.read().await?;
///     if let Round::Done(written) = store.write(&read).await.or_lost()? {
///         return Ok(written);
///     }
/// }
/// ```
///
/// A loop rather than a closure: each round may return early with any answer, and the futures
/// stay `Send` for `async_trait`.
#[derive(Debug)]
pub struct Rounds {
    played: u32,
    rounds: u32,
    what: &'static str,
}

impl Rounds {
    /// At most `rounds` rounds; `what` names the record in the error.
    pub fn new(rounds: u32, what: &'static str) -> Self {
        Self {
            played: 0,
            rounds,
            what,
        }
    }

    pub async fn start(&mut self) -> StoreResult<()> {
        if self.played >= self.rounds {
            return Err(StoreError::KeptChanging(self.what));
        }
        if self.played > 0 {
            let pause = rand::random_range(0..10 * u64::from(self.played));
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
        self.played += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop as the stores and handlers write it, over a write that loses `losses` times.
    async fn write_losing(losses: u32) -> (StoreResult<i32>, u32) {
        let mut calls = 0;
        let mut rounds = Rounds::new(ROUNDS, "the record");
        let result = loop {
            if let Err(error) = rounds.start().await {
                break Err(error);
            }
            calls += 1;
            let write = if calls > losses {
                Ok(7)
            } else {
                Err(StoreError::ConditionFailed)
            };
            match write.or_lost() {
                Ok(Round::Done(value)) => break Ok(value),
                Ok(Round::Lost) => continue,
                Err(error) => break Err(error),
            }
        };
        (result, calls)
    }

    #[tokio::test]
    async fn a_write_lost_twice_then_done_returns_its_value() {
        let (result, calls) = write_losing(2).await;
        assert_eq!(result.unwrap(), 7);
        assert_eq!(calls, 3);
    }

    #[tokio::test]
    async fn rounds_all_lost_end_in_kept_changing_naming_the_record() {
        let (result, calls) = write_losing(ROUNDS).await;
        assert!(matches!(
            result,
            Err(StoreError::KeptChanging("the record"))
        ));
        assert_eq!(calls, ROUNDS);
    }

    #[test]
    fn only_a_failed_condition_is_a_lost_race_outside_a_transaction() {
        assert_eq!(Ok::<_, StoreError>(1).or_lost().unwrap(), Round::Done(1));
        assert_eq!(
            Err::<i32, _>(StoreError::ConditionFailed)
                .or_lost()
                .unwrap(),
            Round::Lost
        );
        assert!(
            Err::<i32, _>(StoreError::Throttled("busy".into()))
                .or_lost()
                .is_err()
        );
        assert_eq!(
            Err::<i32, _>(StoreError::Throttled("busy".into()))
                .or_lost_transaction()
                .unwrap(),
            Round::Lost
        );
    }
}
