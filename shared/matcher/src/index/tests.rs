//! Tests of the client index: mentions in a summary, building the index and searching it.

use super::*;

#[test]
fn a_relative_calling_is_told_apart_from_the_client() {
    let found = mentions(
        "Jonas Nyberg called on behalf of his father Lennart Nyberg, who lives at Ängsvägen 4.",
    );
    let roles: Vec<(String, Role)> = found.iter().map(|m| (m.words.join(" "), m.role)).collect();
    assert!(
        roles.contains(&("jonas nyberg".into(), Role::Proxy)),
        "{roles:?}"
    );
    assert!(
        roles.contains(&("lennart nyberg".into(), Role::Subject)),
        "{roles:?}"
    );
}

#[test]
fn without_relation_words_the_caller_is_the_client() {
    let found = mentions("Kalle Pettersson phoned, upset that nobody came.");
    assert_eq!(found[0].words, ["kalle", "pettersson"]);
    assert_eq!(found[0].role, Role::Caller);
}

#[test]
fn phone_numbers_compare_on_their_national_part() {
    assert_eq!(phone_key("+46735321695"), phone_key("0735321695"));
    assert_eq!(phone_key("0046735321695"), phone_key("073-532 16 95"));
    assert_eq!(phone_key("+4618842590"), phone_key("018-84 25 90"));
    assert_eq!(phone_key("1234"), None);
}
