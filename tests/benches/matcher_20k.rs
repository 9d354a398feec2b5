//! Benchmark (not a test): the unknown-caller matcher over an organisation of 20,000 clients.
//! The index is built once (as a Lambda does at its first request, then every minute); each
//! request is then `CallFacts::of` + `rank`, the matcher's whole CPU work per request. Calls
//! are the evaluation set's summaries plus generated ones of every kind (full name, first name
//! and street, relative, phone number, national id, misspelt name, nothing to go on).
//! Run through `scripts/bench-matcher.sh`; figures go in the README. With `MATCHER_DEBUG=1`
//! it also prints the slowest calls with their candidate generation time and count.

use std::time::{Duration, Instant};

use serde_json::Value;

use integration_tests::evaluation;
use integration_tests::start_time;
use matcher::index::CallFacts;
use matcher::score::rank;
use organisations::MAX_CANDIDATES;
use shared::records::Client;

const CLIENTS: usize = 20_000;
const GENERATED_CALLS: usize = 2_000;

/// A small deterministic generator (SplitMix64), so every run measures the same data.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[self.below(items.len())]
    }
}

/// The words real clients are made of, taken from the evaluation fixture.
struct Vocabulary {
    first: Vec<String>,
    last: Vec<String>,
    streets: Vec<String>,
    cities: Vec<String>,
    notes: Vec<String>,
}

fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut values: Vec<String> = values.filter(|v| !v.is_empty()).collect();
    values.sort();
    values.dedup();
    values
}

fn vocabulary(fixture: &Value) -> Vocabulary {
    let clients = fixture["clients"].as_array().expect("clients");
    let field = |name: &'static str| clients.iter().filter_map(move |c| c[name].as_str());
    let name_part = |first: bool| {
        field("name").filter_map(move |name| {
            let (given, family) = name.rsplit_once(' ')?;
            Some(if first { given } else { family }.to_string())
        })
    };
    Vocabulary {
        first: distinct(name_part(true)),
        last: distinct(name_part(false)),
        streets: distinct(field("street").map(|street| {
            street
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ')
                .to_string()
        })),
        cities: distinct(field("city").map(str::to_string)),
        notes: distinct(field("memory").map(str::to_string)),
    }
}

/// A valid Swedish personal identity number (Luhn check digit) born in the 1930s-40s.
fn national_id(dice: &mut Dice) -> String {
    let digits = format!(
        "{:02}{:02}{:02}{:03}",
        30 + dice.below(20),
        1 + dice.below(12),
        1 + dice.below(28),
        dice.below(1000)
    );
    let sum: u32 = digits
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let d = c.to_digit(10).unwrap() * if i % 2 == 0 { 2 } else { 1 };
            d / 10 + d % 10
        })
        .sum();
    format!(
        "19{}-{}{}",
        &digits[..6],
        &digits[6..],
        (10 - sum % 10) % 10
    )
}

fn clients(words: &Vocabulary, dice: &mut Dice) -> Vec<Client> {
    (0..CLIENTS)
        .map(|i| {
            let phone = format!("+4670{:07}", 1_000_000 + i);
            Client {
                id: i32::try_from(i + 1).unwrap(),
                portal_id: 1 + i32::try_from(i % 3).unwrap(),
                name: Some(format!(
                    "{} {}",
                    dice.pick(&words.first),
                    dice.pick(&words.last)
                )),
                street: Some(format!(
                    "{} {}",
                    dice.pick(&words.streets),
                    1 + dice.below(60)
                )),
                city: Some(dice.pick(&words.cities).to_string()),
                zip_code: Some(format!(
                    "{:03} {:02}",
                    100 + dice.below(800),
                    dice.below(100)
                )),
                phone: Some(phone.clone()),
                primary_number: Some(phone),
                national_id: Some(national_id(dice)),
                memory: Some(dice.pick(&words.notes).to_string()),
                language: Some("sv".into()),
                ..Client::default()
            }
        })
        .collect()
}

/// A call about a random client, phrased as one of the evaluation set's kinds.
fn generated_call(clients: &[Client], words: &Vocabulary, dice: &mut Dice) -> String {
    let client = &clients[dice.below(clients.len())];
    let name = client.name.as_deref().unwrap();
    let (first, last) = name.rsplit_once(' ').unwrap();
    let street = client.street.as_deref().unwrap();
    let city = client.city.as_deref().unwrap();
    match dice.below(7) {
        0 => format!("{name} called and asked when the home care staff come tomorrow."),
        1 => format!("{first} på {street} undrade om matleveransen på fredag."),
        2 => format!(
            "{} called on behalf of her mother {name} in {city} about the medicine.",
            dice.pick(&words.first)
        ),
        3 => format!(
            "The caller gave her number as {} and asked for a call back.",
            client.phone.as_deref().unwrap().replace("+46", "0")
        ),
        4 => format!(
            "Uppringaren uppgav personnummer {} och ville boka om besöket.",
            client.national_id.as_deref().unwrap()
        ),
        5 => {
            // Speech recognition drops a letter of the surname.
            let mut heard: Vec<char> = last.chars().collect();
            heard.remove(heard.len() / 2);
            let heard: String = heard.into_iter().collect();
            format!("{first} {heard} ringde om nyckeln till {street}.")
        }
        _ => "The line went quiet after a few seconds; nobody said who they were.".into(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank]
}

fn main() {
    let fixture: Value = serde_json::from_str(evaluation::FIXTURE).expect("fixture");
    let cases: Value = serde_json::from_str(evaluation::CASES).expect("cases");
    let words = vocabulary(&fixture);
    let mut dice = Dice(20_000);
    let clients = clients(&words, &mut dice);
    let now = start_time();

    let mut builds = Vec::new();
    let mut index = None;
    for _ in 0..5 {
        let started = Instant::now();
        index = Some(shared::matching::client_index(&clients, now));
        builds.push(started.elapsed());
    }
    builds.sort();
    let index = index.expect("built");

    let mut calls: Vec<(String, Option<String>)> = cases["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let call = &case["call"];
            (
                call["summary"].as_str().unwrap_or_default().to_string(),
                call["fromNumber"].as_str().map(str::to_string),
            )
        })
        .collect();
    calls.extend((0..GENERATED_CALLS).map(|_| (generated_call(&clients, &words, &mut dice), None)));

    let today = now.date_naive();
    let mut times = Vec::with_capacity(calls.len());
    let mut candidates = Vec::with_capacity(calls.len());
    // One warm-up round, then the measured one.
    for measured in [false, true] {
        for (summary, from) in &calls {
            let started = Instant::now();
            let facts = CallFacts::of(summary, from.as_deref(), today);
            let ranked = rank(&index, &facts, MAX_CANDIDATES);
            let elapsed = started.elapsed();
            assert!(ranked.len() <= MAX_CANDIDATES);
            if measured {
                times.push(elapsed);
                candidates.push(index.candidates(&facts).len());
            }
        }
    }
    if std::env::var_os("MATCHER_DEBUG").is_some() {
        let mut slow: Vec<(Duration, &String)> = times
            .iter()
            .copied()
            .zip(calls.iter().map(|c| &c.0))
            .collect();
        slow.sort();
        for (t, summary) in slow.iter().rev().take(12) {
            let facts = CallFacts::of(summary, None, today);
            let started = Instant::now();
            let found = index.candidates(&facts).len();
            let generation = started.elapsed();
            println!("{t:?} gen {generation:?} n {found} {summary}");
        }
    }
    times.sort();
    candidates.sort_unstable();
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    println!(
        "{} clients, {} calls ({} from the evaluation set, {GENERATED_CALLS} generated)",
        clients.len(),
        calls.len(),
        calls.len() - GENERATED_CALLS
    );
    println!("| measure | p50 | p99 | max |");
    println!("|---|---|---|---|");
    println!(
        "| index build (5 builds) | {} | - | {} |",
        ms(builds[builds.len() / 2]),
        ms(*builds.last().unwrap())
    );
    println!(
        "| matcher CPU per request | {} | {} | {} |",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap())
    );
    println!(
        "| clients scored per request | {} | {} | {} |",
        candidates[candidates.len() / 2],
        candidates[(candidates.len() - 1) * 99 / 100],
        candidates.last().unwrap()
    );
    let p99 = percentile(&times, 0.99);
    if p99 > Duration::from_millis(20) {
        eprintln!("p99 {} is over the 20 ms budget", ms(p99));
        std::process::exit(1);
    }
}
