//! Unit tests of the access-log function's handlers' helpers.

use shared::extract::query_value;
use shared::wire::LogCursor;

#[test]
fn a_cursor_is_any_string_shaped_like_a_record_or_review_id() {
    for id in [
        "2026-11-23T09:15:02.123456Z#JTHoQiSfIAMEM9w=#0",
        "2026-11-23T09:15:02.123456Z#7d0c6f3e-2b1a-4c4e-9a57-1f0e4d2c3b4a",
        "0000-99-99T99:99:99.000000Z#x#x",
    ] {
        assert_eq!(
            LogCursor::parse(id).map(LogCursor::into_inner).as_deref(),
            Ok(id)
        );
    }
    for bad in [
        "",
        "2026-11-23T09:15:02.123456Z",
        "2026-11-23T09:15:02.123456Z#",
        "2026-11-23T09:15:02.123456Z#a#b#c",
        "2026-11-23T09:15:02Z#trace#0",
        "2026-11-23T09:15:02.123456Z#tr ace#0",
        &format!("2026-11-23T09:15:02.123456Z#{}", "a".repeat(65)),
    ] {
        assert!(LogCursor::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_link_percent_encodes_what_would_end_or_split_a_query_value() {
    assert_eq!(
        query_value("2026-11-23T09:15:02.123456Z#a=b#0"),
        "2026-11-23T09:15:02.123456Z%23a%3Db%230"
    );
}
