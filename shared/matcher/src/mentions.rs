//! The names a call's summary mentions, and in what role: the caller, the client a relative
//! calls about, or the relative calling for them; with the word lists that tell a name from a
//! capitalised ordinary word.

use std::collections::HashSet;

use super::text::{self, fold};

/// Who a name in the summary is: the person the call is about, someone calling for them, or
/// (without any such wording) the caller, who is then taken to be the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Caller,
    /// Named right after a relation ("his father Lennart", "för sin mamma Ingrid").
    Subject,
    /// Named as the one calling for someone else ("Jonas called on behalf of ...").
    Proxy,
}

/// A run of capitalised words in the summary, with its role.
#[derive(Debug, Clone, PartialEq)]
pub struct Mention {
    pub words: Vec<String>,
    /// The halves of hyphenated words, which `words` also holds: a surname may be said by
    /// either half, a double given name never is.
    pub halves: Vec<String>,
    pub role: Role,
}

impl Mention {
    /// How many words were said: a hyphenated name is one word, not its halves and their
    /// joined form.
    pub fn said_words(&self) -> usize {
        self.words.len().saturating_sub(self.halves.len())
    }

    /// The words that may be a given name: all but the halves of a double name.
    pub fn given_words(&self) -> Vec<String> {
        self.words
            .iter()
            .filter(|word| !self.halves.contains(word))
            .cloned()
            .collect()
    }
}

/// Titles and sentence openers that are capitalised but name nobody.
const TITLES: &[&str] = &[
    "mr",
    "mrs",
    "ms",
    "miss",
    "dr",
    "herr",
    "fru",
    "froken",
    "the",
    "a",
    "an",
    "en",
    "ett",
    "caller",
    "uppringaren",
    "hon",
    "han",
    "she",
    "he",
    "samtalet",
    "call",
];

/// Words after which a name is the person the call is about.
const RELATIONS: &[&str] = &[
    "father",
    "mother",
    "dad",
    "mum",
    "mom",
    "husband",
    "wife",
    "grandmother",
    "grandfather",
    "grandma",
    "grandpa",
    "brother",
    "sister",
    "aunt",
    "uncle",
    "neighbour",
    "neighbor",
    "friend",
    "son",
    "daughter",
    "behalf",
    "pappa",
    "mamma",
    "far",
    "mor",
    "make",
    "maka",
    "fru",
    "sambo",
    "farmor",
    "mormor",
    "farfar",
    "morfar",
    "bror",
    "syster",
    "granne",
    "grannen",
    "van",
    "dotter",
    "moster",
    "faster",
    "morbror",
    "farbror",
    "vagnar",
    "patient",
    "brukare",
    "kund",
];

/// Words that say the speaker calls for someone else.
const PROXY_CUES: &[&str] = &[
    "behalf",
    "for",
    "vagnar",
    "about",
    "om",
    "angaende",
    "nurse",
    "sjukskoterska",
    "undersköterska",
    "underskoterska",
    "relative",
    "anhorig",
];

/// The names mentioned in `summary` and who they are.
pub fn mentions(summary: &str) -> Vec<Mention> {
    let raw: Vec<&str> = summary
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let folded: Vec<String> = raw.iter().map(|w| fold(w)).collect();
    let has_relation = folded.iter().any(|w| RELATIONS.contains(&w.as_str()));
    let mut mentions = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        if !raw[i].chars().next().is_some_and(char::is_uppercase) {
            i += 1;
            continue;
        }
        let start = i;
        while i < raw.len() && raw[i].chars().next().is_some_and(char::is_uppercase) {
            i += 1;
        }
        let mut words = Vec::new();
        let mut halves = Vec::new();
        for raw_word in &raw[start..i] {
            let split = text::words(raw_word);
            if raw_word.contains('-') && split.len() > 1 {
                halves.extend(split[..split.len() - 1].iter().cloned());
            }
            words.extend(split);
        }
        words.retain(|w| !TITLES.contains(&w.as_str()));
        if words.is_empty() {
            continue;
        }
        let before = &folded[start.saturating_sub(3)..start];
        let after = &folded[i..(i + 4).min(folded.len())];
        let role = if before.iter().any(|w| RELATIONS.contains(&w.as_str())) {
            Role::Subject
        } else if has_relation && after.iter().any(|w| PROXY_CUES.contains(&w.as_str())) {
            Role::Proxy
        } else {
            Role::Caller
        };
        mentions.push(Mention {
            words,
            halves,
            role,
        });
    }
    mentions
}

/// Ordinary Swedish and English words (stopwords-iso's lists and the nouns summaries use for
/// the person, `shared/assets/ordinary-words.txt.gz`): capitalised at the start of a sentence
/// ("Brukaren Holm ringde", "Kunden ...") they are still not names.
const ORDINARY_WORDS: &[u8] = include_bytes!("../../assets/ordinary-words.txt.gz");

pub(super) fn ordinary_words() -> &'static HashSet<String> {
    static WORDS: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        crate::assets::text_of(ORDINARY_WORDS, "ordinary words")
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with(['#', '[']))
            .map(fold)
            .collect()
    })
}
