//! Unit tests of the scheduler's pass helpers.

use super::*;
use chrono::NaiveTime;

fn schedule(interval: i32, retries: i32, multiplier: f64) -> Schedule {
    Schedule {
        interval,
        retries,
        multiplier,
        attempts: 0,
    }
}

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

#[test]
fn retries_back_off_by_the_multiplier_and_stop_after_the_last_attempt() {
    let now = at("2026-11-20T10:00:00Z");
    let s = schedule(2, 4, 1.5);
    assert_eq!(next_try(now, &s, 1), Some(now + TimeDelta::days(2)));
    assert_eq!(next_try(now, &s, 2), Some(now + TimeDelta::days(3)));
    assert_eq!(next_try(now, &s, 3), Some(now + TimeDelta::hours(108)));
    assert_eq!(next_try(now, &s, 4), None);
}

#[test]
fn an_enormous_back_off_is_capped_at_ten_years() {
    let now = at("2026-11-20T10:00:00Z");
    let s = schedule(365, 10, 10.0);
    assert_eq!(next_try(now, &s, 9), Some(now + MAX_RETRY_DELAY));
}

#[test]
fn calling_hours_are_read_in_the_portal_time_zone() {
    let config = SchedulerConfig::new(shared::zone::Zone::stockholm());
    // 08:30 UTC is 09:30 in Stockholm in November; 18:30 UTC is 19:30.
    assert!(config.within_calling_hours(at("2026-11-20T08:30:00Z")));
    assert!(!config.within_calling_hours(at("2026-11-20T07:59:00Z")));
    assert!(!config.within_calling_hours(at("2026-11-20T18:30:00Z")));
    assert!(config.within_calling_hours(at("2026-11-20T17:59:59Z")));
}

/// An environment holding only `name` = `value`.
fn only(name: &'static str, value: &'static str) -> impl Fn(&str) -> Option<String> {
    move |asked: &str| (asked == name).then(|| value.to_string())
}

#[test]
fn calling_hours_come_from_the_environment_and_are_checked() {
    let zone = shared::zone::Zone::stockholm();
    let config =
        SchedulerConfig::from_lookup(zone.clone(), only("CALLING_HOURS", "08:00-20:30")).unwrap();
    assert_eq!(config.calling_hours.end, NaiveTime::from_hms_opt(20, 30, 0));
    let error = SchedulerConfig::from_lookup(zone, only("CALLING_HOURS", "8-20")).unwrap_err();
    assert_eq!(error.name, "CALLING_HOURS");
}
