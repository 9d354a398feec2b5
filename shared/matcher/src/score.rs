//! Evidence for one candidate, combined into a score (log-odds), and the ranking of all
//! candidates into confidences against the chance that the caller is none of them.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::index::{CallFacts, ClientIndex, Field, Person, Role, best_match, is_stop_word};
use super::names::{self, NameMatch};
use super::text::{self, topic_stem};

/// Log-odds weights. Names, streets, cities, zip codes and topic words weigh what their
/// rarity among the organisation's clients says (`ClientIndex::weight`); these are the fixed
/// parts. A national id or a phone number alone decides; a full name nearly does; a first
/// name needs a street, a city or a topic to win.
mod weight {
    pub const FULL_NAME_BONUS: f64 = 1.0;
    /// A name of the same mention that is not this client's (another "Marie" than "Anna").
    pub const CONFLICTING_FIRST_NAME: f64 = -3.0;
    /// A surname said with the given name that is not this client's.
    pub const CONFLICTING_SURNAME: f64 = -3.0;
    /// A relative calling shares the surname but is not the client.
    pub const PROXY_SURNAME_SHARE: f64 = 0.4;
    pub const PHONE: f64 = 10.0;
    pub const NATIONAL_ID: f64 = 14.0;
    pub const STREET_NUMBER: f64 = 2.5;
    pub const OTHER_STREET_NUMBER: f64 = -2.5;
    /// A topic the notes hold and the call names counts as much as its rarity says: among
    /// the clients the names already point to, few share it, and callers seldom bring up a
    /// topic that is not theirs.
    pub const TOPIC_SHARE: f64 = 1.0;
    pub const TOPIC_WORDS_COUNTED: usize = 2;
    /// A topic no other client with the given name the call says holds.
    pub const DISTINCT_TOPIC: f64 = 1.0;
    /// "None of these clients" scores the log of the number of clients plus this: a
    /// candidate must outweigh the prior odds against any one client.
    pub const NONE_BIAS: f64 = 0.0;
}

fn describe(kind: &str, heard: &str, known: &str, how: NameMatch) -> String {
    match how {
        NameMatch::Exact => format!("{kind} '{known}'"),
        NameMatch::Nickname | NameMatch::PetForm => {
            format!("{kind} '{heard}' (short for '{known}')")
        }
        NameMatch::Phonetic | NameMatch::Fuzzy(_) => format!("{kind} '{heard}' (like '{known}')"),
    }
}

/// The facts that matched, in words; written only for the candidates an answer shows, since
/// formatting them for thousands of candidates would cost more than scoring them.
struct Reasons {
    explain: bool,
    said: Vec<String>,
}

impl Reasons {
    fn new(explain: bool) -> Self {
        Self {
            explain,
            said: Vec::new(),
        }
    }
    fn push(&mut self, reason: impl FnOnce() -> String) {
        if self.explain {
            self.said.push(reason());
        }
    }
}

/// A remembered name comparison: the mention, the client's name word, and whether it is a
/// given name.
type NameKey<'a> = (usize, &'a str, bool);

/// Scores candidates for one call's facts. Name comparisons (sound keys, Jaro-Winkler) are the
/// costly part and repeat across candidates who share a name, so each (mention, name) pair is
/// compared once per request.
pub struct Scorer<'a> {
    index: &'a ClientIndex,
    facts: &'a CallFacts,
    /// Per mention, the words that may be a given name (`Mention::given_words`).
    given_words: Vec<Vec<String>>,
    /// Per mention, the words that may be a misheard surname: not a client's surname as said.
    surname_words: Vec<Vec<String>>,
    /// The call's words as topic stems (`text::topic_stem`).
    topic_words: HashSet<&'a str>,
    names: RefCell<HashMap<NameKey<'a>, Option<NameMatch>>>,
    /// Per topic stem the call names, how many candidates whose given name the call says hold
    /// it (`count_holders`): a topic only one of them holds singles that one out.
    topic_holders: HashMap<&'a str, usize>,
    /// Per mention, how many candidates its words match as a given name (`count_holders`): a
    /// heard given name weighs what the number of clients it could be says, however rare the
    /// client's own form of it.
    name_holders: Vec<usize>,
}

impl<'a> Scorer<'a> {
    pub fn new(index: &'a ClientIndex, facts: &'a CallFacts) -> Self {
        Self {
            index,
            facts,
            given_words: facts.mentions.iter().map(|m| m.given_words()).collect(),
            // A heard word that is a client's surname exactly was heard right: it is not a
            // misspelling of another ("Sjölund" is not "Skoglund").
            surname_words: facts
                .mentions
                .iter()
                .map(|m| {
                    m.words
                        .iter()
                        .filter(|word| !index.is_surname(word))
                        .cloned()
                        .collect()
                })
                .collect(),
            topic_words: facts
                .words
                .iter()
                .filter(|w| !is_stop_word(w))
                .map(|w| topic_stem(w))
                .collect(),
            names: RefCell::default(),
            topic_holders: HashMap::new(),
            name_holders: Vec::new(),
        }
    }

    /// Whether any mention's given name matches one of `person`'s.
    fn given_name_said(&self, person: &'a Person) -> bool {
        (0..self.facts.mentions.len())
            .any(|m| self.closest_name(m, &person.first_names, true).is_some())
    }

    /// Counts, among `candidates`, the clients each mention's given name could be, and, among those
    /// whose given name the call says, the holders of each topic the call names.
    pub fn count_holders(&mut self, candidates: &[usize]) {
        let mut names = vec![0; self.facts.mentions.len()];
        for &i in candidates {
            let person = self.index.person(i);
            for (m, given) in names.iter_mut().enumerate() {
                *given += usize::from(self.closest_name(m, &person.first_names, true).is_some());
            }
        }
        self.name_holders = names;
        let mut holders: HashMap<&'a str, usize> = HashMap::new();
        for &i in candidates {
            let person = self.index.person(i);
            if !self.given_name_said(person) {
                continue;
            }
            for word in &person.topic_words {
                if let Some(stem) = self.topic_words.get(word.as_str()) {
                    *holders.entry(stem).or_default() += 1;
                }
            }
        }
        self.topic_holders = holders;
    }

    /// How the words of mention `m` match `name`, as a given name or a surname, remembered.
    fn name_match(&self, m: usize, name: &'a str, given: bool) -> Option<NameMatch> {
        *self
            .names
            .borrow_mut()
            .entry((m, name, given))
            .or_insert_with(|| {
                if given {
                    best_match(&self.given_words[m], name, names::compare_given)
                } else if self.facts.mentions[m]
                    .words
                    .iter()
                    .any(|word| word == name || text::without_possessive(word) == Some(name))
                {
                    Some(NameMatch::Exact)
                } else {
                    best_match(&self.surname_words[m], name, names::compare)
                }
            })
    }

    /// Which of `names` mention `m` matches best, and how.
    fn closest_name(
        &self,
        m: usize,
        names: &'a [String],
        given: bool,
    ) -> Option<(&'a String, NameMatch)> {
        names
            .iter()
            .filter_map(|name| self.name_match(m, name, given).map(|how| (name, how)))
            .max_by(|a, b| a.1.strength().total_cmp(&b.1.strength()))
    }

    /// The weight of a name match: the rarity of the client's name, but never more than the
    /// rarity of what was heard, which `holders` clients match ("Britt" is said for Britt,
    /// Birgitta and Berit alike).
    fn heard_weight(&self, field: Field, name: &str, holders: usize) -> f64 {
        let own = self.index.weight(field, name);
        if holders == 0 {
            return own;
        }
        let heard = ((self.index.len() as f64 + 1.0) / (holders as f64 + 0.5)).ln();
        own.min(heard)
    }

    /// Whether mention `m` ends in a word that would be a surname and is not one of this
    /// client's: its last word, when that is not a given name, city or street of the client.
    fn says_another_surname(&self, m: usize, person: &Person) -> bool {
        let mention = &self.facts.mentions[m];
        let Some(last) = mention.words.last() else {
            return false;
        };
        mention.said_words() >= 2
            && last.chars().count() >= 3
            && !person.city_words.contains(last)
            && !person.street_words.contains(last)
            && !person
                .first_names
                .iter()
                .any(|name| names::same_given_name(last, name))
    }

    /// The score of one person, and (when `explain`) what matched, for the `reason`.
    pub fn score(&self, person: &'a Person, explain: bool) -> (f64, Vec<String>) {
        let (index, facts) = (self.index, self.facts);
        let mut total = 0.0;
        let mut reasons = Reasons::new(explain);

        // Names: the best mention counts; its role decides how much.
        // The best mention's value, what it says, and whether it said a surname or a given
        // name that is not this client's: then no topic can make up for it.
        let mut best_name = (0.0, Reasons::new(explain), false);
        for (m, mention) in facts.mentions.iter().enumerate() {
            let first = self.closest_name(m, &person.first_names, true);
            let last = self.closest_name(m, &person.surnames, false);
            let (first_weight, last_weight) = match mention.role {
                Role::Caller | Role::Subject => (1.0, 1.0),
                Role::Proxy => (0.0, weight::PROXY_SURNAME_SHARE),
            };
            let mut value = 0.0;
            let mut said = Reasons::new(explain);
            let given_holders = self.name_holders.get(m).copied().unwrap_or_default();
            if let Some((name, how)) = first {
                let weight = self.heard_weight(Field::FirstName, name, given_holders);
                value += first_weight * weight * how.strength();
                if first_weight > 0.0 {
                    said.push(|| describe("first name", &mention.words[0], name, how));
                }
            }
            if let Some((name, how)) = last {
                value += last_weight * index.weight(Field::Surname, name) * how.strength();
                said.push(|| {
                    describe("surname", mention.words.last().map_or("", |w| w), name, how)
                });
            }
            if first.is_some() && last.is_some() && mention.role != Role::Proxy {
                value += weight::FULL_NAME_BONUS;
            }
            // "Marie Gunnarsson" is not "Anna Gunnarsson": a first word that names nobody else
            // in the mention and is not this client's first name speaks against.
            let mut conflict = false;
            if last.is_some()
                && first.is_none()
                && mention.said_words() >= 2
                && mention.role != Role::Proxy
            {
                value += weight::CONFLICTING_FIRST_NAME;
                conflict = true;
            }
            // "Rakel Vallin" is not "Rakel Törnqvist": a surname said after the given name
            // that is not this client's speaks against, whatever else matches.
            if first.is_some()
                && last.is_none()
                && mention.role != Role::Proxy
                && self.says_another_surname(m, person)
            {
                value += weight::CONFLICTING_SURNAME;
                conflict = true;
            }
            if value > best_name.0 {
                best_name = (value, said, conflict);
            }
        }
        total += best_name.0;
        reasons.said.extend(best_name.1.said);
        let name_conflicts = best_name.2;

        if facts
            .national_ids
            .iter()
            .any(|id| Some(id.as_str()) == person.national_id.as_deref())
        {
            total += weight::NATIONAL_ID;
            reasons.push(|| "personal identity number".into());
        }
        if facts
            .phones
            .iter()
            .any(|phone| person.phones.contains(phone))
        {
            total += weight::PHONE;
            reasons.push(|| "phone number".into());
        }

        let street_heard = !person.street_words.is_empty()
            && person
                .street_words
                .iter()
                .all(|word| facts.words.contains(word));
        if street_heard {
            total += person
                .street_words
                .iter()
                .map(|w| index.weight(Field::Street, w))
                .fold(0.0, f64::max);
            let street = || person.street_words.join(" ");
            match person.street_number.as_deref() {
                Some(number) if facts.numbers.iter().any(|n| n == number) => {
                    total += weight::STREET_NUMBER;
                    reasons.push(|| format!("street '{} {number}'", street()));
                }
                Some(_) if !facts.numbers.iter().all(|n| n.len() > 4) => {
                    total += weight::OTHER_STREET_NUMBER;
                    reasons.push(|| format!("street '{}'", street()));
                }
                _ => reasons.push(|| format!("street '{}'", street())),
            }
        }
        if let Some(zip) = person.zip.as_deref()
            && facts.numbers.iter().any(|n| n == zip)
        {
            total += index.weight(Field::Zip, zip);
            reasons.push(|| format!("zip code '{zip}'"));
        }
        if !person.city_words.is_empty()
            && person.city_words.iter().all(|w| facts.words.contains(w))
        {
            total += person
                .city_words
                .iter()
                .map(|w| index.weight(Field::City, w))
                .fold(0.0, f64::max);
            reasons.push(|| format!("city '{}'", person.city_words.join(" ")));
        }
        // Words from the notes only add to other evidence: sharing an ailment or a pet with the
        // call does not make a client a candidate, nor make up for a name that is not theirs.
        if total <= 0.0 {
            return (0.0, Vec::new());
        }
        if name_conflicts {
            return (total, reasons.said);
        }
        let mut topics: Vec<&String> = person
            .topic_words
            .iter()
            .filter(|word| self.topic_words.contains(word.as_str()))
            .collect();
        topics.sort();
        topics.truncate(weight::TOPIC_WORDS_COUNTED);
        if !topics.is_empty() {
            total += topics
                .iter()
                .map(|w| weight::TOPIC_SHARE * index.weight(Field::Topic, w))
                .sum::<f64>();
            reasons.push(|| {
                let words: Vec<String> = topics.iter().map(|w| format!("'{w}'")).collect();
                format!("notes mention {}", words.join(", "))
            });
            let singles_out = topics
                .iter()
                .any(|w| self.topic_holders.get(w.as_str()) == Some(&1));
            if singles_out && self.given_name_said(person) {
                total += weight::DISTINCT_TOPIC;
            }
        }
        (total, reasons.said)
    }
}

/// The least confidence at which the best candidate is suggested.
pub const SUGGESTION_THRESHOLD: i32 = 50;

/// A ranked candidate: the chance (0-100) that the call is about this client, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub client_id: i32,
    pub portal_id: i32,
    pub name: String,
    pub address: String,
    pub confidence: i32,
    pub reason: String,
}

/// The best `limit` candidates, best first, with confidences that sum (with "none of them"
/// and the candidates left out) to at most 100.
pub fn rank(index: &ClientIndex, facts: &CallFacts, limit: usize) -> Vec<Ranked> {
    let facts = &index.read_as_names(facts);
    let mut scorer = Scorer::new(index, facts);
    let candidates = index.candidates(facts);
    scorer.count_holders(&candidates);
    let mut scored: Vec<(usize, f64)> = candidates
        .into_iter()
        .map(|i| (i, scorer.score(index.person(i), false).0))
        .filter(|(_, score)| *score > 0.0)
        .collect();
    // A softmax against the "none" score: two clients the facts cannot tell apart share the
    // probability, and neither reaches a suggestion.
    let none_score = (index.len().max(1) as f64).ln() + weight::NONE_BIAS;
    let top = scored.iter().map(|s| s.1).fold(none_score, f64::max);
    let none = (none_score - top).exp();
    let sum: f64 = none + scored.iter().map(|s| (s.1 - top).exp()).sum::<f64>();
    let confidence = |score: f64| ((score - top).exp() / sum * 100.0).floor() as i32;
    let client_id = |i: usize| index.person(i).client_id;
    scored.sort_by(|a, b| {
        confidence(b.1)
            .cmp(&confidence(a.1))
            .then(client_id(a.0).cmp(&client_id(b.0)))
    });
    scored.truncate(limit);
    scored
        .into_iter()
        .map(|(i, score)| {
            let person = index.person(i);
            let (_, reasons) = scorer.score(person, true);
            Ranked {
                client_id: person.client_id,
                portal_id: person.portal_id,
                name: person.name.clone(),
                address: person.address.clone(),
                confidence: confidence(score),
                reason: sentence(&reasons),
            }
        })
        .collect()
}

fn sentence(reasons: &[String]) -> String {
    match reasons {
        [] => "nothing specific matched".into(),
        [one] => format!("{one} match"),
        [init @ .., last] => format!("{} and {last} match", init.join(", ")),
    }
}

#[cfg(test)]
mod tests;
