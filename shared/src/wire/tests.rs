//! Property tests of the wire types: what each accepts survives a round trip, and no control,
//! bidirectional control, format, private-use or unassigned character, nor an invisible-only
//! name, gets through.

use std::fmt;

use chrono::{DateTime, Utc};
use icu_properties::CodePointMapData;
use icu_properties::props::GeneralCategory;
use proptest::prelude::*;
use proptest::sample::select;
use serde::Serialize;

use super::*;

/// Every code point whose general category is one of `categories`.
fn every(categories: &[GeneralCategory]) -> Vec<char> {
    let map = CodePointMapData::<GeneralCategory>::new();
    (0..=0x10FFFF_u32)
        .filter_map(char::from_u32)
        .filter(|c| categories.contains(&map.get(*c)))
        .collect()
}

/// Text as people write it: letters, marks, digits, punctuation, symbols and spaces.
fn visible() -> Vec<char> {
    use GeneralCategory::*;
    every(&[
        UppercaseLetter,
        LowercaseLetter,
        OtherLetter,
        NonspacingMark,
        DecimalNumber,
        SpaceSeparator,
        DashPunctuation,
        OtherPunctuation,
        MathSymbol,
        OtherSymbol,
    ])
}

/// Characters no single-line text may carry: C0 and C1 controls, format characters (the
/// bidirectional controls among them), private-use and unassigned code points, and the line
/// and paragraph separators.
fn refused() -> Vec<char> {
    use GeneralCategory::*;
    every(&[
        Control,
        Format,
        PrivateUse,
        Unassigned,
        LineSeparator,
        ParagraphSeparator,
    ])
}

const BIDI_CONTROLS: [char; 12] = [
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

fn text_with(pool: Vec<char>, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(select(pool), 0..max).prop_map(|chars| chars.into_iter().collect())
}

/// `text` with `bad` put in at `at` (a fraction of its length).
fn spliced(text: &str, bad: char, at: f64) -> String {
    let chars: Vec<char> = text.chars().collect();
    let i = ((chars.len() as f64) * at) as usize;
    chars[..i]
        .iter()
        .chain(std::iter::once(&bad))
        .chain(&chars[i..])
        .collect()
}

fn round_trips<T>(value: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + fmt::Debug,
{
    let json = serde_json::to_string(value).unwrap();
    let again: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&again, value);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_text_each_type_accepts_survives_a_round_trip(raw in text_with(visible(), 40)) {
        if let Ok(text) = Text::<40>::parse(&raw) {
            round_trips(&text);
        }
        if let Ok(text) = RequiredText::<40>::parse(&raw) {
            round_trips(&text);
        }
        if let Ok(prose) = Prose::<40>::parse(&raw) {
            round_trips(&prose);
        }
        if let Ok(name) = Name::<40>::parse(&raw) {
            round_trips(&name);
        }
        if let Ok(metadata) = Metadata::<40>::parse(&raw) {
            round_trips(&metadata);
        }
        let email = format!("{}@example.se", raw.replace(['@', ' '], "").trim());
        if let Ok(email) = Email::parse(&email) {
            round_trips(&email);
        }
    }

    #[test]
    fn plain_text_without_refused_characters_is_accepted_as_it_was_trimmed(
        raw in text_with(visible(), 40)
    ) {
        prop_assert_eq!(Text::<40>::parse(&raw).map(Text::into_inner), Ok(raw.trim().to_string()));
        prop_assert_eq!(Prose::<40>::parse(&raw).map(Prose::into_inner), Ok(raw.trim().to_string()));
    }

    #[test]
    fn no_text_type_accepts_a_control_format_private_use_unassigned_or_separator_character(
        raw in text_with(visible(), 20),
        bad in select(refused()),
        at in 0.0..1.0f64,
    ) {
        let with_bad = spliced(&format!("a{raw}a"), bad, at.max(0.01));
        prop_assert!(Text::<100>::parse(&with_bad).is_err(), "{:?}", with_bad);
        prop_assert!(RequiredText::<100>::parse(&with_bad).is_err(), "{:?}", with_bad);
        prop_assert!(Name::<100>::parse(&with_bad).is_err(), "{:?}", with_bad);
        prop_assert!(Email::parse(&format!("{with_bad}@example.se")).is_err(), "{:?}", with_bad);
        let breaks = matches!(bad, '\n' | '\r' | '\t');
        prop_assert_eq!(Prose::<100>::parse(&with_bad).is_ok(), breaks, "{:?}", with_bad);
        prop_assert_eq!(Metadata::<100>::parse(&with_bad).is_ok(), breaks, "{:?}", with_bad);
    }

    #[test]
    fn a_bidirectional_control_is_refused_wherever_it_is(
        raw in text_with(visible(), 20),
        bad in select(BIDI_CONTROLS.to_vec()),
        at in 0.0..1.0f64,
    ) {
        let with_bad = spliced(&raw, bad, at);
        prop_assert!(Text::<100>::parse(&with_bad).is_err());
        prop_assert!(Prose::<100>::parse(&with_bad).is_err());
        prop_assert!(Name::<100>::parse(&with_bad).is_err());
    }

    #[test]
    fn a_name_of_only_invisible_fillers_spaces_marks_and_symbols_is_refused(
        raw in text_with(
            [
                vec!['\u{3164}', '\u{115F}', '\u{1160}', '\u{FFA0}', '\u{2800}', ' ', '\u{00A0}',
                     '\u{3000}', '\u{0301}', '\u{0308}', '\u{034F}', '-', '.'],
            ].concat(),
            12,
        )
    ) {
        prop_assert!(Name::<100>::parse(&raw).is_err(), "{:?}", raw);
    }

    #[test]
    fn escaped_hidden_characters_inside_json_metadata_are_refused(
        bad in select(refused().into_iter().filter(|c| !matches!(c, '\n' | '\r' | '\t')).collect::<Vec<_>>())
    ) {
        let json = serde_json::json!({"choices": [format!("ja{bad}")]}).to_string();
        prop_assert!(Metadata::<10_000>::parse(&json).is_err(), "{:?}", json);
    }

    #[test]
    fn every_instant_accepted_is_written_with_a_four_digit_year_and_sorts_as_text(
        a in 946_684_800i64..7_258_118_400i64,
        b in 946_684_800i64..7_258_118_400i64,
    ) {
        let write = |secs| DateTime::<Utc>::from_timestamp(secs, 0).unwrap().to_rfc3339();
        let (x, y) = (Instant::parse(&write(a)).unwrap(), Instant::parse(&write(b)).unwrap());
        round_trips(&x);
        let (tx, ty) = (serde_json::to_string(&x).unwrap(), serde_json::to_string(&y).unwrap());
        prop_assert_eq!(tx.cmp(&ty), x.cmp(&y));
    }
}

#[test]
fn names_that_people_have_are_accepted_in_nfc() {
    for name in [
        "Åsa Öberg-Ñúñez",
        "李小龍",
        "Nguyễn Thị Minh Khai",
        "O'Brien",
        "Ахмед Ali",
        "Karl XII",
    ] {
        assert_eq!(Name::<200>::parse(name).unwrap().as_str(), name);
    }
    // A decomposed "Å" (A + combining ring) is stored composed.
    assert_eq!(Name::<200>::parse("A\u{030A}sa").unwrap().as_str(), "Åsa");
}

#[test]
fn names_of_invisible_letters_or_stacked_marks_are_refused() {
    for bad in [
        "\u{3164}",
        "\u{115F}\u{1160}",
        "\u{FFA0}\u{FFA0}",
        "\u{2800}\u{2800}",
        "Anna\u{3164}",
        &format!("A{}", "\u{0301}".repeat(30)),
        "Anna\u{2028}Berg",
        "   ",
    ] {
        assert!(Name::<200>::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn emails_need_a_local_part_and_a_dotted_domain_and_nothing_hidden() {
    assert!(Email::parse("kontor@lidingo.example").is_ok());
    for bad in [
        "kontor",
        "@x.se",
        "a@b",
        "a@@b.se",
        "a b@c.se",
        "a@b..se",
        "a\u{202E}b@c.se",
        "a\u{200B}@c.se",
        "\u{FEFF}a@c.se",
        "a\u{E000}@c.se",
    ] {
        assert!(Email::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn metadata_refuses_nul_escape_and_reversal_written_plainly_or_escaped_in_json() {
    for bad in [
        "a\u{0}b",
        "a\u{1B}[31m",
        "a\u{202E}b",
        r#"{"x": "\u0000"}"#,
        r#"{"x": "\u001b"}"#,
        r#"{"\u202e": 1}"#,
    ] {
        assert!(Metadata::<10_000>::parse(bad).is_err(), "{bad:?}");
    }
    assert!(Metadata::<10_000>::parse(r#"{"choices": ["ja", "nej"], "note": "rad\nrad"}"#).is_ok());
}

#[test]
fn instants_outside_the_supported_range_are_refused() {
    for bad in [
        "+99999-01-01T00:00:00Z",
        "-0001-01-01T00:00:00Z",
        "1999-12-31T23:59:59Z",
        "2200-01-01T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "tomorrow",
    ] {
        assert!(Instant::parse(bad).is_err(), "{bad}");
    }
    assert!(Instant::parse("2026-11-25T09:00:00+01:00").is_ok());
}

#[test]
fn a_cursor_is_an_id_from_zero_and_a_limit_is_within_its_bounds() {
    assert_eq!(IdCursor::parse("42").map(IdCursor::get), Ok(42));
    assert_eq!(IdCursor::parse("0").map(IdCursor::get), Ok(0));
    for bad in ["not-a-cursor", "-5", "2147483648", "", "4 2"] {
        assert!(IdCursor::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        PageLimit::<1000>::parse("1000").map(PageLimit::get),
        Ok(1000)
    );
    for bad in ["0", "1001", "-1", "ten"] {
        assert!(PageLimit::<1000>::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn text_is_trimmed_bounded_and_blank_is_none() {
    assert_eq!(
        Text::<10>::parse("  Solna ").map(Text::into_option),
        Ok(Some("Solna".into()))
    );
    assert_eq!(Text::<10>::parse("   ").map(Text::into_option), Ok(None));
    assert!(Text::<10>::parse("åäöåäöåäöåä").is_err());
    assert!(RequiredText::<10>::parse(" ").is_err());
}

#[test]
fn prose_keeps_line_breaks_and_tabs_but_no_other_control_characters() {
    assert_eq!(
        Prose::<50>::parse(" Line one.\nLine\ttwo. ").map(Prose::into_option),
        Ok(Some("Line one.\nLine\ttwo.".into()))
    );
    assert!(Prose::<50>::parse("bell\u{7}").is_err());
    assert!(Prose::<2>::parse("abc").is_err());
    assert_eq!(Prose::<5>::parse("  ").map(Prose::into_option), Ok(None));
}

#[test]
fn language_tags_follow_bcp_47_in_canonical_case() {
    let tag = |text: &str| LanguageTag::parse(text).map(LanguageTag::into_inner);
    assert_eq!(tag("sv"), Ok("sv".into()));
    assert_eq!(tag("SV-se"), Ok("sv-SE".into()));
    assert_eq!(tag("zh-hant-tw"), Ok("zh-Hant-TW".into()));
    for bad in ["", "swedish language", "s", "sv_SE", "x", "en-"] {
        assert!(tag(bad).is_err(), "{bad}");
    }
}
