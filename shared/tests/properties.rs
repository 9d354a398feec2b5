//! Properties of the parsers and normalisers at the edge (phone numbers, national ids,
//! contact windows, timestamps, JSON bodies): no input makes them panic, what they accept
//! they accept again unchanged, and every way of writing one value gives the same result.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use proptest::prelude::*;
use shared::contact_window::{Window, parse_time};
use shared::extract::decode_json;
use shared::phone::{DefaultRegion, normalise as phone};
use shared::records::{ContactDetail, PhoneCall, TranscriptLine};

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
}

/// A valid Swedish personnummer as 12 digits, for a birth date and serial.
fn personnummer(born: NaiveDate, serial: u32) -> String {
    let nine = format!("{}{serial:03}", born.format("%y%m%d"));
    let check = shared::national_id::luhn_digit(&nine);
    format!("{}{nine}{check}", born.format("%C"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_a_phone_number_or_a_reason_and_e164_is_a_fixed_point(raw in "\\PC{0,50}") {
        if let Ok(e164) = phone(&raw, DefaultRegion::default()) {
            prop_assert!(e164.starts_with('+') && e164[1..].bytes().all(|b| b.is_ascii_digit()));
            prop_assert_eq!(phone(&e164, DefaultRegion::default()), Ok(e164.clone()));
        }
    }

    #[test]
    fn a_swedish_mobile_number_reads_the_same_however_it_is_written(
        operator in 0u8..=9, rest in 0u32..10_000_000,
    ) {
        let national = format!("07{operator}{rest:07}");
        let expected = format!("+467{operator}{rest:07}");
        let read = phone(&national, DefaultRegion::default());
        // 070 is a mobile range with every subscriber number valid: the property is not empty.
        prop_assert!(operator != 0 || read.is_ok(), "{national}: {read:?}");
        if let Ok(e164) = read {
            prop_assert_eq!(&e164, &expected);
            let spaced = format!("07{operator}-{} {} {}", &national[3..6], &national[6..8], &national[8..]);
            for written in [spaced, format!("0046{}", &national[1..]), format!("+46 {}", &national[1..])] {
                prop_assert_eq!(phone(&written, DefaultRegion::default()), Ok(expected.clone()));
            }
        }
    }

    #[test]
    fn any_text_is_a_national_id_or_a_reason_and_the_stored_form_is_a_fixed_point(
        raw in "[0-9A-Za-z +\\-\u{2010}\u{2212}]{0,24}|\\PC{0,24}",
    ) {
        if let Ok(stored) = shared::national_id::normalise(&raw, today()) {
            prop_assert_eq!(shared::national_id::normalise(&stored, today()), Ok(stored.clone()));
        }
    }

    #[test]
    fn a_personnummer_is_stored_as_twelve_digits_in_every_written_form(
        days in 0i64..(99 * 365), serial in 0u32..1000,
    ) {
        let born = today() - chrono::Duration::days(days + 1);
        let twelve = personnummer(born, serial);
        let ten = &twelve[2..];
        for written in [
            twelve.clone(),
            format!("{}-{}", &twelve[..8], &twelve[8..]),
            ten.to_string(),
            format!("{}-{}", &ten[..6], &ten[6..]),
            format!(" {} {} ", &twelve[..8], &twelve[8..]),
        ] {
            prop_assert_eq!(shared::national_id::normalise(&written, today()), Ok(twelve.clone()));
        }
        // One changed digit breaks the Luhn check or the date, never becomes another person.
        let mut wrong = twelve.clone().into_bytes();
        wrong[11] = b'0' + (wrong[11] - b'0' + 1) % 10;
        let wrong = String::from_utf8(wrong).unwrap();
        prop_assert!(shared::national_id::normalise(&wrong, today()).is_err());
    }

    #[test]
    fn any_text_is_a_time_of_day_or_a_reason(raw in "\\PC{0,12}|[0-9:]{0,9}") {
        if let Ok(time) = parse_time(&raw) {
            let written = if raw.len() == 5 { time.format("%H:%M") } else { time.format("%H:%M:%S") };
            prop_assert_eq!(written.to_string(), raw);
        }
    }

    #[test]
    fn a_window_and_its_reverse_split_the_day_between_them(
        start in 0u32..86_400, end in 0u32..86_400, at in 0u32..86_400,
    ) {
        let time = |s: u32| NaiveTime::from_num_seconds_from_midnight_opt(s, 0).unwrap();
        let text = |s: u32| time(s).format("%H:%M:%S").to_string();
        let forward = Window::parse(Some(&text(start)), Some(&text(end))).unwrap();
        let reverse = Window::parse(Some(&text(end)), Some(&text(start))).unwrap();
        let t = time(at);
        if start == end {
            prop_assert!(forward.contains(t) && reverse.contains(t));
        } else {
            prop_assert!(forward.contains(t) != reverse.contains(t));
            prop_assert_eq!(forward.contains(t), if start < end {
                start <= at && at < end
            } else {
                at >= start || at < end
            });
        }
    }

    #[test]
    fn a_timestamp_with_any_offset_is_read_as_the_same_instant_in_utc(
        seconds in 0i64..4_102_444_800, offset_minutes in -(14 * 60)..=(14 * 60),
    ) {
        let instant: DateTime<Utc> = Utc.timestamp_opt(seconds, 0).unwrap();
        let zone = FixedOffset::east_opt(offset_minutes * 60).unwrap();
        let written = instant.with_timezone(&zone).to_rfc3339();
        let body = format!(r#"{{"id":1,"createdAt":"{written}","category":0}}"#);
        let line: TranscriptLine = decode_json(body.as_bytes()).unwrap();
        prop_assert_eq!(line.created_at, instant);
        let json = serde_json::to_value(&line).unwrap();
        let expected = instant.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
        prop_assert_eq!(json["createdAt"].as_str(), Some(expected.as_str()));
    }

    #[test]
    fn any_bytes_decode_to_a_record_or_a_400_without_panicking(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = decode_json::<PhoneCall>(&body);
        let _ = decode_json::<ContactDetail>(&body);
        let _ = decode_json::<Vec<TranscriptLine>>(&body);
    }

    #[test]
    fn json_shaped_noise_decodes_or_fails_cleanly(body in "[\\[\\]{}\":,0-9a-zA-Z. \\\\-]{0,200}") {
        let _ = decode_json::<PhoneCall>(body.as_bytes());
        let _ = decode_json::<serde_json::Value>(body.as_bytes());
    }
}
