//! How passes behave: calling hours in the portals' time zone, the lease of a claimed
//! attempt, a pass's limits, the escalation delays and the daily alarm-chain tests, read from
//! the environment.

use std::time::Duration;

use chrono::{NaiveTime, TimeDelta};

use shared::config::ConfigError;
use shared::contact_window::{Window, parse_time};
use shared::domain::Delays;
use shared::records::Timestamp;

use crate::chain_test::{ChainTest, parse_chain_tests};

/// How passes behave; `from_lookup` reads it from the environment.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Calls are placed only inside these hours of `time_zone` (`CALLING_HOURS`).
    pub calling_hours: Window,
    pub time_zone: shared::zone::Zone,
    /// How long a claimed attempt is held by its pass before another pass may send it.
    pub lease: TimeDelta,
    /// The most entries one pass takes on; the rest wait for the next pass.
    pub max_entries: usize,
    /// Time kept free at the end of an invocation: no chunk is started after it.
    pub deadline_margin: Duration,
    /// How long an alert's contact has to acknowledge it before the next one is messaged
    /// (`ESCALATION_DELAY_MINUTES`), and how often an urgent alert's round is repeated
    /// (`URGENT_REPEAT_MINUTES`).
    pub delays: Delays,
    /// The daily tests of portals' alarm chains (`ALARM_CHAIN_TESTS`); none by default.
    pub chain_tests: Vec<ChainTest>,
}

impl SchedulerConfig {
    /// 09:00-19:00 in `time_zone`.
    pub fn new(time_zone: shared::zone::Zone) -> Self {
        Self {
            calling_hours: Window {
                start: NaiveTime::from_hms_opt(9, 0, 0),
                end: NaiveTime::from_hms_opt(19, 0, 0),
            },
            time_zone,
            lease: TimeDelta::seconds(60),
            max_entries: 50_000,
            deadline_margin: Duration::from_secs(20),
            delays: Delays::default(),
            chain_tests: Vec::new(),
        }
    }

    /// `CALLING_HOURS` as `HH:mm-HH:mm` (equal ends: any time), default 09:00-19:00.
    pub fn from_lookup(
        time_zone: shared::zone::Zone,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let mut config = Self::new(time_zone);
        if let Some(hours) = lookup("CALLING_HOURS").filter(|v| !v.trim().is_empty()) {
            config.calling_hours = parse_calling_hours(&hours).map_err(|problem| ConfigError {
                name: "CALLING_HOURS",
                problem,
            })?;
        }
        if let Some(tests) = lookup("ALARM_CHAIN_TESTS") {
            config.chain_tests = parse_chain_tests(&tests).map_err(|problem| ConfigError {
                name: "ALARM_CHAIN_TESTS",
                problem,
            })?;
        }
        config.delays = Delays::from_lookup(lookup)?;
        Ok(config)
    }

    pub fn within_calling_hours(&self, at: Timestamp) -> bool {
        self.calling_hours.contains(self.time_zone.local_time(at))
    }
}

/// `HH:mm-HH:mm`, the window the contact windows use: `[start, end)`, across midnight when
/// start > end.
pub fn parse_calling_hours(text: &str) -> Result<Window, String> {
    let (start, end) = text
        .trim()
        .split_once('-')
        .ok_or_else(|| format!("{text:?} is not HH:mm-HH:mm"))?;
    Ok(Window {
        start: Some(parse_time(start.trim())?),
        end: Some(parse_time(end.trim())?),
    })
}
