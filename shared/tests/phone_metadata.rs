//! Which phone metadata a process loads: Nordic numbers only the Nordic file, a number
//! elsewhere the crate's full database too. A test binary of its own, so that no other test
//! has loaded the full database before it looks.

use once_cell::sync::Lazy;
use shared::phone::{DefaultRegion, normalise};

#[test]
fn nordic_numbers_never_load_the_full_database_and_a_number_elsewhere_does() {
    let se = DefaultRegion::default();
    for (written, e164) in [
        ("070-123 45 67", "+46701234567"),
        ("+47 412 34 567", "+4741234567"),
        ("0045 32 12 34 56", "+4532123456"),
        ("+358 40 123 4567", "+358401234567"),
    ] {
        assert_eq!(normalise(written, se).as_deref(), Ok(e164));
        assert!(
            Lazy::get(&phonenumber::metadata::DATABASE).is_none(),
            "{written}"
        );
    }
    assert!(normalise("070-123", se).is_err());
    assert!(
        Lazy::get(&phonenumber::metadata::DATABASE).is_none(),
        "a Nordic number loaded the full database"
    );

    assert_eq!(
        normalise("+44 20 7946 0018", se).as_deref(),
        Ok("+442079460018")
    );
    assert!(Lazy::get(&phonenumber::metadata::DATABASE).is_some());
}
