//! Owns the rule files (rules/*.tsv, embedded with `include_str!`): their parsing and checking,
//! the compiled phrase patterns and the index that finds, for one word of call text, the
//! patterns that may start at it. Parsed once per process (`RULES`).

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::normalise::{COMMA, Tokens};
use crate::{Category, Level};

/// The embedded rule files, by name, in the order they are parsed.
const FILES: [(&str, &str); 5] = [
    ("triggers.tsv", include_str!("../rules/triggers.tsv")),
    ("modifiers.tsv", include_str!("../rules/modifiers.tsv")),
    ("terminators.tsv", include_str!("../rules/terminators.tsv")),
    ("dialogue.tsv", include_str!("../rules/dialogue.tsv")),
    ("language.tsv", include_str!("../rules/language.tsv")),
];

/// The rules of this build, parsed at first use. The files are compiled in and a unit test
/// parses them, so a malformed file fails the test suite, never a call.
pub(crate) static RULES: LazyLock<Result<Rules, String>> = LazyLock::new(|| Rules::parse(&FILES));

/// Language bit: Swedish.
pub(crate) const SV: u8 = 1;
/// Language bit: English.
pub(crate) const EN: u8 = 2;
/// Both languages.
pub(crate) const ANY: u8 = SV | EN;
/// Marker bit: the marker word counts only when written with a capital ("I": Swedish "i" is
/// "in").
pub(crate) const CAPITAL_ONLY: u8 = 4;

/// What a modifier says about the trigger terms in its scope (ConText's properties).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// "inte", "no", "never": the condition is absent.
    Negated = 0,
    /// "förra vintern", "years ago": it happened, but not now.
    Historical = 1,
    /// "det har gått över", "it's fine now": it happened and is over (the nearest trigger only).
    Resolved = 2,
    /// "om", "if", "what should I do if": not a fact.
    Hypothetical = 3,
    /// "min syster", "a man": someone other than the client is the experiencer.
    Other = 4,
    /// "i Malmö", "på TV", "lives in": where that someone is, when not with the client.
    OtherElsewhere = 5,
    /// "här hos mig", "on the kitchen floor": someone with the client now (beats elsewhere).
    OtherPresent = 6,
    /// "av skratt", "joking": a figure of speech.
    Figurative = 7,
    /// "the dog", "plåstret": the trigger happens to an animal or a thing, not a person.
    NotPerson = 8,
}

impl Kind {
    /// Every kind, in bit order.
    pub(crate) const ALL: [Kind; 9] = [
        Kind::Negated,
        Kind::Historical,
        Kind::Resolved,
        Kind::Hypothetical,
        Kind::Other,
        Kind::OtherElsewhere,
        Kind::OtherPresent,
        Kind::Figurative,
        Kind::NotPerson,
    ];

    /// This kind's bit in a kind mask.
    pub(crate) const fn bit(self) -> u16 {
        1 << self as u16
    }

    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "negated" => Kind::Negated,
            "historical" => Kind::Historical,
            "resolved" => Kind::Resolved,
            "hypothetical" => Kind::Hypothetical,
            "other" => Kind::Other,
            "other_elsewhere" => Kind::OtherElsewhere,
            "other_present" => Kind::OtherPresent,
            "figurative" => Kind::Figurative,
            "not_person" => Kind::NotPerson,
            _ => return None,
        })
    }
}

/// Which way a modifier's scope reaches from the modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Towards the end of the sentence.
    Forward,
    /// Towards the start of the sentence.
    Backward,
    /// Both ways.
    Both,
}

/// Words that tell who speaks, and how a short caller reply to an agent's question is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialogue {
    /// "ja", "yes", "det har jag".
    Affirm,
    /// "nej", "no", "inte direkt".
    Deny,
    /// "kanske", "I think so": unsure, read as yes (escalate when guessing).
    Unsure,
    /// A question word that makes a question open ("vad", "how"): "ja" does not answer it.
    OpenQuestion,
    /// A verb that starts a yes/no question without a question mark ("har du", "are you").
    ClosedQuestion,
    /// A first-person subject ("jag", "I"): the sentence is about the speaker.
    FirstPerson,
    /// A third-person subject ("hon", "they"): in a caller's line, someone else.
    ThirdPerson,
    /// The caller is not the client but speaks for them ("jag är dotter till", "I live next
    /// door to"): the person they speak of is the client.
    ThirdParty,
    /// A second-person word ("du", "you"): an agent line that addresses the client.
    SecondPerson,
    /// An agent's question whose alarming answer is "no" ("Kan du resa dig?"): a short no
    /// counts as the caller saying the category's trigger.
    Inability(Category),
    /// A word that puts the sentence in the present ("nu", "still"): not a story's sequel.
    Present,
    /// A word for the client in the third person ("brukaren", "the client"): the summary's
    /// subject, as "jag" is the caller's.
    Client,
    /// The agent tells the client that help is coming now ("Jag skickar hjälp", "Help is on
    /// the way"): a promise a person must keep, whatever the caller's words were.
    Dispatch,
    /// A sign that what the call raised is happening now and badly ("suddenly", "clammy",
    /// "it won't stop", "help me"): it makes a concern urgent.
    Acute,
    /// The means or the preparations of a suicide at hand ("the tablets are laid out", "the
    /// bridge", "letters to the children"): it makes low mood urgent self-harm.
    Means,
    /// The client takes a blood thinner ("warfarin", "blodförtunnande"): with a bleeding said
    /// now, a concern is urgent bleeding.
    Thinner,
    /// A bleeding said of now ("nosebleed", "blöder"), read with `Thinner`.
    Bleeding,
    /// The agent checks that the caller is still there ("Are you still there?", "Hör du
    /// mig?"): at the end of a call with no answer, the caller stopped answering mid-call.
    PresenceCheck,
}

/// What a pattern is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A term that raises a finding.
    Trigger(Category),
    /// A ConText modifier with its kind, direction and window (words; `u16::MAX` = sentence).
    Modifier {
        /// What it says.
        kind: Kind,
        /// Which way its scope reaches.
        dir: Direction,
        /// How many words its scope reaches at most.
        window: u16,
    },
    /// A phrase that holds a trigger or modifier term but is neither ("fell asleep",
    /// "inte bara"): whatever it overlaps is dropped.
    Pseudo,
    /// A term that ends the scope of the modifier kinds in the mask ("men", "but").
    Terminator(u16),
    /// A dialogue word: an answer, a question's first word, a pronoun, a third-party caller.
    Dialogue(Dialogue),
}

/// One word position of a pattern, matched against one token, any of the atoms.
#[derive(Debug)]
pub(crate) struct Atom {
    /// The normalised word, or its prefix.
    text: Box<str>,
    /// A `*` suffix wildcard: any word starting with `text`.
    prefix: bool,
    /// A `*` prefix wildcard: any word ending with `text` (Swedish compounds:
    /// "*tabletter" is "blodtryckstabletter" too). Not indexable.
    suffix: bool,
    /// `@cap`: any word written with a capital first letter, not first in its sentence (a
    /// name: "i Kalmar", "in Lund").
    cap: bool,
    /// The index node of `text` (every word of every rule is in the index).
    node: u32,
}

impl Atom {
    /// Whether the index can find it (a plain word or a prefix, not `@cap` or a suffix).
    fn indexable(&self) -> bool {
        !self.cap && !self.suffix
    }

    /// Whether token `i` is this word (or starts with it, for a wildcard): one comparison of
    /// index nodes, since both went through the same index.
    #[inline]
    fn matches(&self, toks: &Tokens, paths: &Paths, i: usize, sentence_start: usize) -> bool {
        if self.cap {
            return i > sentence_start && toks.toks[i].cap;
        }
        if self.suffix {
            return toks.word(i).ends_with(self.text.as_bytes());
        }
        let (start, walked, whole) = paths.toks[i];
        let depth = self.text.len();
        if self.prefix {
            walked as usize >= depth && paths.nodes[start as usize + depth - 1] == self.node
        } else {
            whole
                && walked as usize == depth
                && paths.nodes[start as usize + depth - 1] == self.node
        }
    }
}

/// Each token's walk through the index, node by node, so that a pattern word is matched by
/// comparing node numbers instead of strings; and which nodes the current sentence reaches.
#[derive(Default, Debug)]
pub(crate) struct Paths {
    /// The nodes of every walk, back to back.
    nodes: Vec<u32>,
    /// Per token: where its walk starts in `nodes`, how many letters it walked, and whether
    /// it walked the whole word.
    toks: Vec<(u32, u16, bool)>,
    /// Per index node, the number of the last sentence whose walks passed it.
    stamp: Vec<u32>,
    /// The number of the current sentence.
    serial: u32,
}

impl Paths {
    /// Notes the nodes the walks of tokens `range` pass, as the current sentence's.
    pub(crate) fn enter_sentence(&mut self, rules: &Rules, range: std::ops::Range<usize>) {
        if self.stamp.len() != rules.nodes.len() || self.serial == u32::MAX {
            self.stamp = vec![0; rules.nodes.len()];
            self.serial = 0;
        }
        self.serial += 1;
        for i in range {
            let (start, walked, _) = self.toks[i];
            for &n in &self.nodes[start as usize..start as usize + walked as usize] {
                self.stamp[n as usize] = self.serial;
            }
        }
    }

    /// Whether pattern `p` may match in the current sentence: its gate word is there.
    #[inline]
    fn gate_open(&self, p: &Pattern) -> bool {
        let gate = &p.gate[..];
        if gate.is_empty() {
            return true;
        }
        let mut k = 0;
        while k < gate.len() {
            if self.stamp[gate[k] as usize] == self.serial {
                return true;
            }
            k += 1;
        }
        false
    }

    /// Walks every token of `toks` through the index of `rules`; returns the text's language
    /// bits: the language with more marker words, both on a tie.
    pub(crate) fn fill(&mut self, rules: &Rules, toks: &Tokens) -> u8 {
        // One node per letter at most: sized once, written by index.
        self.nodes.clear();
        self.nodes.resize(toks.letters(), 0);
        self.toks.clear();
        let (dense, nodes) = (&rules.dense[..], &rules.nodes[..]);
        let (mut sv, mut en, mut letters) = (0u32, 0u32, 0u32);
        let mut len = 0usize;
        for i in 0..toks.toks.len() {
            let start = len;
            let mut at = 0usize;
            let mut whole = true;
            for &b in toks.word(i) {
                let slot = SLOT[b as usize];
                let next = if slot != NO_SLOT {
                    dense[at * DENSE + slot as usize] as usize
                } else {
                    rules.child(at, b)
                };
                if next == 0 {
                    whole = false;
                    break;
                }
                at = next;
                self.nodes[len] = next as u32;
                len += 1;
            }
            let m = nodes[at].marker;
            let marker = if !whole || len == start || (m & CAPITAL_ONLY != 0 && !toks.toks[i].cap) {
                0
            } else {
                m
            };
            sv += u32::from(marker & SV != 0);
            en += u32::from(marker & EN != 0);
            letters += u32::from(marker & SV == 0 && toks.toks[i].swedish);
            self.toks.push((start as u32, (len - start) as u16, whole));
        }
        // A code-switching text ("Det är smoke everywhere, jag hittar inte ut") reads both:
        // when the other language has at least half as many marker words (and two), a rule
        // of either may apply. A guess escalates.
        let both = |sv: u32, en: u32| sv.min(en) >= 2 && 2 * sv.min(en) >= sv.max(en);
        if both(sv, en) {
            return ANY;
        }
        // A word with å, ä or ö ("vårdas", "hjärtinfarkt") is Swedish whatever it means: it
        // tells a short text apart ("Sveas syster i Kiruna vårdas efter hjärtinfarkt" has one
        // marker word of each language), after the marker words have found no code-switching.
        let sv = sv + letters;
        if both(sv, en) {
            return ANY;
        }
        // One or two marker words of one language and none of the other are too few to tell:
        // "Brandvarnaren tjuter i hallen" has only "i", which is Swedish too. Such a text
        // reads both.
        if sv.min(en) == 0 && sv.max(en) <= 2 {
            return ANY;
        }
        match sv.cmp(&en) {
            std::cmp::Ordering::Greater => SV,
            std::cmp::Ordering::Less => EN,
            std::cmp::Ordering::Equal => ANY,
        }
    }
}

/// One element of a pattern.
#[derive(Debug)]
pub(crate) enum Elem {
    /// One word, any of these alternatives (`a|b*`); `core` unless the phrase brackets other
    /// words (`[...]`): only core words are the hit, the others are its context.
    Word(Box<[Atom]>, bool),
    /// `~` or `~N`: skip 0 to N words (default 3), never a comma; `~~N` may skip commas.
    Gap {
        /// At most this many tokens.
        max: u8,
        /// Commas may be skipped too.
        commas: bool,
    },
    /// `^`: the sentence starts here.
    Start,
    /// `$`: the sentence ends here.
    End,
}

/// A compiled phrase of a rule file.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// The elements, in order.
    elems: Box<[Elem]>,
    /// Index of the first `Elem::Word`.
    first: usize,
    /// Index of the word the index keys on: its rarest (not a common function word, fewest
    /// alternatives), so that "min ~1 syster" is tried where "syster" is, not at every "min".
    anchor: usize,
    /// Language bits it applies to.
    pub(crate) lang: u8,
    /// What it is for.
    pub(crate) role: Role,
    /// A one-word trigger of at least `MIN_JOINED` letters: also found split in two by
    /// speech-to-text ("ambu lans").
    joinable: bool,
    /// The index nodes of its most selective word after the first: the sentence must hold one
    /// of them (or a word starting with one) for the pattern to be tried at all.
    gate: Box<[u32]>,
    /// Which readings need it (`FOR_TEXT`, `FOR_REPLY`, `FOR_AGENT`).
    pub(crate) used_for: u8,
    /// Its phrase brackets some words: it must match more than its hit.
    pub(crate) bracketed: bool,
    /// Where it is written, for `explain`: the index of its file in `Rules::files` and its
    /// line.
    origin: (u8, u32),
}

/// A caller's line, a request or the summary is being read.
pub(crate) const FOR_TEXT: u8 = 1;
/// A caller's short answer is being read.
pub(crate) const FOR_REPLY: u8 = 2;
/// An agent's line is being read.
pub(crate) const FOR_AGENT: u8 = 4;

/// Which readings need a pattern of this role.
fn used_for(role: Role) -> u8 {
    match role {
        Role::Trigger(_) | Role::Terminator(_) => FOR_TEXT | FOR_AGENT,
        Role::Modifier { .. } | Role::Pseudo => FOR_TEXT | FOR_AGENT | FOR_REPLY,
        Role::Dialogue(Dialogue::Affirm | Dialogue::Deny | Dialogue::Unsure) => FOR_REPLY,
        Role::Dialogue(
            Dialogue::OpenQuestion
            | Dialogue::ClosedQuestion
            | Dialogue::SecondPerson
            | Dialogue::Inability(_)
            | Dialogue::Dispatch
            | Dialogue::PresenceCheck,
        ) => FOR_AGENT,
        Role::Dialogue(
            Dialogue::FirstPerson
            | Dialogue::ThirdPerson
            | Dialogue::ThirdParty
            | Dialogue::Present
            | Dialogue::Client
            | Dialogue::Acute
            | Dialogue::Means
            | Dialogue::Thinner
            | Dialogue::Bleeding,
        ) => FOR_TEXT,
    }
}

/// The shortest one-word trigger also looked for across two tokens.
const MIN_JOINED: usize = 6;

/// A node of the index: a byte trie over the first word of every pattern.
#[derive(Default, Debug)]
struct Node {
    /// Children by next byte, sorted.
    kids: Vec<(u8, u32)>,
    /// Patterns whose first word is exactly the path to this node.
    exact: Vec<u32>,
    /// Patterns whose first word starts with the path to this node.
    prefix: Vec<u32>,
    /// Language bits of marker words ending here (language.tsv).
    marker: u8,
}

/// The parsed rules.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Every pattern of every file.
    pub(crate) patterns: Vec<Pattern>,
    /// The index, root first.
    nodes: Vec<Node>,
    /// The index's children by letter, digit or comma: `DENSE` slots per node (0: none).
    dense: Vec<u32>,
    /// The second-person words ("du", "you"; dialogue.tsv), to tell whether an agent line
    /// speaks to the client without reading it all.
    second_person: Vec<Box<[u8]>>,
    /// The names of the rule files, in the order parsed.
    files: Vec<Box<str>>,
}

/// Slots per node in `Rules::dense`: a-z, 0-9 and the comma.
const DENSE: usize = 37;

/// The slot of byte `b` in `Rules::dense`, if it has one.
#[inline]
fn dense_slot(b: u8) -> Option<usize> {
    (SLOT[b as usize] != NO_SLOT).then_some(SLOT[b as usize] as usize)
}

/// No slot in `Rules::dense` (the byte's children are looked up in `Node::kids`).
const NO_SLOT: u8 = u8::MAX;

/// Every byte's slot in `Rules::dense`: a-z, 0-9 and the comma.
const SLOT: [u8; 256] = {
    let mut table = [NO_SLOT; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            c @ b'a'..=b'z' => c - b'a',
            c @ b'0'..=b'9' => 26 + c - b'0',
            b',' => 36,
            _ => NO_SLOT,
        };
        b += 1;
    }
    table
};

impl Rules {
    /// Where pattern `id` is written ("triggers.tsv:61"), for `explain`.
    pub(crate) fn origin(&self, id: u32) -> String {
        let (file, line) = self.patterns[id as usize].origin;
        format!("{}:{line}", self.files[usize::from(file)])
    }

    /// The child of node `at` by byte `b` (0: none; the root is nobody's child).
    #[inline]
    fn child(&self, at: usize, b: u8) -> usize {
        match dense_slot(b) {
            Some(slot) => self.dense[at * DENSE + slot] as usize,
            None => self.nodes[at]
                .kids
                .iter()
                .find(|&&(k, _)| k == b)
                .map_or(0, |&(_, n)| n as usize),
        }
    }

    fn insert(&mut self, word: &str) -> usize {
        let mut node = 0usize;
        for b in word.bytes() {
            node = match self.nodes[node].kids.binary_search_by_key(&b, |&(k, _)| k) {
                Ok(i) => self.nodes[node].kids[i].1 as usize,
                Err(i) => {
                    let new = self.nodes.len();
                    self.nodes.push(Node::default());
                    self.nodes[node].kids.insert(i, (b, new as u32));
                    new
                }
            };
        }
        node
    }

    /// Calls `found` with every pattern whose first word may match token `i` (prefix patterns
    /// along its walk, exact ones at its end); returns the index node where its walk ended, if
    /// it walked the whole word.
    #[inline]
    pub(crate) fn candidates(
        &self,
        paths: &Paths,
        i: usize,
        mut found: impl FnMut(u32),
    ) -> Option<u32> {
        let (start, walked, whole) = paths.toks[i];
        let (start, end) = (start as usize, start as usize + walked as usize);
        let mut k = start;
        while k < end {
            let prefix = &self.nodes[paths.nodes[k] as usize].prefix;
            let mut j = 0;
            while j < prefix.len() {
                found(prefix[j]);
                j += 1;
            }
            k += 1;
        }
        if !whole || end == start {
            return None;
        }
        let last = paths.nodes[end - 1];
        let exact = &self.nodes[last as usize].exact;
        let mut j = 0;
        while j < exact.len() {
            found(exact[j]);
            j += 1;
        }
        Some(last)
    }

    /// Continues a walk that ended at `node` (after a first word) with the letters of the
    /// next word `next`, and calls `found` with the one-word triggers the two words make
    /// together ("ambu" + "lans" = "ambulans").
    pub(crate) fn joined(&self, node: u32, next: &[u8], mut found: impl FnMut(u32)) {
        let mut at = node;
        for (k, &b) in next.iter().enumerate() {
            match self.child(at as usize, b) {
                0 => return,
                n => at = n as u32,
            }
            let node = &self.nodes[at as usize];
            let last = k + 1 == next.len();
            for &p in node
                .prefix
                .iter()
                .chain(if last { &node.exact[..] } else { &[] })
            {
                if self.patterns[p as usize].joinable {
                    found(p);
                }
            }
        }
    }

    /// Whether `text` (an agent's line) holds a second-person word ("du", "you"): a scan of
    /// its ASCII words, apostrophes dropped ("you're" = "youre"), without normalising it all.
    pub(crate) fn speaks_to_client(&self, text: &str) -> bool {
        // std's substring search, then a check that the match is a whole word.
        let lower = text.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let letter = |k: usize| {
            bytes
                .get(k)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b >= 0x80)
        };
        self.second_person.iter().any(|w| {
            let w = std::str::from_utf8(w).unwrap_or_default();
            lower
                .match_indices(w)
                .any(|(k, _)| (k == 0 || !letter(k - 1)) && !letter(k + w.len()))
        })
    }
}

mod matching;
pub(crate) use matching::Hit;
mod parse;

#[cfg(test)]
mod tests;
