//! Contact time windows (DESIGN.md section 5): `HH:mm` or `HH:mm:ss` in the portal's local
//! time, `[start, end)`, crossing midnight when start > end, all day when equal or both null.

use chrono::NaiveTime;

use crate::records::{ContactDetail, Timestamp};

/// Reads `HH:mm` or `HH:mm:ss` (00-23, 00-59, 00-59); nothing else.
pub fn parse_time(text: &str) -> Result<NaiveTime, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let two_digits = |part: &&str| part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit());
    if !matches!(parts.len(), 2 | 3) || !parts.iter().all(two_digits) {
        return Err(format!("{text:?} is not HH:mm or HH:mm:ss"));
    }
    let values: Vec<u32> = parts.iter().filter_map(|part| part.parse().ok()).collect();
    NaiveTime::from_hms_opt(values[0], values[1], values.get(2).copied().unwrap_or(0))
        .ok_or_else(|| format!("{text:?} is not a time of day"))
}

/// A validated window; `None` ends mean "all day" only when both are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: Option<NaiveTime>,
    pub end: Option<NaiveTime>,
}

impl Window {
    /// Both ends or neither: a window with one open end has no defined meaning.
    pub fn parse(start: Option<&str>, end: Option<&str>) -> Result<Self, WindowError> {
        let start = start
            .map(parse_time)
            .transpose()
            .map_err(WindowError::Start)?;
        let end = end.map(parse_time).transpose().map_err(WindowError::End)?;
        if start.is_some() != end.is_some() {
            return Err(WindowError::HalfOpen);
        }
        Ok(Self { start, end })
    }

    pub fn contains(&self, time: NaiveTime) -> bool {
        match (self.start, self.end) {
            (Some(start), Some(end)) if start < end => start <= time && time < end,
            (Some(start), Some(end)) if start > end => time >= start || time < end,
            _ => true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("contactBetweenStart {0}")]
    Start(String),
    #[error("contactBetweenEnd {0}")]
    End(String),
    #[error("contactBetweenStart and contactBetweenEnd must both be set or both be null")]
    HalfOpen,
}

/// Whether a contact detail is active at `now` in the portal's time zone. A stored window that
/// no longer parses counts as closed: better no call than a call at the wrong hour.
pub fn is_active(detail: &ContactDetail, now: Timestamp, zone: &crate::zone::Zone) -> bool {
    if !detail.is_active {
        return false;
    }
    let local = zone.local_time(now);
    Window::parse(
        detail.contact_between_start.as_deref(),
        detail.contact_between_end.as_deref(),
    )
    .is_ok_and(|window| window.contains(local))
}

/// The order of contact detail lists: priority ascending (1 before 2), then id.
pub fn sort(details: &mut [ContactDetail]) {
    details.sort_by_key(|detail| (detail.priority, detail.id));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> NaiveTime {
        parse_time(text).unwrap()
    }

    #[test]
    fn times_are_hh_mm_or_hh_mm_ss_and_nothing_else() {
        assert_eq!(t("07:30"), NaiveTime::from_hms_opt(7, 30, 0).unwrap());
        assert_eq!(t("23:59:59"), NaiveTime::from_hms_opt(23, 59, 59).unwrap());
        for bad in [
            "7:30",
            "24:00",
            "12:60",
            "12:00:60",
            "12",
            "12:00:00:00",
            "ab:cd",
            "",
            "12:0",
            "+1:00",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_window_includes_its_start_and_excludes_its_end() {
        let day = Window::parse(Some("07:00"), Some("16:00")).unwrap();
        assert!(!day.contains(t("06:59:59")));
        assert!(day.contains(t("07:00")));
        assert!(day.contains(t("15:59:59")));
        assert!(!day.contains(t("16:00")));
    }

    #[test]
    fn a_window_whose_start_is_after_its_end_crosses_midnight() {
        let night = Window::parse(Some("22:00"), Some("07:00")).unwrap();
        assert!(night.contains(t("22:00")));
        assert!(night.contains(t("00:00")));
        assert!(night.contains(t("06:59:59")));
        assert!(!night.contains(t("07:00")));
        assert!(!night.contains(t("21:59:59")));
    }

    #[test]
    fn equal_ends_or_no_ends_mean_all_day_and_one_end_is_refused() {
        assert!(Window::parse(None, None).unwrap().contains(t("03:00")));
        assert!(
            Window::parse(Some("08:00"), Some("08:00:00"))
                .unwrap()
                .contains(t("03:00"))
        );
        assert_eq!(
            Window::parse(Some("08:00"), None),
            Err(WindowError::HalfOpen)
        );
    }
}
