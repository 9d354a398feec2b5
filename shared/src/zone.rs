//! The portal's time zone (`PORTAL_TIME_ZONE`): an IANA zone from the time zone database
//! bundled into the binary, and the local time of day at an instant.
//!
//! jiff's bundled database is one compact blob. chrono-tz compiled every zone into tables of
//! pointers that the loader relocates at every process start (contact-details had 59,287
//! load-time relocations with chrono-tz and 30,904 with jiff, and lost 1.6 MB;
//! docs/performance.md).

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

use crate::records::Timestamp;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone(jiff::tz::TimeZone);

impl Zone {
    /// The zone of an IANA name such as `Europe/Stockholm`.
    pub fn named(name: &str) -> Result<Self, String> {
        jiff::tz::TimeZone::get(name)
            .map(Self)
            .map_err(|_| format!("{name:?} is not an IANA time zone"))
    }

    /// The default zone of the service's portals.
    pub fn stockholm() -> Self {
        Self::named("Europe/Stockholm").expect("the bundled database has Europe/Stockholm")
    }

    /// The time of day on the zone's clocks at `at`.
    pub fn local_time(&self, at: Timestamp) -> NaiveTime {
        self.local(at).time()
    }

    /// The date and time on the zone's clocks at `at`.
    pub fn local(&self, at: Timestamp) -> NaiveDateTime {
        let nanos = i32::try_from(at.timestamp_subsec_nanos()).unwrap_or(0);
        let instant =
            jiff::Timestamp::new(at.timestamp(), nanos).unwrap_or(if at.timestamp() < 0 {
                jiff::Timestamp::MIN
            } else {
                jiff::Timestamp::MAX
            });
        let local = self.0.to_datetime(instant);
        let part = |value: i8| u32::try_from(value).unwrap_or(0);
        let date = NaiveDate::from_ymd_opt(
            i32::from(local.year()),
            part(local.month()),
            part(local.day()),
        )
        .unwrap_or(NaiveDate::MIN);
        let time = NaiveTime::from_hms_nano_opt(
            part(local.hour()),
            part(local.minute()),
            part(local.second()),
            u32::try_from(local.subsec_nanosecond()).unwrap_or(0),
        )
        .unwrap_or(NaiveTime::MIN);
        date.and_time(time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn the_local_date_changes_at_local_midnight() {
        let stockholm = Zone::stockholm();
        let before = stockholm.local(at("2026-11-24T22:59:00Z"));
        let after = stockholm.local(at("2026-11-24T23:00:00Z"));
        assert_eq!(before.to_string(), "2026-11-24 23:59:00");
        assert_eq!(after.to_string(), "2026-11-25 00:00:00");
    }

    #[test]
    fn local_time_follows_summer_and_winter_time() {
        let stockholm = Zone::stockholm();
        assert_eq!(
            stockholm.local_time(at("2026-01-15T08:30:15Z")),
            NaiveTime::from_hms_opt(9, 30, 15).unwrap()
        );
        assert_eq!(
            stockholm.local_time(at("2026-07-15T08:30:15Z")),
            NaiveTime::from_hms_opt(10, 30, 15).unwrap()
        );
        // The spring change: 01:00 UTC is 03:00 local, the hour 02:00-03:00 never happens.
        assert_eq!(
            stockholm.local_time(at("2026-03-29T01:00:00Z")),
            NaiveTime::from_hms_opt(3, 0, 0).unwrap()
        );
        let tokyo = Zone::named("Asia/Tokyo").unwrap();
        assert_eq!(
            tokyo.local_time(at("2026-07-15T20:00:00.5Z")),
            NaiveTime::from_hms_milli_opt(5, 0, 0, 500).unwrap()
        );
    }

    #[test]
    fn unknown_names_are_refused() {
        assert!(Zone::named("Mars/Olympus").is_err());
        assert!(Zone::named("").is_err());
    }
}
