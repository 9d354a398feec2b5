//! Evidence for one candidate, combined into a score (log-odds), and the ranking of all
//! candidates into confidences against the chance that the caller is none of them.

use super::index::{CallFacts, ClientIndex, Field, Person, Role, best_match};
use super::names::NameMatch;

/// Log-odds weights. Names, streets, cities, zip codes and topic words weigh what their
/// rarity among the organisation's clients says (`ClientIndex::weight`); these are the fixed
/// parts. A national id or a phone number alone decides; a full name nearly does; a first
/// name needs a street, a city or a topic to win.
mod weight {
    pub const FULL_NAME_BONUS: f64 = 1.0;
    /// A name of the same mention that is not this client's (another "Marie" than "Anna").
    pub const CONFLICTING_FIRST_NAME: f64 = -3.0;
    /// A relative calling shares the surname but is not the client.
    pub const PROXY_SURNAME_SHARE: f64 = 0.4;
    pub const PHONE: f64 = 10.0;
    pub const NATIONAL_ID: f64 = 14.0;
    pub const STREET_NUMBER: f64 = 2.5;
    pub const OTHER_STREET_NUMBER: f64 = -2.5;
    /// A topic word is weaker evidence than its rarity: others may share the ailment.
    pub const TOPIC_SHARE: f64 = 0.8;
    pub const TOPIC_WORDS_COUNTED: usize = 2;
    /// "None of these clients" scores the log of the number of clients plus this: a
    /// candidate must outweigh the prior odds against any one client.
    pub const NONE_BIAS: f64 = 0.0;
}

/// One candidate's score and the facts that matched, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub person: usize,
    pub score: f64,
    pub reasons: Vec<String>,
}

fn describe(kind: &str, heard: &str, known: &str, how: NameMatch) -> String {
    match how {
        NameMatch::Exact => format!("{kind} '{known}'"),
        NameMatch::Nickname => format!("{kind} '{heard}' (short for '{known}')"),
        NameMatch::Phonetic | NameMatch::Fuzzy(_) => format!("{kind} '{heard}' (like '{known}')"),
    }
}

/// The score of one person for the facts of a call, and what matched, for the `reason`.
pub fn score(index: &ClientIndex, person: &Person, facts: &CallFacts) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut reasons = Vec::new();

    // Names: the best mention counts; its role decides how much.
    let mut best_name = (0.0, Vec::new());
    for mention in &facts.mentions {
        let first = person
            .first_names()
            .iter()
            .filter_map(|name| best_match(&mention.words, name).map(|m| (name, m)))
            .max_by(|a, b| a.1.strength().total_cmp(&b.1.strength()));
        let last = person
            .surnames()
            .iter()
            .filter_map(|name| best_match(&mention.words, name).map(|m| (name, m)))
            .max_by(|a, b| a.1.strength().total_cmp(&b.1.strength()));
        let (first_weight, last_weight) = match mention.role {
            Role::Caller | Role::Subject => (1.0, 1.0),
            Role::Proxy => (0.0, weight::PROXY_SURNAME_SHARE),
        };
        let mut value = 0.0;
        let mut said = Vec::new();
        if let Some((name, how)) = first {
            value += first_weight * index.weight(Field::FirstName, name) * how.strength();
            if first_weight > 0.0 {
                said.push(describe("first name", &mention.words[0], name, how));
            }
        }
        if let Some((name, how)) = last {
            value += last_weight * index.weight(Field::Surname, name) * how.strength();
            said.push(describe(
                "surname",
                mention.words.last().map_or("", |w| w),
                name,
                how,
            ));
        }
        if first.is_some() && last.is_some() && mention.role != Role::Proxy {
            value += weight::FULL_NAME_BONUS;
        }
        // "Marie Gunnarsson" is not "Anna Gunnarsson": a first word that names nobody else
        // in the mention and is not this client's first name speaks against.
        if last.is_some()
            && first.is_none()
            && mention.words.len() >= 2
            && mention.role != Role::Proxy
        {
            value += weight::CONFLICTING_FIRST_NAME;
        }
        if value > best_name.0 {
            best_name = (value, said);
        }
    }
    total += best_name.0;
    reasons.extend(best_name.1);

    if facts
        .national_ids
        .iter()
        .any(|id| Some(id.as_str()) == person.national_id())
    {
        total += weight::NATIONAL_ID;
        reasons.push("personal identity number".into());
    }
    if facts
        .phones
        .iter()
        .any(|phone| person.phones().contains(phone))
    {
        total += weight::PHONE;
        reasons.push("phone number".into());
    }

    let street_heard = !person.street_words().is_empty()
        && person
            .street_words()
            .iter()
            .all(|word| facts.words.contains(word));
    if street_heard {
        total += person
            .street_words()
            .iter()
            .map(|w| index.weight(Field::Street, w))
            .fold(0.0, f64::max);
        let number = person.street_number();
        match number {
            Some(number) if facts.numbers.iter().any(|n| n == number) => {
                total += weight::STREET_NUMBER;
                reasons.push(format!(
                    "street '{} {number}'",
                    person.street_words().join(" ")
                ));
            }
            Some(_) if !facts.numbers.iter().all(|n| n.len() > 4) => {
                total += weight::OTHER_STREET_NUMBER;
                reasons.push(format!("street '{}'", person.street_words().join(" ")));
            }
            _ => reasons.push(format!("street '{}'", person.street_words().join(" "))),
        }
    }
    if let Some(zip) = person.zip()
        && facts.numbers.iter().any(|n| n == zip)
    {
        total += index.weight(Field::Zip, zip);
        reasons.push(format!("zip code '{zip}'"));
    }
    if !person.city_words().is_empty()
        && person.city_words().iter().all(|w| facts.words.contains(w))
    {
        total += person
            .city_words()
            .iter()
            .map(|w| index.weight(Field::City, w))
            .fold(0.0, f64::max);
        reasons.push(format!("city '{}'", person.city_words().join(" ")));
    }
    let mut topics: Vec<&String> = person
        .topic_words()
        .iter()
        .filter(|word| facts.words.contains(*word))
        .collect();
    topics.sort();
    topics.truncate(weight::TOPIC_WORDS_COUNTED);
    if !topics.is_empty() {
        total += topics
            .iter()
            .map(|w| weight::TOPIC_SHARE * index.weight(Field::Topic, w))
            .sum::<f64>();
        let words: Vec<String> = topics.iter().map(|w| format!("'{w}'")).collect();
        reasons.push(format!("notes mention {}", words.join(", ")));
    }
    (total, reasons)
}

/// A ranked candidate: the chance (0-100) that the call is about this client, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub client_id: i32,
    pub portal_id: i32,
    pub name: String,
    pub confidence: i32,
    pub reason: String,
}

/// Candidates best first, with confidences that sum (with "none of them") to 100.
pub fn rank(index: &ClientIndex, facts: &CallFacts) -> Vec<Ranked> {
    let scored: Vec<Scored> = index
        .candidates(facts)
        .into_iter()
        .map(|i| {
            let (score, reasons) = score(index, index.person(i), facts);
            Scored {
                person: i,
                score,
                reasons,
            }
        })
        .filter(|s| s.score > 0.0)
        .collect();
    // A softmax against the "none" score: two clients the facts cannot tell apart share the
    // probability, and neither reaches a suggestion.
    let none_score = (index.len().max(1) as f64).ln() + weight::NONE_BIAS;
    let top = scored.iter().map(|s| s.score).fold(none_score, f64::max);
    let none = (none_score - top).exp();
    let sum: f64 = none + scored.iter().map(|s| (s.score - top).exp()).sum::<f64>();
    let mut ranked: Vec<Ranked> = scored
        .into_iter()
        .map(|s| {
            let person = index.person(s.person);
            let share = (s.score - top).exp() / sum;
            Ranked {
                client_id: person.client_id,
                portal_id: person.portal_id,
                name: person.name.clone(),
                confidence: (share * 100.0).floor() as i32,
                reason: sentence(&s.reasons),
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.confidence
            .cmp(&a.confidence)
            .then(a.client_id.cmp(&b.client_id))
    });
    ranked
}

fn sentence(reasons: &[String]) -> String {
    match reasons {
        [] => "nothing specific matched".into(),
        [one] => format!("{one} match"),
        [init @ .., last] => format!("{} and {last} match", init.join(", ")),
    }
}
