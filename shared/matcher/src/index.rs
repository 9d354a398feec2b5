//! The candidate index over one organisation's clients, built once and queried per call: name
//! words (exact, short form, sound key, near spelling), phone numbers, national ids, street,
//! zip code and city, so that a query looks at the few clients its words point to.

use std::collections::{HashMap, HashSet};

use super::mentions::ordinary_words;
pub use super::mentions::{Mention, Role, mentions};
use super::names::{self, NameMatch};
use super::text;
use chrono::{DateTime, NaiveDate, Utc};

/// A client as the caller's records hold it: the fields that can identify them in a call.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFields<'a> {
    pub id: i32,
    pub portal_id: i32,
    /// A deleted client is never a candidate.
    pub is_deleted: bool,
    pub name: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub primary_number: Option<&'a str>,
    pub national_id: Option<&'a str>,
    pub street: Option<&'a str>,
    pub zip_code: Option<&'a str>,
    pub city: Option<&'a str>,
    /// Free text staff keep about the client (what they like, who visits).
    pub memory: Option<&'a str>,
    pub about: Option<&'a str>,
}

/// A client as the matcher sees it: normalised once, at index time.
#[derive(Debug, Clone)]
pub struct Person {
    pub client_id: i32,
    pub portal_id: i32,
    pub name: String,
    /// Street, zip code and city as written, for people (and a re-ranking model) to read.
    pub address: String,
    pub(crate) first_names: Vec<String>,
    pub(crate) surnames: Vec<String>,
    pub(crate) phones: Vec<String>,
    pub(crate) national_id: Option<String>,
    pub(crate) street_words: Vec<String>,
    pub(crate) street_number: Option<String>,
    pub(crate) zip: Option<String>,
    pub(crate) city_words: Vec<String>,
    pub(crate) topic_words: HashSet<String>,
}

/// Phone numbers compare on their national significant number, whatever prefix they were
/// said with: `+46 18 84 25 90`, `0046 18 ...` and `018-84 25 90` are all `18842590`.
pub fn phone_key(number: &str) -> Option<String> {
    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    let national = if let Some(rest) = digits.strip_prefix("0046") {
        rest
    } else if let Some(rest) = digits.strip_prefix("46").filter(|_| digits.len() >= 10) {
        rest
    } else if let Some(rest) = digits.strip_prefix('0') {
        rest
    } else {
        &digits
    };
    (national.len() >= 7 && national.len() <= 12).then(|| national.to_string())
}

/// Words that say nothing about who a client is, in the two languages of the summaries.
const STOP_WORDS: &[&str] = &[
    // English
    "the",
    "and",
    "for",
    "her",
    "his",
    "she",
    "him",
    "has",
    "had",
    "was",
    "are",
    "not",
    "but",
    "with",
    "from",
    "that",
    "this",
    "have",
    "about",
    "after",
    "again",
    "asked",
    "because",
    "called",
    "caller",
    "could",
    "would",
    "their",
    "there",
    "these",
    "which",
    "while",
    "where",
    "client",
    "visits",
    "wanted",
    "needs",
    "staff",
    "care",
    "home",
    "who",
    "they",
    "them",
    "been",
    "will",
    "what",
    "when",
    "also",
    "very",
    "some",
    "did",
    "does",
    "said",
    "says",
    "likes",
    "loves",
    "used",
    "uses",
    "one",
    "two",
    "all",
    "any",
    "out",
    "our",
    "you",
    "your",
    // Swedish
    "och",
    "att",
    "det",
    "som",
    "med",
    "har",
    "han",
    "hon",
    "for",
    "den",
    "ett",
    "till",
    "fran",
    "var",
    "vill",
    "ville",
    "kan",
    "inte",
    "efter",
    "eller",
    "fragade",
    "hennes",
    "hans",
    "hemtjansten",
    "hemtjanst",
    "kunde",
    "mycket",
    "ringde",
    "sedan",
    "skulle",
    "under",
    "uppringaren",
    "sin",
    "sitt",
    "sina",
    "hos",
    "nar",
    "pa",
    "om",
    "av",
    "men",
    "ocksa",
    "gillar",
    "tycker",
    "brukar",
    "ska",
    "sig",
    "ingen",
    "alla",
    "mer",
];

/// Whether a folded word says nothing about who a client is.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

fn topic_words(texts: &[Option<&str>]) -> HashSet<String> {
    texts
        .iter()
        .flatten()
        .flat_map(|text| text::words(text))
        .filter(|word| word.chars().count() >= 3 && !STOP_WORDS.contains(&word.as_str()))
        .map(|word| text::topic_stem(&word).to_string())
        .collect()
}

impl Person {
    pub fn of(client: &ClientFields, today: NaiveDate) -> Self {
        let name = client.name.unwrap_or_default().to_string();
        let name_words: Vec<Vec<String>> = name
            .split_whitespace()
            .map(text::words)
            .filter(|words| !words.is_empty())
            .collect();
        let (first_names, surnames) = match name_words.split_last() {
            // A double given name is one name ("Ann-Sofi" is not "Sofi"): only its joined form.
            Some((last, first)) if !first.is_empty() => (
                first
                    .iter()
                    .filter_map(|words| words.last())
                    .cloned()
                    .collect(),
                last.clone(),
            ),
            Some((only, _)) => (only.clone(), Vec::new()),
            None => (Vec::new(), Vec::new()),
        };
        let street = client.street.unwrap_or_default();
        let street_number = text::numbers(street).into_iter().next();
        let street_words = text::words(street)
            .into_iter()
            .filter(|word| !word.chars().all(|c| c.is_ascii_digit()))
            .collect();
        let address = [client.street, client.zip_code, client.city]
            .into_iter()
            .flatten()
            .map(|part| part.trim())
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(", ");
        Self {
            client_id: client.id,
            portal_id: client.portal_id,
            name,
            address,
            first_names,
            surnames,
            phones: [client.phone, client.primary_number]
                .into_iter()
                .flatten()
                .filter_map(phone_key)
                .collect(),
            national_id: client
                .national_id
                .and_then(|raw| crate::national_id::normalise(raw, today).ok()),
            street_words,
            street_number,
            zip: client
                .zip_code
                .map(|zip| zip.chars().filter(char::is_ascii_digit).collect::<String>())
                .filter(|zip| zip.len() == 5),
            city_words: client.city.map(text::words).unwrap_or_default(),
            topic_words: topic_words(&[client.memory, client.about]),
        }
    }
}

/// What a call says that can identify its client.
#[derive(Debug, Clone, Default)]
pub struct CallFacts {
    pub mentions: Vec<Mention>,
    pub words: HashSet<String>,
    pub phones: Vec<String>,
    pub national_ids: Vec<String>,
    pub numbers: Vec<String>,
}

impl CallFacts {
    pub fn of(summary: &str, from_number: Option<&str>, today: chrono::NaiveDate) -> Self {
        let numbers = text::numbers(summary);
        let mut phones: Vec<String> = numbers.iter().filter_map(|n| phone_key(n)).collect();
        phones.extend(from_number.and_then(phone_key));
        let national_ids = numbers
            .iter()
            .filter(|n| matches!(n.len(), 10 | 12))
            .filter_map(|n| crate::national_id::normalise(n, today).ok())
            .collect();
        Self {
            mentions: mentions(summary),
            words: text::words(summary).into_iter().collect(),
            phones,
            national_ids,
            numbers,
        }
    }
}

/// The fields whose words are weighed by how rare they are among the organisation's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    FirstName,
    Surname,
    Street,
    City,
    Zip,
    Topic,
}

impl Field {
    const COUNT: usize = 6;
}

/// One organisation's clients, indexed for candidate generation.
pub struct ClientIndex {
    people: Vec<Person>,
    /// How many clients have each word, per field (`Field as usize`), looked up by `&str`.
    counts: [HashMap<String, usize>; Field::COUNT],
    by_word: HashMap<String, Vec<usize>>,
    by_sound: HashMap<String, Vec<usize>>,
    /// Clients by the names their given names are forms of (`names::name_groups`).
    by_given_name: HashMap<String, Vec<usize>>,
    by_phone: HashMap<String, Vec<usize>>,
    by_national_id: HashMap<String, Vec<usize>>,
    /// Distinct name words, for near-spelling lookups without touching every client.
    vocabulary: Vec<String>,
}

impl ClientIndex {
    /// Indexes the live clients among `clients` (deleted ones are never candidates).
    pub fn build<'a>(
        clients: impl IntoIterator<Item = ClientFields<'a>>,
        now: DateTime<Utc>,
    ) -> Self {
        let today = now.date_naive();
        let people: Vec<Person> = clients
            .into_iter()
            .filter(|client| !client.is_deleted)
            .map(|client| Person::of(&client, today))
            .collect();
        let mut index = Self {
            people: Vec::new(),
            counts: Default::default(),
            by_word: HashMap::new(),
            by_sound: HashMap::new(),
            by_given_name: HashMap::new(),
            by_phone: HashMap::new(),
            by_national_id: HashMap::new(),
            vocabulary: Vec::new(),
        };
        for (i, person) in people.iter().enumerate() {
            // Names and streets point to candidates; a city or a topic alone never makes a
            // suggestion, and in a large organisation would put thousands of clients in play.
            for word in person.first_names.iter().chain(&person.surnames) {
                index.by_word.entry(word.clone()).or_default().push(i);
                index
                    .by_sound
                    .entry(names::phonetic_key(word))
                    .or_default()
                    .push(i);
            }
            for word in &person.street_words {
                index.by_word.entry(word.clone()).or_default().push(i);
            }
            let fields = [
                (Field::FirstName, &person.first_names),
                (Field::Surname, &person.surnames),
                (Field::Street, &person.street_words),
                (Field::City, &person.city_words),
            ];
            let mut counted: HashSet<(Field, &String)> = HashSet::new();
            for (field, words) in fields {
                counted.extend(words.iter().map(|w| (field, w)));
            }
            counted.extend(person.zip.iter().map(|zip| (Field::Zip, zip)));
            counted.extend(person.topic_words.iter().map(|w| (Field::Topic, w)));
            for (field, word) in counted {
                *index.counts[field as usize]
                    .entry(word.clone())
                    .or_default() += 1;
            }
            // A client whose given name is a form of another ("Calle") is also found by that
            // name; the name itself is in `by_word`.
            for name in &person.first_names {
                for group in names::name_groups(name).skip(1) {
                    let holders = index.by_given_name.entry(group.to_string()).or_default();
                    if holders.last() != Some(&i) {
                        holders.push(i);
                    }
                }
            }
            for phone in &person.phones {
                index.by_phone.entry(phone.clone()).or_default().push(i);
            }
            if let Some(id) = &person.national_id {
                index.by_national_id.entry(id.clone()).or_default().push(i);
            }
        }
        index.vocabulary = index.by_word.keys().cloned().collect();
        index.people = people;
        index
    }

    pub fn len(&self) -> usize {
        self.people.len()
    }

    /// Whether some client has `word` (folded) as a surname.
    pub fn is_surname(&self, word: &str) -> bool {
        self.counts[Field::Surname as usize].contains_key(word)
    }

    /// The call's facts with the ordinary words taken out of its mentions, unless the word is a
    /// given name or a client of the organisation has it as a name ("Per", "Bo" and "Bill" are
    /// ordinary words too).
    pub fn read_as_names(&self, facts: &CallFacts) -> CallFacts {
        let ordinary = ordinary_words();
        let mut facts = facts.clone();
        for mention in &mut facts.mentions {
            mention.words.retain(|word| {
                !ordinary.contains(word)
                    || self.counts[Field::FirstName as usize].contains_key(word)
                    || self.is_surname(word)
                    || names::is_known_given_name(word)
            });
            let words = &mention.words;
            mention.halves.retain(|half| words.contains(half));
        }
        facts.mentions.retain(|mention| !mention.words.is_empty());
        facts
    }

    pub fn is_empty(&self) -> bool {
        self.people.is_empty()
    }

    pub fn person(&self, i: usize) -> &Person {
        &self.people[i]
    }

    /// How much a match on `word` in `field` says: the log of how many clients it rules out
    /// (a rare surname says more than "Andersson").
    pub fn weight(&self, field: Field, word: &str) -> f64 {
        let holders = self.counts[field as usize].get(word).copied().unwrap_or(0);
        ((self.people.len() as f64 + 1.0) / (holders as f64 + 0.5)).ln()
    }

    /// The clients a call's facts point to at all.
    pub fn candidates(&self, facts: &CallFacts) -> Vec<usize> {
        let mut found: HashSet<usize> = HashSet::new();
        let mut add = |hits: Option<&Vec<usize>>| found.extend(hits.into_iter().flatten());
        for word in &facts.words {
            add(self.by_word.get(word));
            if let Some(stem) = text::without_possessive(word) {
                add(self.by_word.get(stem));
            }
            for group in names::name_groups(word) {
                add(self.by_given_name.get(group));
                add(self.by_word.get(group));
            }
        }
        // Sound-alikes only for the words said as names: "called" sounds like "Kalle".
        for word in facts.mentions.iter().flat_map(|m| &m.words) {
            if word.chars().count() >= 3 {
                add(self.by_sound.get(&names::phonetic_key(word)));
            }
        }
        for phone in &facts.phones {
            add(self.by_phone.get(phone));
        }
        for id in &facts.national_ids {
            add(self.by_national_id.get(id));
        }
        // Near spellings: against the distinct name words, not the clients.
        let heard: Vec<&String> = facts
            .mentions
            .iter()
            .flat_map(|m| &m.words)
            .filter(|w| w.chars().count() >= 4)
            .collect();
        // A word that is a name of its own is never a pet form of another.
        let maybe_pet: Vec<&String> = heard
            .iter()
            .copied()
            .filter(|w| !names::is_known_given_name(w))
            .collect();
        for known in &self.vocabulary {
            if heard
                .iter()
                .any(|w| matches!(names::compare(w, known), Some(NameMatch::Fuzzy(_))))
                || maybe_pet
                    .iter()
                    .any(|w| names::is_swedish_pet_form(w, known))
            {
                add(self.by_word.get(known));
            }
        }
        let mut found: Vec<usize> = found.into_iter().collect();
        found.sort_unstable();
        found
    }
}

/// The best match of any of `heard` for `name`, compared by `compare` (`names::compare` for
/// surnames, `names::compare_given` for given names).
pub(crate) fn best_match(
    heard: &[String],
    name: &str,
    compare: fn(&str, &str) -> Option<NameMatch>,
) -> Option<NameMatch> {
    heard
        .iter()
        .flat_map(|word| std::iter::once(word.as_str()).chain(text::without_possessive(word)))
        .filter_map(|word| compare(word, name))
        .max_by(|a, b| a.strength().total_cmp(&b.strength()))
}

#[cfg(test)]
mod tests;
