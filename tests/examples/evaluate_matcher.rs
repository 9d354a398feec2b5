//! Development aid: runs the matcher in-process over the unknown-caller evaluation set
//! (`eval/unknown-caller`) and prints each miss and the per-kind results.

use std::collections::BTreeMap;

use serde_json::Value;
use shared::matcher::index::{CallFacts, ClientIndex};
use shared::matcher::score::{SUGGESTION_THRESHOLD, rank};
use shared::records::Client;

fn main() {
    let root = format!("{}/../eval/unknown-caller", env!("CARGO_MANIFEST_DIR"));
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/dev.fixture.json")).unwrap())
            .unwrap();
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/dev.cases.json")).unwrap())
            .unwrap();
    let organisation = cases["organisationId"].as_i64().unwrap();
    let portals: Vec<i64> = fixture["portals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["organisationId"].as_i64() == Some(organisation))
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    let clients: Vec<Client> = fixture["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::from_value(c.clone()).unwrap())
        .filter(|c: &Client| portals.contains(&i64::from(c.portal_id)))
        .collect();
    let now = "2026-11-21T12:00:00Z".parse().unwrap();
    let index = ClientIndex::build(&clients, now);
    let mut per_kind: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let (mut correct, mut wrong, mut abstained) = (0, 0, 0);
    for case in cases["cases"].as_array().unwrap() {
        let call = &case["call"];
        let facts = CallFacts::of(
            call["summary"].as_str().unwrap_or_default(),
            call["fromNumber"].as_str(),
            now.date_naive(),
        );
        let ranked = rank(&index, &facts);
        let suggestion = ranked
            .first()
            .filter(|r| r.confidence >= SUGGESTION_THRESHOLD);
        let expected = case["expectedClientId"].as_i64();
        let entry = per_kind
            .entry(case["kind"].as_str().unwrap().to_string())
            .or_default();
        entry.0 += 1;
        match (suggestion, expected) {
            (Some(s), Some(e)) if i64::from(s.client_id) == e => {
                correct += 1;
                entry.1 += 1
            }
            (None, None) => {
                correct += 1;
                entry.1 += 1
            }
            (None, Some(_)) => {
                abstained += 1;
                println!(
                    "ABSTAIN {} {:?}: {}",
                    case["name"], expected, call["summary"]
                );
                for r in ranked.iter().take(3) {
                    println!(
                        "    {} {} {} — {}",
                        r.client_id, r.name, r.confidence, r.reason
                    );
                }
            }
            (Some(s), _) => {
                wrong += 1;
                entry.2 += 1;
                println!(
                    "WRONG {} {:?} got {} {} ({}): {} — {}",
                    case["name"],
                    expected,
                    s.client_id,
                    s.name,
                    s.confidence,
                    call["summary"],
                    s.reason
                );
            }
        }
    }
    for (kind, (n, right, bad)) in &per_kind {
        println!("{kind:15} {right:3}/{n:3} wrong {bad}");
    }
    println!(
        "{{\"cases\":{},\"correct\":{correct},\"wrong\":{wrong},\"abstained\":{abstained}}}",
        correct + wrong + abstained
    );
}
