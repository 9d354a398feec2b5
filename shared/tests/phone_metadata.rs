//! Which phone metadata a process loads: Nordic numbers only the Nordic file, a number
//! elsewhere the full metadata too, and never the crate's own serialised database. A test
//! binary of its own, so that no other test has loaded the metadata before it looks.

use once_cell::sync::Lazy;
use shared::phone::{DefaultRegion, full_metadata_loaded, normalise};

/// The crate's database is never used outside tests, so the linker can drop its 545 KB.
fn crate_database_unloaded() -> bool {
    Lazy::get(&phonenumber::metadata::DATABASE).is_none()
}

#[test]
fn nordic_numbers_never_load_the_full_metadata_and_a_number_elsewhere_does() {
    let se = DefaultRegion::default();
    for (written, e164) in [
        ("070-123 45 67", "+46701234567"),
        ("+47 412 34 567", "+4741234567"),
        ("0045 32 12 34 56", "+4532123456"),
        ("+358 40 123 4567", "+358401234567"),
    ] {
        assert_eq!(normalise(written, se).as_deref(), Ok(e164));
        assert!(!full_metadata_loaded(), "{written}");
    }
    assert!(normalise("070-123", se).is_err());
    assert!(
        !full_metadata_loaded(),
        "a Nordic number loaded the full metadata"
    );

    assert_eq!(
        normalise("+44 20 7946 0018", se).as_deref(),
        Ok("+442079460018")
    );
    assert!(full_metadata_loaded());
    assert!(
        crate_database_unloaded(),
        "the crate's own database was loaded"
    );
}
