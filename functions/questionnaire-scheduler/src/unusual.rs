//! Unusual reading's alerts: each period in which an account opened more clients than the
//! threshold becomes one `unusual_access` alert for the portal's admins at the next pass. The
//! data functions only count (their permission reaches no alert); the scheduler, which writes
//! alerts anyway, opens them.

use shared::error::error_chain;
use shared::records::Timestamp;

use crate::{PassReport, Scheduler};

/// The most periods one pass raises; more wait for the next pass.
const MAX_READINGS: usize = 100;

impl Scheduler {
    pub(crate) async fn raise_unusual_access(&self, now: Timestamp, report: &mut PassReport) {
        let readings = match self.readings.unusual_readings(MAX_READINGS).await {
            Ok(readings) => readings,
            Err(error) => {
                tracing::warn!(error = %error_chain(&error), "unusual reading not looked at");
                return;
            }
        };
        for reading in readings {
            match self.readings.open_unusual_access_alert(&reading).await {
                Ok(Some(stored)) => {
                    report.unusual_access_alerts += 1;
                    tracing::warn!(
                        at = %now,
                        portal_id = reading.portal_id,
                        account_id = reading.account_id,
                        alert_id = stored.alert.id,
                        "unusual reading: an alert for the portal's admins"
                    );
                }
                Ok(None) => {}
                Err(error) => tracing::warn!(
                    portal_id = reading.portal_id,
                    account_id = reading.account_id,
                    error = %error_chain(&error),
                    "unusual-access alert not opened; the next pass tries again"
                ),
            }
        }
    }
}
