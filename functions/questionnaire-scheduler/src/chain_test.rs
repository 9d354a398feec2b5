//! The daily test of a portal's alarm chain, end to end: a test alert of the portal, one
//! escalation step through the same `Escalator` as real alerts (access record, SMS through
//! SNS) to the contact the test names, acknowledged at once, and its result published to the
//! operator. Configured per portal (`ALARM_CHAIN_TESTS`), off when empty.

use chrono::{NaiveDate, NaiveTime};
use serde::Serialize;

use shared::contact_window::parse_time;
use shared::domain::Alert;
use shared::ids::{AlertId, PortalId};
use shared::records::Timestamp;
use shared::store::StoreError;

use crate::{PassReport, Scheduler};

/// One portal's daily test: from `at` (local time) on each day, one SMS to
/// `contact_detail_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainTest {
    pub portal_id: PortalId,
    pub at: NaiveTime,
    pub contact_detail_id: i32,
}

/// `portalId/HH:MM/contactDetailId` entries separated by commas (the template's
/// `AlarmChainTests`), one per portal, since a portal is tested once a day; empty means no
/// test.
pub fn parse_chain_tests(text: &str) -> Result<Vec<ChainTest>, String> {
    let tests: Vec<ChainTest> = text
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let parts: Vec<&str> = entry.split('/').map(str::trim).collect();
            let [portal, at, contact] = parts[..] else {
                return Err(format!("{entry:?} is not portalId/HH:MM/contactDetailId"));
            };
            let id = |text: &str, what: &str| {
                text.parse::<i32>()
                    .ok()
                    .filter(|id| *id > 0)
                    .ok_or_else(|| format!("{entry:?}: {text:?} is not a {what} id"))
            };
            Ok(ChainTest {
                portal_id: PortalId(id(portal, "portal")?),
                at: parse_time(at)?,
                contact_detail_id: id(contact, "contact detail")?,
            })
        })
        .collect::<Result<_, String>>()?;
    let mut portals = std::collections::HashSet::new();
    if let Some(twice) = tests.iter().find(|test| !portals.insert(test.portal_id)) {
        return Err(format!(
            "portal {} is listed twice; a portal is tested once a day",
            twice.portal_id.get()
        ));
    }
    Ok(tests)
}

/// What one portal's test of one day found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainTestResult {
    pub portal_id: i32,
    pub day: NaiveDate,
    pub alert_id: i32,
    pub contact_detail_id: i32,
    pub passed: bool,
    /// Why it failed; `None` when it passed.
    pub problem: Option<String>,
}

impl Scheduler {
    /// Every configured test whose time has come today and that has not run today.
    pub(crate) async fn test_alarm_chains(&self, now: Timestamp, report: &mut PassReport) {
        let local = self.config.time_zone.local(now);
        for test in &self.config.chain_tests {
            if local.time() < test.at {
                continue;
            }
            match self.test_alarm_chain(test, local.date(), now).await {
                Ok(None) => {}
                Ok(Some(result)) => {
                    self.publish(&result).await;
                    report.chain_tests.push(result);
                }
                // Nothing was opened (a failure after opening is a failed result): the next
                // pass tries again, and a day without a passed test fires the operator's alarm.
                Err(error) => tracing::error!(
                    portal = test.portal_id.get(),
                    error = %shared::error::error_chain(&error),
                    "alarm-chain test not run"
                ),
            }
        }
    }

    /// The test of `day`, or `None` when that day's test of the portal was already opened.
    async fn test_alarm_chain(
        &self,
        test: &ChainTest,
        day: NaiveDate,
        now: Timestamp,
    ) -> Result<Option<ChainTestResult>, StoreError> {
        let contacts = self.alerts.escalation_contacts(test.portal_id).await?;
        let Some(opened) = self
            .alerts
            .open_test_alert(&Alert::test(test.portal_id.get(), now), day)
            .await?
        else {
            return Ok(None);
        };
        let recipient: Vec<_> = contacts
            .into_iter()
            .filter(|contact| contact.id == test.contact_detail_id)
            .collect();
        // Once opened, the day's test is not run again: whatever fails from here on is its
        // result, counted and published.
        let step = match self.escalator.step(&opened, &recipient, now).await {
            Ok(step) => step,
            Err(error) => {
                let problem = format!("the store failed during the step: {error}");
                return Ok(Some(
                    self.conclude(test, day, &opened, Some(problem), now).await,
                ));
            }
        };
        let problem = match recipient.first() {
            _ if step.sent == 1 => None,
            None => Some("the contact detail is not one of the portal's".to_string()),
            Some(contact) if !contact.is_active => Some("the contact is not active".to_string()),
            Some(contact) if contact.contact_number.as_deref().unwrap_or("").is_empty() => {
                Some("the contact has no number".to_string())
            }
            Some(_) if step.failed > 0 => Some("the SMS could not be sent".to_string()),
            Some(_) => Some("no SMS was sent".to_string()),
        };
        Ok(Some(self.conclude(test, day, &opened, problem, now).await))
    }

    /// Closes the test's alert and gives its result; a failure to close fails the test.
    async fn conclude(
        &self,
        test: &ChainTest,
        day: NaiveDate,
        opened: &shared::store::StoredAlert,
        mut problem: Option<String>,
        now: Timestamp,
    ) -> ChainTestResult {
        let alert_id = opened.alert.id;
        let closed = self
            .close_test(test.portal_id, AlertId(alert_id), problem.as_deref(), now)
            .await;
        if let Err(error) = closed {
            problem.get_or_insert_with(|| format!("the test alert could not be closed: {error}"));
        }
        ChainTestResult {
            portal_id: test.portal_id.get(),
            day,
            alert_id,
            contact_detail_id: test.contact_detail_id,
            passed: problem.is_none(),
            problem,
        }
    }

    /// Acknowledges the test alert as the system (account 0), with the result as its note.
    async fn close_test(
        &self,
        portal_id: PortalId,
        alert_id: AlertId,
        problem: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let Some(stored) = self.alerts.alert_to_step(portal_id, alert_id).await? else {
            return Ok(());
        };
        let note = match problem {
            None => "Daily alarm-chain test: passed.".to_string(),
            Some(problem) => format!("Daily alarm-chain test: failed, {problem}."),
        };
        let closed = stored.alert.acknowledged(0, Some(note), None, now);
        self.alerts.step_alert(stored.version, &closed).await?;
        Ok(())
    }

    /// The result as a metric (`AlarmChainTestSucceeded` or `AlarmChainTestFailed`, which
    /// the operator's alarms read) and on the operator's topic; a failure to publish is
    /// logged, since the metric still tells.
    async fn publish(&self, result: &ChainTestResult) {
        let subject = format!(
            "Alarm-chain test {} for portal {}",
            if result.passed { "passed" } else { "FAILED" },
            result.portal_id
        );
        let message = serde_json::to_string(result).unwrap_or_default();
        if result.passed {
            shared::metrics::alarm_chain_test_succeeded();
            tracing::info!(
                portal = result.portal_id,
                alert = result.alert_id,
                "alarm-chain test passed"
            );
        } else {
            shared::metrics::alarm_chain_test_failed();
            tracing::error!(
                portal = result.portal_id,
                alert = result.alert_id,
                problem = result.problem.as_deref().unwrap_or_default(),
                "alarm-chain test failed"
            );
        }
        if let Err(error) = self.operator.notify_operator(&subject, &message).await {
            tracing::warn!(%error, "alarm-chain test result not published");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tests_are_read_as_portal_time_and_contact() {
        assert_eq!(parse_chain_tests("").unwrap(), Vec::new());
        let tests = parse_chain_tests("1/07:30/301, 2/18:00/401").unwrap();
        assert_eq!(
            tests[0],
            ChainTest {
                portal_id: PortalId(1),
                at: NaiveTime::from_hms_opt(7, 30, 0).unwrap(),
                contact_detail_id: 301,
            }
        );
        assert_eq!(tests[1].portal_id, PortalId(2));
        for wrong in [
            "1/07:30",
            "x/07:30/301",
            "1/25:00/301",
            "1/07:30/0",
            "1/07:30/301/4",
            "1/07:30/301,1/19:00/302",
        ] {
            assert!(parse_chain_tests(wrong).is_err(), "{wrong}");
        }
    }
}
