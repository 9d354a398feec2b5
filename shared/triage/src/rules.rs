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
        let (mut sv, mut en) = (0u32, 0u32);
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
            if whole && len > start {
                let marker = nodes[at].marker;
                sv += u32::from(marker & SV != 0);
                en += u32::from(marker & EN != 0);
            }
            self.toks.push((start as u32, (len - start) as u16, whole));
        }
        // A code-switching text ("Det är smoke everywhere, jag hittar inte ut") reads both:
        // when the other language has at least half as many marker words (and two), a rule
        // of either may apply. A guess escalates.
        if sv.min(en) >= 2 && 2 * sv.min(en) >= sv.max(en) {
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
            | Dialogue::Dispatch,
        ) => FOR_AGENT,
        Role::Dialogue(
            Dialogue::FirstPerson
            | Dialogue::ThirdPerson
            | Dialogue::ThirdParty
            | Dialogue::Present
            | Dialogue::Client,
        ) => FOR_TEXT,
    }
}

/// The shortest one-word trigger also looked for across two tokens.
const MIN_JOINED: usize = 6;

/// A match of a pattern in a sentence.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    /// The pattern's index in `Rules::patterns`.
    pub(crate) pattern: u32,
    /// First token.
    pub(crate) start: usize,
    /// One past the last token.
    pub(crate) end: usize,
    /// Tokens matched by words, not skipped by a gap: bit `i` = token `start + i`.
    pub(crate) literal: u64,
}

impl Hit {
    /// Whether token `i` was matched by a word of the pattern (not skipped by a gap).
    #[inline]
    pub(crate) fn covers_literally(&self, i: usize) -> bool {
        i >= self.start
            && i < self.end
            && i - self.start < 64
            && self.literal & (1 << (i - self.start)) != 0
    }

    /// Whether the two hits share a literally matched token.
    pub(crate) fn overlaps_literally(&self, other: &Hit) -> bool {
        (self.start.max(other.start)..self.end.min(other.end))
            .any(|i| self.covers_literally(i) && other.covers_literally(i))
    }

    /// Whether every word this hit matched is a word `other` matched too.
    pub(crate) fn within_literally(&self, other: &Hit) -> bool {
        (self.start..self.end).all(|i| !self.covers_literally(i) || other.covers_literally(i))
    }

    /// Whether the two spans overlap at all.
    pub(crate) fn overlaps(&self, other: &Hit) -> bool {
        self.start < other.end && other.start < self.end
    }
}

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
    /// Parses the files; the error names the file, line and problem.
    pub(crate) fn parse(files: &[(&str, &str)]) -> Result<Rules, String> {
        let mut rules = Rules {
            patterns: Vec::new(),
            nodes: vec![Node::default()],
            dense: Vec::new(),
            second_person: Vec::new(),
        };
        let mut seen: HashMap<String, (String, usize)> = HashMap::new();
        let mut markers: Vec<(String, u8)> = Vec::new();
        let mut counts = HashMap::new();
        for (name, content) in files {
            for (n, raw) in content.lines().enumerate() {
                let line = raw.trim_end();
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                let at = || format!("{name}:{}", n + 1);
                let fields: Vec<&str> = line
                    .split('\t')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .collect();
                let lang = match fields.first().copied() {
                    Some("sv") => SV,
                    Some("en") => EN,
                    Some("any") => ANY,
                    other => {
                        return Err(format!(
                            "{}: language must be sv, en or any, not {other:?}",
                            at()
                        ));
                    }
                };
                let (role, phrase) = match *name {
                    "triggers.tsv" => {
                        parse_trigger(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "modifiers.tsv" => {
                        parse_modifier(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "terminators.tsv" => {
                        parse_terminator(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "dialogue.tsv" => {
                        parse_dialogue(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "language.tsv" => {
                        if fields.len() != 2 {
                            return Err(format!(
                                "{}: expected 2 tab-separated fields: lang, words",
                                at()
                            ));
                        }
                        for w in fields[1].split_whitespace() {
                            let words = crate::normalise::phrase_words(w).unwrap_or_default();
                            if words.len() != 1 {
                                return Err(format!("{}: marker {w:?} is not one word", at()));
                            }
                            markers.push((words[0].clone(), lang));
                        }
                        continue;
                    }
                    other => return Err(format!("unknown rule file {other}")),
                };
                let elems =
                    parse_phrase(phrase).map_err(|e| format!("{}: {e} in {phrase:?}", at()))?;
                let key = format!("{lang}|{role:?}|{elems:?}");
                if let Some((file, line)) = seen.insert(key, (name.to_string(), n + 1)) {
                    return Err(format!("{}: duplicate of {file}:{line}", at()));
                }
                *counts.entry(*name).or_insert(0usize) += 1;
                let first = elems
                    .iter()
                    .position(|e| matches!(e, Elem::Word(..)))
                    .expect("checked by parse_phrase");
                if !elems
                    .iter()
                    .any(|e| matches!(e, Elem::Word(atoms, _) if atoms.iter().all(Atom::indexable)))
                {
                    return Err(format!(
                        "{}: a phrase needs a word that is not @cap in {phrase:?}",
                        at()
                    ));
                }
                let joinable = matches!(role, Role::Trigger(_))
                    && matches!(&elems[..], [Elem::Word(atoms, true)] if atoms.iter().all(|a| a.text.len() >= MIN_JOINED));
                rules.patterns.push(Pattern {
                    elems: elems.into(),
                    first,
                    anchor: first,
                    lang,
                    role,
                    joinable,
                    gate: Box::default(),
                    used_for: used_for(role),
                    bracketed: phrase.contains('['),
                });
            }
        }
        for (name, _) in files.iter().filter(|(n, _)| *n != "language.tsv") {
            if counts.get(name).copied().unwrap_or(0) == 0 {
                return Err(format!("{name}: no rules"));
            }
        }
        if markers.is_empty() {
            return Err("language.tsv: no marker words".into());
        }
        for c in Category::ALL {
            if !rules.patterns.iter().any(|p| p.role == Role::Trigger(c)) {
                return Err(format!(
                    "triggers.tsv: no trigger for category {}",
                    c.as_str()
                ));
            }
        }
        // Every word of every pattern goes into the index, so that matching compares nodes.
        let mut patterns = std::mem::take(&mut rules.patterns);
        for p in &mut patterns {
            for e in p.elems.iter_mut() {
                if let Elem::Word(atoms, _) = e {
                    for a in atoms.iter_mut().filter(|a| a.indexable()) {
                        a.node = rules.insert(&a.text) as u32;
                    }
                }
            }
        }
        // The anchor: the word least often met in calls. A common function word (a marker of
        // language.tsv, or a comma) or a short wildcard is met everywhere; then fewer atoms.
        let common: std::collections::HashSet<&str> = markers
            .iter()
            .map(|(w, _)| w.as_str())
            .chain([COMMA])
            .collect();
        let cost = |atoms: &[Atom]| -> usize {
            let frequent = atoms
                .iter()
                .any(|a| common.contains(&*a.text) || (a.prefix && a.text.len() < 4));
            usize::from(frequent) * 1000 + atoms.len()
        };
        for p in &mut patterns {
            let words = || {
                p.elems.iter().enumerate().filter_map(|(i, e)| match e {
                    Elem::Word(atoms, _) if atoms.iter().all(Atom::indexable) => {
                        Some((i, &atoms[..]))
                    }
                    _ => None,
                })
            };
            let anchor = words()
                .min_by_key(|(_, atoms)| cost(atoms))
                .map_or(p.first, |(i, _)| i);
            let gate = words()
                .filter(|&(i, _)| i != anchor)
                .min_by_key(|(_, atoms)| cost(atoms));
            p.gate = gate
                .map(|(_, atoms)| atoms.iter().map(|a| a.node).collect())
                .unwrap_or_default();
            p.anchor = anchor;
        }
        rules.patterns = patterns;
        for id in 0..rules.patterns.len() {
            let Elem::Word(atoms, _) = &rules.patterns[id].elems[rules.patterns[id].anchor] else {
                unreachable!()
            };
            let keys: Vec<(String, bool)> = atoms
                .iter()
                .map(|a| (a.text.to_string(), a.prefix))
                .collect();
            for (text, prefix) in keys {
                let node = rules.insert(&text);
                let list = if prefix {
                    &mut rules.nodes[node].prefix
                } else {
                    &mut rules.nodes[node].exact
                };
                if !list.contains(&(id as u32)) {
                    list.push(id as u32);
                }
            }
        }
        for (word, lang) in markers {
            let node = rules.insert(&word);
            rules.nodes[node].marker |= lang;
        }
        for p in &rules.patterns {
            if let (Role::Dialogue(Dialogue::SecondPerson), [Elem::Word(atoms, _)]) =
                (p.role, &p.elems[..])
            {
                for a in atoms.iter() {
                    if a.prefix || !a.indexable() || !a.text.is_ascii() {
                        return Err(
                            "dialogue.tsv: second_person words are plain ASCII words".into()
                        );
                    }
                    rules.second_person.push(a.text.as_bytes().into());
                }
            }
        }
        rules.dense = vec![0; rules.nodes.len() * DENSE];
        for (at, node) in rules.nodes.iter().enumerate() {
            for &(b, next) in &node.kids {
                if let Some(slot) = dense_slot(b) {
                    rules.dense[at * DENSE + slot] = next;
                }
            }
        }
        Ok(rules)
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

    /// Matches pattern `id` with its anchor word at token `at` of the sentence `[s, e)`: the
    /// words after the anchor forwards, the words before it backwards.
    pub(crate) fn match_at(
        &self,
        id: u32,
        toks: &Tokens,
        paths: &Paths,
        s: usize,
        e: usize,
        at: usize,
    ) -> Option<Hit> {
        let p = &self.patterns[id as usize];
        if !paths.gate_open(p) {
            return None; // the gate word is missing from the sentence
        }
        // Positions in the literal mask count from `base`, up to 32 tokens before the anchor.
        let base = at - (at - s).min(32);
        let mut literal = 0u64;
        match_from(
            &p.elems[p.anchor..],
            toks,
            paths,
            at,
            s,
            e,
            base,
            &mut literal,
        )?;
        match_back(&p.elems[..p.anchor], toks, paths, at, s, base, &mut literal)?;
        if literal == 0 {
            return None; // only context words (outside the brackets) within reach: no hit
        }
        // The hit is its core words (all of them unless the phrase brackets some).
        let start = base + literal.trailing_zeros() as usize;
        let end = base + 64 - literal.leading_zeros() as usize;
        Some(Hit {
            pattern: id,
            start,
            end,
            literal: literal >> (start - base),
        })
    }
}

/// Matches `elems` backwards, the last of them ending just before token `pos`; `base` as in
/// `match_from`. Returns where the match starts.
#[allow(clippy::too_many_arguments)]
fn match_back(
    elems: &[Elem],
    toks: &Tokens,
    paths: &Paths,
    pos: usize,
    s: usize,
    base: usize,
    literal: &mut u64,
) -> Option<usize> {
    let Some((last, rest)) = elems.split_last() else {
        return Some(pos);
    };
    match last {
        Elem::Start => (pos == s).then_some(pos),
        Elem::End => None,
        Elem::Word(atoms, core) => {
            if pos <= s {
                return None;
            }
            let i = pos - 1;
            let mut k = 0;
            while k < atoms.len() && !atoms[k].matches(toks, paths, i, s) {
                k += 1;
            }
            if k == atoms.len() {
                return None;
            }
            let start = match_back(rest, toks, paths, i, s, base, literal)?;
            if *core && i >= base && i - base < 64 {
                *literal |= 1 << (i - base);
            }
            Some(start)
        }
        Elem::Gap { max, commas } => {
            for skip in 0..=*max as usize {
                if skip > 0 {
                    if pos < s + skip {
                        return None;
                    }
                    if !commas && toks.is_comma(pos - skip) {
                        return None;
                    }
                }
                let mut mask = *literal;
                if let Some(start) = match_back(rest, toks, paths, pos - skip, s, base, &mut mask) {
                    *literal = mask;
                    return Some(start);
                }
            }
            None
        }
    }
}

/// Matches `elems` from token `pos`; `base` is the hit's first token (for the literal mask).
#[allow(clippy::too_many_arguments)]
fn match_from(
    elems: &[Elem],
    toks: &Tokens,
    paths: &Paths,
    pos: usize,
    s: usize,
    e: usize,
    base: usize,
    literal: &mut u64,
) -> Option<usize> {
    let Some((head, rest)) = elems.split_first() else {
        return Some(pos);
    };
    match head {
        Elem::Start => (pos == s)
            .then_some(())
            .and_then(|_| match_from(rest, toks, paths, pos, s, e, base, literal)),
        Elem::End => (pos == e).then_some(pos),
        Elem::Word(atoms, core) => {
            if pos >= e {
                return None;
            }
            let mut k = 0;
            while k < atoms.len() && !atoms[k].matches(toks, paths, pos, s) {
                k += 1;
            }
            if k == atoms.len() {
                return None;
            }
            let end = match_from(rest, toks, paths, pos + 1, s, e, base, literal)?;
            if *core && pos >= base && pos - base < 64 {
                *literal |= 1 << (pos - base);
            }
            Some(end)
        }
        Elem::Gap { max, commas } => {
            for skip in 0..=*max as usize {
                if skip > 0 {
                    let i = pos + skip - 1;
                    if i >= e || (!commas && toks.is_comma(i)) {
                        return None;
                    }
                }
                let mut mask = *literal;
                if let Some(end) = match_from(rest, toks, paths, pos + skip, s, e, base, &mut mask)
                {
                    *literal = mask;
                    return Some(end);
                }
            }
            None
        }
    }
}

fn parse_trigger<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, level, category, phrase] = f else {
        return Err("expected 4 tab-separated fields: lang, level, category, phrase".into());
    };
    let category =
        Category::parse(category).ok_or_else(|| format!("unknown category {category:?}"))?;
    let level = match *level {
        "urgent" => Level::Urgent,
        "concern" => Level::Concern,
        other => return Err(format!("level must be urgent or concern, not {other:?}")),
    };
    if category.level() != level {
        return Err(format!("category {} is not {level:?}", category.as_str()));
    }
    Ok((Role::Trigger(category), phrase))
}

fn parse_modifier<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let (kind, dir, phrase, window) = match f {
        [_, kind, dir, phrase] => (*kind, *dir, *phrase, None),
        [_, kind, dir, phrase, window] => (*kind, *dir, *phrase, Some(*window)),
        _ => {
            return Err(
                "expected 4 or 5 tab-separated fields: lang, kind, direction, phrase[, window]"
                    .into(),
            );
        }
    };
    if kind == "pseudo" {
        if dir != "-" || window.is_some() {
            return Err("a pseudo phrase has direction - and no window".into());
        }
        return Ok((Role::Pseudo, phrase));
    }
    let kind = Kind::parse(kind).ok_or_else(|| format!("unknown modifier kind {kind:?}"))?;
    let dir = match dir {
        "forward" => Direction::Forward,
        "backward" => Direction::Backward,
        "bidirectional" => Direction::Both,
        other => {
            return Err(format!(
                "direction must be forward, backward or bidirectional, not {other:?}"
            ));
        }
    };
    let window = match window {
        None => u16::MAX,
        Some(w) => match w.parse::<u16>() {
            Ok(n) if (1..=40).contains(&n) => n,
            _ => return Err(format!("window must be 1 to 40 words, not {w:?}")),
        },
    };
    Ok((Role::Modifier { kind, dir, window }, phrase))
}

fn parse_terminator<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, kinds, phrase] = f else {
        return Err("expected 3 tab-separated fields: lang, kinds, phrase".into());
    };
    let mut mask = 0u16;
    for k in kinds.split(',') {
        if k == "all" {
            mask |= Kind::ALL.iter().fold(0, |m, k| m | k.bit());
        } else {
            mask |= Kind::parse(k)
                .ok_or_else(|| format!("unknown modifier kind {k:?}"))?
                .bit();
        }
    }
    Ok((Role::Terminator(mask), phrase))
}

fn parse_dialogue<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, kind, phrase] = f else {
        return Err("expected 3 tab-separated fields: lang, kind, phrase".into());
    };
    let kind = match *kind {
        "affirm" => Dialogue::Affirm,
        "deny" => Dialogue::Deny,
        "unsure" => Dialogue::Unsure,
        "open_question" => Dialogue::OpenQuestion,
        "closed_question" => Dialogue::ClosedQuestion,
        "first_person" => Dialogue::FirstPerson,
        "third_person" => Dialogue::ThirdPerson,
        "third_party" => Dialogue::ThirdParty,
        "second_person" => Dialogue::SecondPerson,
        "present" => Dialogue::Present,
        "client" => Dialogue::Client,
        "dispatch" => Dialogue::Dispatch,
        other => match other.strip_prefix("inability:").and_then(Category::parse) {
            Some(c) => Dialogue::Inability(c),
            None => return Err(format!("unknown dialogue kind {other:?}")),
        },
    };
    Ok((Role::Dialogue(kind), phrase))
}

/// Parses a phrase: words separated by spaces, each `a|b*` alternatives with an optional `*`
/// suffix wildcard, `~`/`~N` a gap of up to N words (`~~N` across commas too), `^`/`$` the
/// sentence start/end, `,` a comma, `@cap` a capitalised word; `[`...`]` around some words
/// makes only those the hit (the rest must be there but is not part of it).
fn parse_phrase(phrase: &str) -> Result<Vec<Elem>, String> {
    let parts: Vec<&str> = phrase.split_whitespace().collect();
    let bracketed = phrase.contains('[');
    if (bracketed || phrase.contains(']'))
        && (phrase.matches('[').count() != 1 || phrase.matches(']').count() != 1)
    {
        return Err("brackets must be one [ and one ]".into());
    }
    let mut inside = !bracketed;
    let mut elems = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let mut part: &str = part;
        let opens = part.starts_with('[');
        if opens {
            part = &part[1..];
            inside = true;
        }
        let closes = part.ends_with(']');
        if closes {
            part = &part[..part.len() - 1];
        }
        let elem = if part == "^" {
            if i != 0 {
                return Err("^ must come first".into());
            }
            Elem::Start
        } else if part == "$" {
            if i + 1 != parts.len() {
                return Err("$ must come last".into());
            }
            Elem::End
        } else if let Some(n) = part.strip_prefix('~') {
            let (n, commas) = match n.strip_prefix('~') {
                Some(n) => (n, true),
                None => (n, false),
            };
            let n = if n.is_empty() {
                3
            } else {
                n.parse::<u8>().map_err(|_| format!("bad gap {part:?}"))?
            };
            if !(1..=8).contains(&n) {
                return Err(format!("gap {part:?} must be 1 to 8 words"));
            }
            if !matches!(elems.last(), Some(Elem::Word(..))) {
                return Err("a gap must follow a word".into());
            }
            Elem::Gap { max: n, commas }
        } else {
            let mut atoms = Vec::new();
            for alt in part.split('|') {
                if alt == "@cap" {
                    atoms.push(Atom {
                        text: "".into(),
                        prefix: false,
                        suffix: false,
                        cap: true,
                        node: 0,
                    });
                    continue;
                }
                let (alt, suffix) = match alt.strip_prefix('*') {
                    Some(t) => (t, true),
                    None => (alt, false),
                };
                let (text, prefix) = match alt.strip_suffix('*') {
                    Some(t) => (t, true),
                    None => (alt, false),
                };
                if prefix && suffix {
                    return Err(format!("{alt:?} has a wildcard at both ends"));
                }
                if text != COMMA
                    && !text
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '\'' | '’'))
                {
                    return Err(format!("{alt:?} is not one word"));
                }
                let words = if text == COMMA {
                    vec![COMMA.to_owned()]
                } else {
                    crate::normalise::phrase_words(text).unwrap_or_default()
                };
                if words.len() != 1 || (words[0] == COMMA && text != COMMA) {
                    return Err(format!("{alt:?} is not one word"));
                }
                if (prefix || suffix) && words[0].chars().count() < 3 {
                    return Err(format!("wildcard {alt:?} needs at least 3 letters"));
                }
                atoms.push(Atom {
                    text: words[0].clone().into(),
                    prefix,
                    suffix,
                    cap: false,
                    node: 0,
                });
            }
            Elem::Word(atoms.into(), inside)
        };
        if (opens || closes) && !matches!(elem, Elem::Word(..)) {
            return Err("brackets go around words".into());
        }
        if closes {
            if !bracketed {
                return Err("] without [".into());
            }
            inside = false;
        }
        elems.push(elem);
    }
    if matches!(elems.last(), Some(Elem::Gap { .. })) {
        return Err("a gap must be followed by a word".into());
    }
    if !elems.iter().any(|e| matches!(e, Elem::Word(_, true))) {
        return Err("no word (in the brackets)".into());
    }
    Ok(elems)
}

#[cfg(test)]
mod tests;
