//! One escalation step of an alert, as the scheduler's pass takes it for every due alert and
//! call ingestion takes it for the alert a call has just opened: the step written first,
//! conditional on the alert's version, the access record of the disclosure next, the SMS last.

use std::sync::Arc;

use chrono::TimeDelta;

use crate::config::ConfigError;
use crate::domain::{
    Alert, Delays, Delivery, EscalationState, FAILED_SEND_RETRY, Notification, next_step,
};
use crate::error::error_chain;
use crate::ids::{AlertId, PortalId};
use crate::notify::SmsSender;
use crate::records::{ContactDetail, Timestamp};
use crate::store::access_log::{Access, Accessor, Action};
use crate::store::{AccessLogWriter, EscalationStore, StoreError, StoredAlert};
use crate::zone::Zone;

impl Delays {
    /// `ESCALATION_DELAY_MINUTES` (default 30) and `URGENT_REPEAT_MINUTES` (default 5), each
    /// from 1 to 1440.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let minutes = |name: &'static str, default: TimeDelta| {
            let Some(value) = lookup(name).filter(|v| !v.trim().is_empty()) else {
                return Ok(default);
            };
            value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|minutes| (1..=1440).contains(minutes))
                .map(TimeDelta::minutes)
                .ok_or(ConfigError {
                    name,
                    problem: format!("{value:?} is not a number of minutes from 1 to 1440"),
                })
        };
        let default = Self::default();
        Ok(Self {
            step: minutes("ESCALATION_DELAY_MINUTES", default.step)?,
            urgent_repeat: minutes("URGENT_REPEAT_MINUTES", default.urgent_repeat)?,
        })
    }
}

/// What one alert's step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StepReport {
    /// `false` when another pass or an acknowledgement came first and nothing was sent.
    pub taken: bool,
    pub sent: usize,
    pub failed: usize,
}

/// Takes alerts' escalation steps.
#[derive(Clone)]
pub struct Escalator {
    pub alerts: Arc<dyn EscalationStore>,
    pub sms: Arc<dyn SmsSender>,
    /// Every SMS about an alert discloses a client's name: it is in the access log first.
    pub access_log: Arc<dyn AccessLogWriter>,
    pub zone: Zone,
    pub delays: Delays,
    /// Who the access log names as disclosing.
    pub accessor: Accessor,
}

impl Escalator {
    /// An escalator over the services' store and access log.
    pub fn new<S>(
        services: &crate::runtime::Services<S>,
        sms: Arc<dyn SmsSender>,
        delays: Delays,
        accessor: Accessor,
    ) -> Self
    where
        S: ?Sized + crate::store::Narrow<dyn EscalationStore>,
    {
        Self {
            alerts: services.store(),
            sms,
            access_log: services.access_log.clone(),
            zone: services.time_zone.clone(),
            delays,
            accessor,
        }
    }

    /// The step of one alert of `portal_id` at `now`, read first; `None` when it is gone.
    pub async fn step_now(
        &self,
        portal_id: PortalId,
        alert_id: AlertId,
        now: Timestamp,
    ) -> Result<Option<StepReport>, StoreError> {
        let (stored, contacts) = futures::future::try_join(
            self.alerts.alert_to_step(portal_id, alert_id),
            self.alerts.escalation_contacts(portal_id),
        )
        .await?;
        match stored {
            Some(stored) if stored.alert.is_due(now) => {
                self.step(&stored, &contacts, now).await.map(Some)
            }
            _ => Ok(None),
        }
    }

    /// The alert's next step at `now`, given its portal's contacts. The step is written first,
    /// conditional on the alert's version (so a concurrent pass or an acknowledgement wins and
    /// this one sends nothing), then its messages are sent. A message SNS refuses is written
    /// back as failed, and that contact is tried again `FAILED_SEND_RETRY` later.
    pub async fn step(
        &self,
        stored: &StoredAlert,
        contacts: &[ContactDetail],
        now: Timestamp,
    ) -> Result<StepReport, StoreError> {
        let read = &stored.alert;
        let step = next_step(read, contacts, now, &self.zone, self.delays);
        let mut next = read.clone();
        next.escalation = step.escalation;
        next.next_step_at = step.next_step_at;
        let first = next.notifications.len();
        next.notifications
            .extend(step.notify.iter().map(|contact| Notification {
                contact_detail_id: contact.id,
                name: contact.name.clone().unwrap_or_default(),
                round: step.round,
                at: now,
                delivery: Delivery::Sent,
            }));
        if !self.alerts.step_alert(stored.version, &next).await? {
            tracing::debug!(
                alert = read.id,
                "another pass or an acknowledgement came first"
            );
            return Ok(StepReport::default());
        }
        let client_name = stored.client_name.clone().unwrap_or_else(|| {
            if read.client_id > 0 {
                format!("Client {}", read.client_id)
            } else {
                "An unknown caller".to_string()
            }
        });
        let message = read.message(&client_name);
        let mut failed = 0;
        let logged = step.notify.is_empty() || self.disclosed(read, now, first).await;
        for (index, contact) in step.notify.iter().enumerate() {
            let number = contact.contact_number.as_deref().unwrap_or_default();
            let sent = if logged {
                self.sms.send_sms(number, &message).await
            } else {
                Err("the access record was not written".into())
            };
            if let Err(error) = sent {
                tracing::warn!(alert = read.id, contact = contact.id, %error, "alert SMS not sent");
                next.notifications[first + index].delivery = Delivery::Failed;
                failed += 1;
            }
        }
        crate::metrics::escalation_steps(step.notify.len() - failed);
        crate::metrics::sms_failed(failed);
        if failed > 0 {
            let retry = now + FAILED_SEND_RETRY;
            next.next_step_at = Some(next.next_step_at.map_or(retry, |at| at.min(retry)));
            if next.escalation == EscalationState::AllNotified {
                next.escalation = EscalationState::Notifying;
            }
            self.alerts.step_alert(stored.version + 1, &next).await?;
        }
        Ok(StepReport {
            taken: true,
            sent: step.notify.len() - failed,
            failed,
        })
    }

    /// Writes the access record of an alert's messages before they leave, as every route
    /// writes its record before its answer does; `false` (and no message may leave) when it
    /// could not be written. `step` (the index of the step's first notification) stands in for
    /// a request's trace id in the record's id.
    async fn disclosed(&self, alert: &Alert, now: Timestamp, step: usize) -> bool {
        let records = Access {
            portal_id: PortalId(alert.portal_id),
            accessor: self.accessor.clone(),
            action: Action::NotifyContacts,
            client_ids: vec![alert.client_id],
            call_ids: alert.phone_call_id.into_iter().collect(),
        }
        .records(now, 200, &format!("alert-{}-{step}", alert.id));
        match crate::audit::append(self.access_log.as_ref(), &records).await {
            Ok(()) => true,
            Err(error) => {
                tracing::error!(
                    alert = alert.id,
                    error = %error_chain(&error),
                    "access record not written; no SMS sent"
                );
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(name: &'static str, value: &'static str) -> impl Fn(&str) -> Option<String> {
        move |asked: &str| (asked == name).then(|| value.to_string())
    }

    #[test]
    fn the_delays_come_from_the_environment_within_a_day() {
        let default = Delays::from_lookup(|_| None).unwrap();
        assert_eq!(default.step, TimeDelta::minutes(30));
        assert_eq!(default.urgent_repeat, TimeDelta::minutes(5));
        let set = Delays::from_lookup(only("ESCALATION_DELAY_MINUTES", "45")).unwrap();
        assert_eq!(set.step, TimeDelta::minutes(45));
        let set = Delays::from_lookup(only("URGENT_REPEAT_MINUTES", "2")).unwrap();
        assert_eq!(set.urgent_repeat, TimeDelta::minutes(2));
        for name in ["ESCALATION_DELAY_MINUTES", "URGENT_REPEAT_MINUTES"] {
            for wrong in ["0", "1441", "half an hour", "-5"] {
                let error = Delays::from_lookup(move |asked: &str| {
                    (asked == name).then(|| wrong.to_string())
                })
                .unwrap_err();
                assert_eq!(error.name, name);
            }
        }
    }
}
