//! Phone number normalisation to E.164, so that lookups compare one canonical form, and the
//! phone metadata behind it: the Nordic country codes first, every other one only when needed.

use std::sync::LazyLock;

use phonenumber::metadata::Database;
use phonenumber::{PhoneNumber, country};

/// The territories of the Nordic file: every one of country codes 45, 46, 47 and 358.
const NORDIC_REGIONS: [country::Id; 6] = [
    country::Id::AX,
    country::Id::DK,
    country::Id::FI,
    country::Id::NO,
    country::Id::SE,
    country::Id::SJ,
];

/// The metadata of `NORDIC_REGIONS`, from the crate's own file
/// (`shared/assets/phone-metadata-nordic.xml` says which). Building it checks the syntax of
/// these six territories' patterns, about 3 ms, where the crate's full database checks all 254
/// territories' patterns, about 80 ms (docs/performance.md).
static NORDIC: LazyLock<Database> = LazyLock::new(|| {
    Database::parse(ascii_digits(include_str!(
        "../assets/phone-metadata-nordic.xml"
    )))
    .expect("the bundled Nordic phone metadata parses")
});

/// The metadata's patterns with `\d` written `[0-9]`. The regex crate reads `\d` as every
/// Unicode decimal digit: validating the first Swedish number took 8.3 ms with those classes
/// and 1.4 ms without. `normalise` lets only ASCII digits through to the parser, so
/// the two match the same numbers (`the_nordic_metadata_answers_as_the_full_database_does`
/// compares every answer with the crate's own database).
fn ascii_digits(xml: &str) -> String {
    xml.replace(r"\d", "[0-9]")
}

/// Every other territory: libphonenumber's whole metadata file, exactly as the phonenumber
/// crate bundles it, gzip-compressed (`shared/assets/README.md`). The crate's own database is
/// the same file serialised, 545 KB in each binary where this is 140 KB; it is read only on a
/// process's first number outside the Nordic codes, when checking every territory's patterns
/// costs far more than the reading (docs/performance.md).
static FULL: std::sync::OnceLock<Database> = std::sync::OnceLock::new();

fn full_database() -> &'static Database {
    FULL.get_or_init(|| {
        let xml = crate::assets::text_of(
            include_bytes!("../assets/phone-metadata.xml.gz"),
            "phone metadata",
        );
        Database::parse(ascii_digits(&xml)).expect("the bundled phone metadata parses")
    })
}

/// Whether this process has loaded the metadata of every territory: only a number outside the
/// Nordic codes, or a default region outside them, loads it.
pub fn full_metadata_loaded() -> bool {
    FULL.get().is_some()
}

/// Where a process pays for the Nordic metadata and the patterns a Swedish number meets (about
/// 10 ms of work). Each function chooses by what its first request usually needs, and
/// `PHONE_METADATA_LOAD` overrides the choice (docs/performance.md has them side by side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataLoad {
    /// On a thread of its own, started at init: the first request finds it done when the
    /// runtime's fetch of that request left time for it. On two cores the thread competes with
    /// the first answer, so it pays only where that answer reads a number.
    Background,
    /// In init itself, before the first request is fetched.
    Init,
    /// In the first request that reads a number.
    FirstUse,
}

impl std::str::FromStr for MetadataLoad {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "background" => Ok(Self::Background),
            "init" => Ok(Self::Init),
            "first-use" => Ok(Self::FirstUse),
            other => Err(format!("{other:?} is not background, init or first-use")),
        }
    }
}

/// Loads the Nordic metadata, and compiles the patterns a Swedish number meets, as `load`
/// says, once per process: a function that reads phone numbers calls it at start.
pub fn prepare(region: DefaultRegion, load: MetadataLoad) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    let warm = move || drop(normalise("+46701234567", region));
    match load {
        MetadataLoad::FirstUse => {}
        MetadataLoad::Init => STARTED.call_once(warm),
        MetadataLoad::Background => STARTED.call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("phone-metadata".into())
                .spawn(warm);
            // Without a thread the first number does the work itself, as it would anyway.
            drop(spawned);
        }),
    }
}

/// Parses with the Nordic metadata, and with the full metadata only for a country
/// code outside it (or a default region elsewhere). A number the Nordic metadata parses has one
/// of its country codes, and any other answer it gives comes before or without the metadata of
/// another code, so both give the same answer
/// (`the_nordic_metadata_answers_as_the_full_database_does`).
fn parse(region: DefaultRegion, text: &str) -> Result<(PhoneNumber, &'static Database), ()> {
    let full = || {
        let database = full_database();
        phonenumber::parse_with(database, Some(region.0), text)
            .map(|number| (number, database))
            .map_err(|_| ())
    };
    // The parser unwraps the default region's metadata, so a region outside the Nordic file
    // goes straight to the full metadata.
    if !NORDIC_REGIONS.contains(&region.0) {
        return full();
    }
    match phonenumber::parse_with(&NORDIC, Some(region.0), text) {
        Ok(number) => Ok((number, &NORDIC)),
        Err(phonenumber::ParseError::InvalidCountryCode) => full(),
        Err(_) => Err(()),
    }
}

/// The region assumed for numbers written without a country code (`PHONE_DEFAULT_REGION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultRegion(pub country::Id);

impl Default for DefaultRegion {
    fn default() -> Self {
        Self(country::Id::SE)
    }
}

impl std::str::FromStr for DefaultRegion {
    type Err = String;
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        code.trim()
            .to_ascii_uppercase()
            .parse::<country::Id>()
            .map(Self)
            .map_err(|_| format!("unknown region code {code:?}"))
    }
}

/// Parses a number as a person would write or say it ("070-123 45 67", "+46 70 123 45 67",
/// "0046701234567") and returns it as E.164, or an explanation of why it is not a number.
pub fn normalise(raw: &str, region: DefaultRegion) -> Result<String, String> {
    normalise_with(raw, region, parse)
}

/// `normalise` with the choice of metadata given, so that tests can compare choices.
fn normalise_with(
    raw: &str,
    region: DefaultRegion,
    parse: impl Fn(DefaultRegion, &str) -> Result<(PhoneNumber, &'static Database), ()>,
) -> Result<String, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err("must not be empty".into());
    }
    if trimmed.len() > 40 {
        return Err("must be at most 40 characters".into());
    }
    // The parser skips what it does not understand ("+46701234567\0" would pass), so only
    // what people write in a number gets to it.
    if !trimmed
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '-' | '(' | ')' | '.' | '/'))
    {
        return Err("may hold only digits, spaces and + - ( ) . /".into());
    }
    let international = trimmed
        .strip_prefix("00")
        .map(|rest| format!("+{rest}"))
        .unwrap_or_else(|| trimmed.to_string());
    let (number, database) =
        parse(region, &international).map_err(|()| "is not a phone number".to_string())?;
    if !phonenumber::is_valid_with(database, &number) {
        return Err("is not a valid phone number".into());
    }
    // E.164 is the country code and the national number, written out here: the crate's
    // formatter loads its full database whatever database it is given.
    Ok(format!("+{}{}", number.code().value(), number.national()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swedish_national_forms_become_e164() {
        let se = DefaultRegion::default();
        assert_eq!(normalise("070-123 45 67", se).unwrap(), "+46701234567");
        assert_eq!(normalise("+46 70 123 45 67", se).unwrap(), "+46701234567");
        assert_eq!(normalise("0046701234567", se).unwrap(), "+46701234567");
    }

    /// What `normalise` answered before the Nordic file: the crate's full database alone.
    fn with_the_full_database(raw: &str, region: DefaultRegion) -> Result<String, String> {
        let e164 = normalise_with(raw, region, |region, text| {
            phonenumber::parse(Some(region.0), text)
                .map(|number| (number, &*phonenumber::metadata::DATABASE))
                .map_err(|_| ())
        })?;
        // And as the crate's formatter writes it.
        let number = phonenumber::parse(Some(region.0), &e164).unwrap();
        assert_eq!(
            number.format().mode(phonenumber::Mode::E164).to_string(),
            e164
        );
        Ok(e164)
    }

    #[test]
    fn the_nordic_file_holds_every_territory_of_its_country_codes() {
        for (code, regions) in [(45, 1), (46, 1), (47, 2), (358, 2)] {
            let full = phonenumber::metadata::DATABASE.region(&code).unwrap();
            let nordic = NORDIC.region(&code).unwrap();
            assert_eq!(nordic, full, "+{code}");
            assert_eq!(nordic.len(), regions, "+{code}");
        }
        for region in NORDIC_REGIONS {
            assert!(NORDIC.by_id(region.as_ref()).is_some(), "{region:?}");
        }
    }

    #[test]
    fn the_compressed_file_holds_every_territory_the_crates_database_does() {
        let crate_regions: std::collections::BTreeSet<&str> = phonenumber::metadata::DATABASE
            .iter()
            .map(|metadata| metadata.id())
            .collect();
        let ours: std::collections::BTreeSet<&str> = full_database()
            .iter()
            .map(|metadata| metadata.id())
            .collect();
        assert_eq!(ours, crate_regions);
        assert!(ours.len() > 240, "{}", ours.len());
        for metadata in phonenumber::metadata::DATABASE.iter() {
            let code = metadata.country_code();
            assert_eq!(
                full_database().region(&code),
                phonenumber::metadata::DATABASE.region(&code),
                "+{code}"
            );
        }
    }

    #[test]
    fn numbers_elsewhere_and_other_default_regions_still_parse() {
        let se = DefaultRegion::default();
        assert_eq!(normalise("+44 20 7946 0018", se).unwrap(), "+442079460018");
        assert_eq!(normalise("0049 30 901820", se).unwrap(), "+4930901820");
        let gb: DefaultRegion = "gb".parse().unwrap();
        assert_eq!(normalise("020 7946 0018", gb).unwrap(), "+442079460018");
        assert_eq!(normalise("+46 70 123 45 67", gb).unwrap(), "+46701234567");
        let fi: DefaultRegion = "FI".parse().unwrap();
        assert_eq!(normalise("040 123 4567", fi).unwrap(), "+358401234567");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 4_000, ..proptest::prelude::ProptestConfig::default()
        })]

        /// Written as people write numbers: a prefix (a Nordic or other country code after
        /// + or 00, a trunk 0, or none), then digits and separators. About one input in six
        /// is a valid number (counted once, on 4,000), so both answers are compared.
        #[test]
        fn the_nordic_metadata_answers_as_the_full_database_does(
            prefix in proptest::sample::select(vec![
                "+46", "+47", "+45", "+358", "0046", "00358", "+4", "+35", "+44", "+1",
                "+354", "+298", "0044", "0", "00", "", "(+46)", "+46 (0)", "07", "+46 7",
                "+47 4", "+45 2", "+358 4", "+358 18", "08-",
            ]),
            rest in "[0-9]{4,10}|[0-9]{2,4}[ -][0-9]{2,4}[ -][0-9]{2,4}|[0-9 ()./-]{0,16}",
            region in proptest::sample::select(vec!["SE", "NO", "DK", "FI", "AX", "SJ", "GB", "DE"]),
        ) {
            let region: DefaultRegion = region.parse().unwrap();
            let raw = format!("{prefix}{rest}");
            proptest::prop_assert_eq!(normalise(&raw, region), with_the_full_database(&raw, region), "{}", raw);
        }
    }

    #[test]
    fn garbage_is_rejected_with_a_reason() {
        let se = DefaultRegion::default();
        assert!(normalise("", se).is_err());
        assert!(normalise("hello", se).is_err());
        assert!(normalise("123", se).is_err());
        assert!(normalise("+46701234567\0", se).is_err());
        assert!(normalise("+46701234567x", se).is_err());
        assert!(normalise("+46 70 123\u{a0}45 67", se).is_err());
    }
}
