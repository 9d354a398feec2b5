//! Unit tests of the matcher's scoring.

use super::*;
use crate::index::{CallFacts, ClientFields};

fn client(id: i32, name: &str, street: &str, city: &str, phone: &str) -> ClientFields<'static> {
    // Test data lives as long as the test process: leaked, so the fields can borrow it.
    let text = |value: &str| Some(&*value.to_string().leak());
    ClientFields {
        id,
        portal_id: 1,
        name: text(name),
        street: text(street),
        city: text(city),
        phone: text(phone),
        primary_number: text(phone),
        ..ClientFields::default()
    }
}

fn clients() -> Vec<ClientFields<'static>> {
    let mut clients = vec![
        client(1, "Karin Lund", "Storgatan 12", "Uppsala", "+46701112233"),
        client(2, "Karin Lund", "Kungsgatan 3", "Uppsala", "+46701112244"),
        client(3, "Lennart Nyberg", "Ängsvägen 4", "Tierp", "+46701112255"),
        client(4, "Karl Holm", "Byvägen 7", "Östhammar", "+46701112266"),
        client(5, "Erik Holm", "Byvägen 9", "Östhammar", "+46701112277"),
        client(6, "Astrid Ek", "Torget 1", "Knivsta", "+4618123456"),
    ];
    clients.push(client(
        7,
        "Greta Viklund",
        "Sågvägen 2",
        "Sala",
        "+46701112288",
    ));
    clients.push(client(
        8,
        "Sture Viklund",
        "Mossvägen 5",
        "Heby",
        "+46701112299",
    ));
    clients[6].zip_code = Some("733 30");
    clients[7].zip_code = Some("744 31");
    clients[4].is_deleted = true;
    clients[5].national_id = Some("191212121212");
    clients[5].memory = Some("Loves her cat Misse and the garden.");
    // Enough other clients that a single first name is not rare by accident.
    for i in 0..40 {
        clients.push(client(
            100 + i,
            &format!("Anna Person{i}"),
            &format!("Gata{i} {i}"),
            "Enköping",
            &format!("+467020000{i:02}"),
        ));
    }
    clients
}

fn ranked(summary: &str, from: Option<&str>) -> Vec<Ranked> {
    let now = "2026-11-21T12:00:00Z".parse().unwrap();
    let clients = clients();
    let index = ClientIndex::build(clients, now);
    rank(&index, &CallFacts::of(summary, from, now.date_naive()), 5)
}

fn suggested(summary: &str, from: Option<&str>) -> Option<i32> {
    ranked(summary, from)
        .first()
        .filter(|r| r.confidence >= SUGGESTION_THRESHOLD)
        .map(|r| r.client_id)
}

#[test]
fn namesakes_are_told_apart_by_their_street() {
    let best = ranked("Karin Lund på Storgatan 12 ringde om sin medicin.", None);
    assert_eq!(best[0].client_id, 1);
    assert!(best[0].confidence >= SUGGESTION_THRESHOLD);
    assert!(
        best[0].reason.contains("street 'storgatan 12'"),
        "{}",
        best[0].reason
    );
}

#[test]
fn namesakes_nothing_tells_apart_give_no_suggestion() {
    let best = ranked(
        "Karin Lund called about her medicine.",
        Some("+46709999999"),
    );
    assert_eq!(
        suggested("Karin Lund called about her medicine.", None),
        None
    );
    let ids: Vec<i32> = best.iter().take(2).map(|r| r.client_id).collect();
    assert!(
        ids.contains(&1) && ids.contains(&2),
        "both stay candidates: {best:?}"
    );
}

#[test]
fn a_relative_calling_points_to_the_client_they_call_for() {
    assert_eq!(
        suggested(
            "Jonas Nyberg ringde för sin pappa Lennart Nyberg i Tierp.",
            None
        ),
        Some(3)
    );
    assert_eq!(
        suggested("Jonas Nyberg called about the invoice.", None),
        None,
        "a surname alone with another first name is not the client"
    );
}

#[test]
fn a_phone_number_read_out_or_calling_identifies_the_client() {
    assert_eq!(
        suggested("Please call back on 070-111 22 55.", None),
        Some(3)
    );
    assert_eq!(
        suggested("The line was bad.", Some("+46 70 111 22 55")),
        Some(3)
    );
    assert_eq!(suggested("Ring tillbaka på 018-12 34 56.", None), Some(6));
}

#[test]
fn a_national_id_in_either_form_identifies_the_client() {
    assert_eq!(
        suggested("Hon gav sitt personnummer 19121212-1212.", None),
        Some(6)
    );
    assert_eq!(
        suggested(
            "Personal identity number 191212121212, about an invoice.",
            None
        ),
        Some(6)
    );
}

#[test]
fn short_forms_and_misheard_names_still_match() {
    assert_eq!(
        suggested("Kalle Holm från Östhammar ringde.", None),
        Some(4)
    );
    assert_eq!(suggested("Lenart Nyberj in Tierp called.", None), Some(3));
}

#[test]
fn deleted_clients_and_calls_without_facts_give_nothing() {
    assert!(
        ranked("Erik Holm ringde.", None)
            .iter()
            .all(|r| r.client_id != 5),
        "deleted clients are never candidates"
    );
    assert_eq!(ranked("Samtalet bröts direkt.", None), Vec::new());
    assert_eq!(
        suggested("Someone asked about moving into a care home.", None),
        None
    );
}

#[test]
fn a_first_name_with_a_topic_from_the_notes_is_enough() {
    assert_eq!(
        suggested("Astrid called about her cat Misse.", None),
        Some(6)
    );
}

#[test]
fn a_surname_with_the_city_tells_relatives_by_name_apart() {
    assert_eq!(
        suggested("Fru Viklund i Sala ringde om nyckeln.", None),
        Some(7)
    );
    assert_eq!(suggested("Mr Viklund from Heby called.", None), Some(8));
    assert_eq!(
        suggested("Viklund called about the key.", None),
        None,
        "a surname two clients share is not enough"
    );
    let reason = &ranked("Fru Viklund i Sala ringde.", None)[0].reason;
    assert!(reason.contains("city 'sala'"), "{reason}");
}

#[test]
fn a_zip_code_said_aloud_tells_them_apart_too() {
    let best = ranked("Viklund, postnummer 744 31, ville boka om.", None);
    assert_eq!(best[0].client_id, 8);
    assert!(
        best[0].reason.contains("zip code '74431'"),
        "{}",
        best[0].reason
    );
    assert_eq!(
        suggested("Viklund, postnummer 744 31, ville boka om.", None),
        Some(8)
    );
}

#[test]
fn another_house_number_on_the_street_speaks_against_the_client() {
    let confidence_of_1 = |summary: &str| {
        ranked(summary, None)
            .iter()
            .find(|r| r.client_id == 1)
            .map_or(0, |r| r.confidence)
    };
    let right = confidence_of_1("Karin Lund på Storgatan 12 ringde.");
    let wrong = confidence_of_1("Karin Lund på Storgatan 40 ringde.");
    assert!(wrong < right, "{wrong} < {right}");
}

#[test]
fn a_caller_who_is_no_client_gets_no_suggestion() {
    assert_eq!(
        suggested(
            "Gösta Bengtsson from Sala asked about home care for his wife.",
            None
        ),
        None
    );
    assert_eq!(
        suggested(
            "Birgitta Sandberg ville veta hur man ansöker om hemtjänst.",
            None
        ),
        None
    );
}

#[test]
fn a_nurse_calling_about_a_client_points_to_the_client_not_the_nurse() {
    // The nurse shares a name with client 100; the call is about Lennart Nyberg.
    let summary = "Nurse Anna Person0 called about Lennart Nyberg's medication in Tierp.";
    assert_eq!(suggested(summary, None), Some(3));
    assert!(
        ranked(summary, None)
            .iter()
            .all(|r| r.client_id != 100 || r.confidence < SUGGESTION_THRESHOLD)
    );
}
