//! Owns the reading of a call: the ConText step per sentence and the discourse step over the
//! sentences of a call.
//!
//! Per sentence, as in ConText (Chapman et al.) and its later implementations (pyConTextNLP,
//! medspaCy): the trigger, modifier, pseudo and terminator phrases of the rules are found; a
//! forward modifier reaches the words after it, a backward one the words before it (never
//! across a comma), a bidirectional one both, each up to its window and cut by a terminator
//! of its kind ("men", "but") and by the sentence end; a pseudo phrase ("fell asleep", "inte
//! bara") removes the trigger or modifier it contains; a modifier within a trigger's words
//! ("kan inte andas") is part of the trigger; where triggers overlap, the longest wins.
//!
//! Per call, for what ConText leaves to the document: a story about someone else goes on in
//! the sentences after it that have no first-person subject ("My friend collapsed at church.
//! She wasn't breathing."), and an "it is over" sentence ("Nu är det bra", "It stopped after
//! ten minutes") ends what the same speaker turn raised before it. An agent's yes/no question
//! counts as the caller's words when the caller answers it with a short yes (a long answer is
//! read by its first sentence).

use std::ops::Range;

use crate::normalise::Tokens;
use crate::rules::{
    Dialogue, Direction, FOR_AGENT, FOR_REPLY, FOR_TEXT, Hit, Kind, Paths, Role, Rules,
};
use crate::{CallText, Category, Finding, Source, Speaker};

/// A caller reply longer than this many words is not a short answer (it is read on its own).
const MAX_REPLY_WORDS: usize = 8;

/// Nor is one longer than this many bytes ("Ja, det har jag faktiskt, sedan i morse.").
const MAX_REPLY_CHARS: usize = 48;

/// How far a third-person pronoun of a caller's sentence reaches as "someone else".
const PRONOUN_WINDOW: u16 = 8;

/// Kinds that rule a trigger out whatever else the sentence says.
const RULE_OUT: u16 = Kind::Negated.bit()
    | Kind::Historical.bit()
    | Kind::Resolved.bit()
    | Kind::Hypothetical.bit()
    | Kind::Figurative.bit()
    | Kind::NotPerson.bit();

/// Kinds that, in a caller's short answer, take back the "yes" (it was long ago, it is over,
/// only if, somewhere else, a joke).
const REPLY_TAKES_BACK: u16 = RULE_OUT & !Kind::Negated.bit();

/// Kinds a story carries into the sentences after it: who, where, when.
const FRAME: u16 = Kind::Other.bit()
    | Kind::OtherElsewhere.bit()
    | Kind::OtherPresent.bit()
    | Kind::Historical.bit();

/// A story is over after this many sentences in a row that add nothing to it.
const FRAME_SENTENCES: u8 = 2;

/// Where the words of a clause are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// A caller line, by transcript index.
    Line(usize),
    /// A request, by index.
    Request(usize),
    /// The summary.
    Summary,
    /// An agent's question (line `agent`) the caller confirmed (line `reply`).
    Confirmed { agent: usize, reply: usize },
}

/// One sentence as the discourse step sees it.
#[derive(Debug)]
struct Clause {
    /// Where its words are.
    unit: Unit,
    /// Its byte range in the unit's text (the agent's line for a confirmed question).
    orig: (usize, usize),
    /// Its triggers with the kinds of the modifiers that reach them, in `Analyser::found`.
    triggers: Range<usize>,
    /// It has a first-person subject ("jag", "I"), or a word that puts it in the present
    /// ("nu", "still"): it is not the sequel of a story.
    first_person: bool,
    /// Kinds of every modifier in it (whatever they reach).
    cues: u16,
    /// It holds an "it is over" that reaches none of its own triggers.
    resolves: bool,
    /// Spoken by the caller (a third-person pronoun is someone else; not the summary's "she").
    caller: bool,
}

/// A step of the discourse: a sentence, a turn of the agent, or the start of another text.
#[derive(Debug)]
enum Entry {
    /// Agent line `agent` was spoken; `addresses` when it spoke to the client ("you"), which
    /// ends a story the caller was telling about someone else (`None`: not read yet; only a
    /// story needs it).
    Turn {
        agent: usize,
        addresses: Option<bool>,
    },
    /// A new text (a request, the summary) starts.
    Text,
    /// A sentence.
    Clause(Clause),
}

/// How a sentence is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The client's own words (caller line, request, summary).
    Statement,
    /// An agent's question the caller answered "yes": a negation in the question does not
    /// count ("Du har väl inte ramlat?" - "Jo").
    Question,
    /// An agent's statement the caller answered "yes" ("Så du har ramlat." - "Ja.").
    Echo,
}

/// Reads one call; holds reusable buffers.
pub(crate) struct Analyser<'r> {
    /// The rules it reads with.
    rules: &'r Rules,
    /// The text being read.
    toks: Tokens,
    /// A caller's reply to an agent line.
    reply: Tokens,
    /// The rule phrases found in the text being read, with their sentence.
    hits: Vec<(usize, Hit)>,
    /// The index walks of the text being read.
    paths: Paths,
    /// Scratch space for one sentence.
    sentence: Sentence,
    /// Every clause's triggers with the modifier kinds that reach them.
    found: Vec<(Category, u16)>,
    /// The call so far, sentence by sentence.
    entries: Vec<Entry>,
    /// The caller speaks for the client (a relative, a neighbour).
    third_party: bool,
}

/// What one sentence holds, once its modifiers are applied.
struct Reading {
    /// A first-person subject, or a word that puts it in the present.
    first_person: bool,
    /// Kinds of every modifier in it.
    cues: u16,
    /// An "it is over" that reaches none of its triggers.
    resolves: bool,
}

/// Scratch space for one sentence's hits, sorted by role.
#[derive(Default)]
struct Sentence {
    /// Where the sentence names its speaker ("jag", "I"; in the summary also "brukaren",
    /// "she"), and where someone else ("min syster", "he"), by token.
    subjects: Vec<(usize, bool)>,
    /// Trigger hits.
    triggers: Vec<Hit>,
    /// Modifier hits with their kind, direction and window.
    modifiers: Vec<(Hit, Kind, Direction, u16)>,
    /// Terminator hits.
    terminators: Vec<Hit>,
    /// Pseudo hits.
    pseudo: Vec<Hit>,
    /// Per trigger, the kinds of the modifiers that reach it.
    flags: Vec<u16>,
}

impl<'r> Analyser<'r> {
    /// An analyser over `rules`.
    pub(crate) fn new(rules: &'r Rules) -> Self {
        Analyser {
            rules,
            toks: Tokens::default(),
            reply: Tokens::default(),
            hits: Vec::new(),
            paths: Paths::default(),
            sentence: Sentence::default(),
            found: Vec::new(),
            entries: Vec::new(),
            third_party: false,
        }
    }

    /// Forgets the previous call (the buffers stay, so a thread's next call allocates little).
    pub(crate) fn reset(&mut self) {
        self.found.clear();
        self.entries.clear();
        self.third_party = false;
    }

    /// Reads a caller line (transcript index `index`).
    pub(crate) fn caller_line(&mut self, text: &str, index: usize) {
        self.read(text, Unit::Line(index), true);
    }

    /// Reads a request (index `index`), a text of its own.
    pub(crate) fn request(&mut self, text: &str, index: usize) {
        self.entries.push(Entry::Text);
        self.read(text, Unit::Request(index), false);
    }

    /// Whether the text last collected speaks to the client ("du", "you").
    fn addresses(&self, lang: u8) -> bool {
        self.hits.iter().any(|(_, h)| {
            let p = &self.rules.patterns[h.pattern as usize];
            p.role == Role::Dialogue(Dialogue::SecondPerson) && p.lang & lang != 0
        })
    }

    /// What the analyser holds so far, one line per clause (for `explain`).
    pub(crate) fn dump(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            match e {
                Entry::Turn { agent, addresses } => {
                    out.push_str(&format!("-- agent {agent} addresses={addresses:?}\n"))
                }
                Entry::Text => out.push_str("-- text\n"),
                Entry::Clause(c) => {
                    let kinds = |m: u16| {
                        Kind::ALL
                            .iter()
                            .filter(|k| m & k.bit() != 0)
                            .map(|k| format!("{k:?}"))
                            .collect::<Vec<_>>()
                            .join("+")
                    };
                    let triggers: Vec<String> = self.found[c.triggers.clone()]
                        .iter()
                        .map(|(cat, f)| format!("{}[{}]", cat.as_str(), kinds(*f)))
                        .collect();
                    out.push_str(&format!(
                        "{:?} first_person={} resolves={} cues={} triggers={}\n",
                        c.unit,
                        c.first_person,
                        c.resolves,
                        kinds(c.cues),
                        triggers.join(" ")
                    ));
                }
            }
        }
        out
    }

    /// Reads the summary, a text of its own.
    pub(crate) fn summary(&mut self, text: &str) {
        self.entries.push(Entry::Text);
        self.read(text, Unit::Summary, false);
    }

    /// Reads agent line `agent` and the caller's answer to it (if the next line is the
    /// caller's): the agent's turn ends the caller's previous one, and when the answer is a
    /// short "yes" (or an unsure one) with nothing that takes it back, the agent's yes/no
    /// questions (and closing statement) count as said by the caller.
    pub(crate) fn agent_line(&mut self, text: &str, agent: usize, reply: Option<(&str, usize)>) {
        // A reply longer than a short answer is not read as one: its length tells first.
        // A long reply is read by its first sentence ("Ja, just nu faktiskt. Det har hållit
        // på en halvtimme."): a yes that opens a long answer still confirms the question.
        let reply = reply.map(|(r, i)| (first_sentence(r), i));
        let short = |r: &str| r.trim().len() <= MAX_REPLY_CHARS;
        let answer = reply.and_then(|(r, i)| {
            short(r)
                .then(|| self.short_answer(r))
                .flatten()
                .map(|a| (a, i))
        });
        let Some((yes, reply_index)) = answer else {
            self.entries.push(Entry::Turn {
                agent,
                addresses: None,
            });
            return;
        };
        self.toks.fill(text);
        let lang = collect(
            self.rules,
            &self.toks,
            &mut self.paths,
            &mut self.hits,
            FOR_AGENT,
        );
        let addresses = self.addresses(lang);
        self.entries.push(Entry::Turn {
            agent,
            addresses: Some(addresses),
        });
        let last = self.toks.sents.len().saturating_sub(1);
        let mut i = 0;
        for si in 0..self.toks.sents.len() {
            let mut j = i;
            while j < self.hits.len() && self.hits[j].0 == si {
                j += 1;
            }
            let s = self.toks.sents[si];
            let closed = self.is_closed_question(si, &self.hits[i..j]);
            let start = self.found.len();
            let cues = if !yes {
                // "Kan du resa dig?" - "Nej": the caller cannot.
                if closed {
                    for (_, h) in &self.hits[i..j] {
                        let p = &self.rules.patterns[h.pattern as usize];
                        if let Role::Dialogue(Dialogue::Inability(c)) = p.role
                            && p.lang & lang != 0
                        {
                            self.found.push((c, 0));
                        }
                    }
                }
                0
            } else {
                // An agent's statement counts when it echoes the caller ("Så du har ramlat."),
                // not when it informs ("Many people fall in winter.").
                let echoes = self.hits[i..j].iter().any(|(_, h)| {
                    self.rules.patterns[h.pattern as usize].role
                        == Role::Dialogue(Dialogue::SecondPerson)
                });
                let mode = if closed {
                    Mode::Question
                } else if si == last && !s.question && echoes {
                    Mode::Echo
                } else {
                    i = j;
                    continue;
                };
                self.sentence
                    .resolve(
                        self.rules,
                        &self.toks,
                        &self.hits[i..j],
                        lang,
                        mode,
                        false,
                        s.end,
                        &mut self.found,
                    )
                    .cues
            };
            if self.found.len() == start {
                i = j;
                continue;
            }
            self.entries.push(Entry::Clause(Clause {
                unit: Unit::Confirmed {
                    agent,
                    reply: reply_index,
                },
                orig: (s.orig_start, s.orig_end),
                triggers: start..self.found.len(),
                first_person: false,
                cues,
                resolves: false,
                caller: true,
            }));
            i = j;
        }
    }

    /// Reads the sentences of one text into clauses.
    fn read(&mut self, text: &str, unit: Unit, caller: bool) {
        self.toks.fill(text);
        let lang = collect(
            self.rules,
            &self.toks,
            &mut self.paths,
            &mut self.hits,
            FOR_TEXT,
        );
        let mut i = 0;
        for (si, s) in self.toks.sents.iter().enumerate() {
            let mut j = i;
            while j < self.hits.len() && self.hits[j].0 == si {
                j += 1;
            }
            let start = self.found.len();
            let reading = self.sentence.resolve(
                self.rules,
                &self.toks,
                &self.hits[i..j],
                lang,
                Mode::Statement,
                caller,
                s.end,
                &mut self.found,
            );
            if caller
                && self.hits[i..j].iter().any(|(_, h)| {
                    self.rules.patterns[h.pattern as usize].role
                        == Role::Dialogue(Dialogue::ThirdParty)
                        && self.rules.patterns[h.pattern as usize].lang & lang != 0
                })
            {
                self.third_party = true;
            }
            self.entries.push(Entry::Clause(Clause {
                unit,
                orig: (s.orig_start, s.orig_end),
                triggers: start..self.found.len(),
                first_person: reading.first_person,
                cues: reading.cues,
                resolves: reading.resolves,
                caller,
            }));
            i = j;
        }
    }

    /// The discourse step: the most severe trigger that nothing in its sentence, its story or
    /// a later "it is over" rules out (ties: the first).
    pub(crate) fn finish(&mut self, call: &CallText) -> Option<Finding> {
        let mut frame = 0u16;
        let mut frame_age = 0u8;
        let mut pending: Vec<usize> = Vec::new();
        let mut active: Vec<(usize, Category, bool)> = Vec::new();
        // The agent's turns since the story began, and whether one spoke to the client:
        // checked only when a sentence would take the story over (rare), not at every turn.
        let mut turns: Vec<(usize, Option<bool>)> = Vec::new();
        for ci in 0..self.entries.len() {
            let c = match &self.entries[ci] {
                &Entry::Turn { agent, addresses } => {
                    // A story goes on through the agent's "oh dear", not past "and you?".
                    if frame != 0 {
                        turns.push((agent, addresses));
                    }
                    pending.clear();
                    continue;
                }
                Entry::Text => {
                    frame = 0;
                    turns.clear();
                    pending.clear();
                    continue;
                }
                Entry::Clause(c) => c,
            };
            let c: &Clause = c;
            if frame != 0
                && c.caller
                && !c.first_person
                && !c.triggers.is_empty()
                && !turns.is_empty()
            {
                let rules = self.rules;
                if turns.iter().any(|&(agent, a)| {
                    a.unwrap_or_else(|| rules.speaks_to_client(call.transcript[agent].message))
                }) {
                    frame = 0;
                }
                turns.clear();
            }
            let inherit = if c.caller && !c.first_person {
                frame
            } else {
                0
            };
            let mut any = false;
            for &(category, own) in &self.found[c.triggers.clone()] {
                let mut flags = own | inherit;
                // A death wish is said in the conditional ("it would be easier if I didn't
                // wake up"): for self-harm an "if" rules nothing out.
                if category == Category::SelfHarm {
                    flags &= !Kind::Hypothetical.bit();
                }
                // Stroke signs that pass are a TIA: "ring 112 även om symtomen går över".
                if category == Category::StrokeSigns {
                    flags &= !Kind::Resolved.bit();
                }
                let elsewhere = flags & Kind::Other.bit() != 0
                    && flags & Kind::OtherElsewhere.bit() != 0
                    && flags & Kind::OtherPresent.bit() == 0
                    && !(self.third_party && c.caller);
                if flags & RULE_OUT != 0 || elsewhere {
                    continue;
                }
                any = true;
                pending.push(active.len());
                active.push((ci, category, true));
            }
            if c.resolves && !any {
                for p in pending.drain(..) {
                    active[p].2 = active[p].1 == Category::StrokeSigns;
                }
            }
            // A story about someone else: its cues add up over its sentences; it ends with a
            // sentence about the speaker (or in the present) that adds none, or after a few
            // sentences that add none.
            let cues = c.cues & FRAME;
            if cues != 0 {
                frame |= cues;
                frame_age = 0;
            } else if c.first_person {
                frame = 0;
            } else {
                frame_age = frame_age.saturating_add(1);
                if frame_age > FRAME_SENTENCES {
                    frame = 0;
                }
            }
            if frame == 0 {
                turns.clear();
            }
        }
        let &(ci, category, _) = active.iter().filter(|a| a.2).min_by_key(|a| (a.1, a.0))?;
        let Entry::Clause(c) = &self.entries[ci] else {
            unreachable!("active entries are clauses")
        };
        let sentence = |text: &str| {
            text.get(c.orig.0..c.orig.1)
                .unwrap_or(text)
                .trim()
                .to_owned()
        };
        let (evidence, source) = match c.unit {
            Unit::Line(i) => (sentence(call.transcript[i].message), Source::CallerLine(i)),
            Unit::Request(i) => (sentence(call.requests[i]), Source::Request(i)),
            Unit::Summary => (sentence(call.summary.unwrap_or_default()), Source::Summary),
            Unit::Confirmed { agent, reply } => (
                format!(
                    "{} — {}",
                    sentence(call.transcript[agent].message),
                    call.transcript[reply].message.trim()
                ),
                Source::CallerLine(reply),
            ),
        };
        Some(Finding {
            level: category.level(),
            category,
            evidence,
            source,
        })
    }

    /// The first agent line that tells the client help is coming now, as (line, sentence):
    /// a statement with a dispatch phrase and no negation or "if" in it ("Jag skickar hjälp
    /// direkt", not "Om du ramlar skickar vi hjälp" nor "Behöver jag skicka hjälp?").
    pub(crate) fn dispatched(&mut self, call: &CallText) -> Option<(usize, String)> {
        let rules = self.rules;
        for (index, line) in call.transcript.iter().enumerate() {
            if line.by != Speaker::Agent {
                continue;
            }
            self.toks.fill(line.message);
            let lang = collect(
                rules,
                &self.toks,
                &mut self.paths,
                &mut self.hits,
                FOR_AGENT,
            );
            let mut i = 0;
            for si in 0..self.toks.sents.len() {
                let mut j = i;
                while j < self.hits.len() && self.hits[j].0 == si {
                    j += 1;
                }
                let hits = &self.hits[i..j];
                i = j;
                let role = |h: &Hit| &rules.patterns[h.pattern as usize];
                let promises = hits.iter().any(|(_, h)| {
                    role(h).role == Role::Dialogue(Dialogue::Dispatch) && role(h).lang & lang != 0
                });
                let hedged = hits.iter().any(|(_, h)| {
                    matches!(
                        role(h).role,
                        Role::Modifier {
                            kind: Kind::Negated | Kind::Hypothetical,
                            ..
                        }
                    )
                });
                if promises && !hedged && !self.is_closed_question(si, hits) {
                    let s = self.toks.sents[si];
                    let sentence = line
                        .message
                        .get(s.orig_start..s.orig_end)
                        .unwrap_or(line.message)
                        .trim();
                    return Some((index, sentence.to_owned()));
                }
            }
        }
        None
    }

    /// Whether sentence `si` of `self.toks` is a yes/no question: it ends with "?" or starts
    /// with a verb that asks one, and does not start with a question word.
    fn is_closed_question(&self, si: usize, hits: &[(usize, Hit)]) -> bool {
        let s = self.toks.sents[si];
        let (mut open, mut closed) = (false, false);
        for (_, h) in hits {
            if h.start == s.start {
                match self.rules.patterns[h.pattern as usize].role {
                    Role::Dialogue(Dialogue::OpenQuestion) => open = true,
                    Role::Dialogue(Dialogue::ClosedQuestion) => closed = true,
                    _ => {}
                }
            }
        }
        !open && (s.question || closed)
    }

    /// Reads a caller's reply of at most `MAX_REPLY_WORDS` words by its first answer word
    /// (within the first three): `Some(true)` for a yes or an unsure word with nothing that
    /// takes it back, `Some(false)` for a no, `None` otherwise.
    fn short_answer(&mut self, reply: &str) -> Option<bool> {
        self.reply.fill(reply);
        if self.reply.word_count() > MAX_REPLY_WORDS {
            return None;
        }
        let mut hits = std::mem::take(&mut self.hits);
        collect(
            self.rules,
            &self.reply,
            &mut self.paths,
            &mut hits,
            FOR_REPLY,
        );
        let mut answer: Option<(usize, usize, Dialogue)> = None;
        let mut takes_back = false;
        for (_, h) in &hits {
            match self.rules.patterns[h.pattern as usize].role {
                Role::Dialogue(kind @ (Dialogue::Affirm | Dialogue::Deny | Dialogue::Unsure)) => {
                    let better = match answer {
                        None => true,
                        Some((start, len, _)) => {
                            h.start < start || (h.start == start && h.end - h.start > len)
                        }
                    };
                    if better {
                        answer = Some((h.start, h.end - h.start, kind));
                    }
                }
                Role::Modifier { kind, .. } if kind.bit() & REPLY_TAKES_BACK != 0 => {
                    let pseudo = hits.iter().any(|(_, p)| {
                        self.rules.patterns[p.pattern as usize].role == Role::Pseudo
                            && p.overlaps_literally(h)
                    });
                    takes_back |= !pseudo;
                }
                _ => {}
            }
        }
        self.hits = hits;
        let first_words = self.reply.toks.len().min(3);
        match answer {
            Some((start, _, Dialogue::Affirm | Dialogue::Unsure)) if start < first_words => {
                (!takes_back).then_some(true)
            }
            Some((start, _, Dialogue::Deny)) if start < first_words => Some(false),
            _ => None,
        }
    }
}

/// The first sentence of a reply: up to its first ".", "!" or "?" that is not part of "..."
/// (a pause), or the whole reply.
fn first_sentence(reply: &str) -> &str {
    let b = reply.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if matches!(c, b'.' | b'!' | b'?') {
            let dots = c == b'.' && (b.get(i + 1) == Some(&b'.') || (i > 0 && b[i - 1] == b'.'));
            if !dots && i + 1 < b.len() {
                return &reply[..=i];
            }
        }
    }
    reply
}

/// Finds every rule phrase in `toks` (hits in sentence order) and returns the text's language
/// bits: the language with more marker words, or both on a tie.
fn collect(
    rules: &Rules,
    toks: &Tokens,
    paths: &mut Paths,
    hits: &mut Vec<(usize, Hit)>,
    reading: u8,
) -> u8 {
    hits.clear();
    let lang = paths.fill(rules, toks);
    for (si, s) in toks.sents.iter().enumerate() {
        paths.enter_sentence(rules, s.start..s.end);
        let paths = &*paths;
        for i in s.start..s.end {
            let node = rules.candidates(paths, i, |id| {
                let p = &rules.patterns[id as usize];
                if p.lang & lang == 0 || p.used_for & reading == 0 {
                    return;
                }
                if let Some(h) = rules.match_at(id, toks, paths, s.start, s.end, i) {
                    hits.push((si, h));
                }
            });
            // Speech-to-text splits words ("ambu lans"): a one-word trigger across two tokens.
            if reading == FOR_REPLY {
                continue;
            }
            if let Some(node) =
                node.filter(|_| i + 1 < s.end && !toks.is_comma(i) && !toks.is_comma(i + 1))
            {
                rules.joined(node, toks.word(i + 1), |id| {
                    if rules.patterns[id as usize].lang & lang != 0 {
                        hits.push((
                            si,
                            Hit {
                                pattern: id,
                                start: i,
                                end: i + 2,
                                literal: 0b11,
                            },
                        ));
                    }
                });
            }
        }
    }
    lang
}

impl Sentence {
    /// Applies one sentence's modifiers to its triggers; pushes every trigger that survives
    /// pseudo phrases and overlaps, with the kinds that reach it, to `found`.
    #[allow(clippy::too_many_arguments)]
    fn resolve(
        &mut self,
        rules: &Rules,
        toks: &Tokens,
        hits: &[(usize, Hit)],
        lang: u8,
        mode: Mode,
        caller: bool,
        sentence_end: usize,
        found: &mut Vec<(Category, u16)>,
    ) -> Reading {
        self.triggers.clear();
        self.modifiers.clear();
        self.terminators.clear();
        self.pseudo.clear();
        self.subjects.clear();
        let mut first_person = false;
        for (_, h) in hits {
            let p = &rules.patterns[h.pattern as usize];
            if p.lang & lang == 0 {
                continue;
            }
            match p.role {
                Role::Trigger(_) => self.triggers.push(*h),
                Role::Modifier { kind, dir, window } => {
                    self.modifiers.push((*h, kind, dir, window))
                }
                Role::Terminator(_) => self.terminators.push(*h),
                Role::Pseudo => self.pseudo.push(*h),
                Role::Dialogue(Dialogue::Present) => first_person = true,
                Role::Dialogue(Dialogue::FirstPerson | Dialogue::Client) => {
                    first_person |= p.role == Role::Dialogue(Dialogue::FirstPerson);
                    self.subjects.push((h.start, true));
                }
                // In a caller's words "she" is someone else; in the summary she is the client.
                Role::Dialogue(Dialogue::ThirdPerson) if caller => {
                    self.modifiers
                        .push((*h, Kind::Other, Direction::Both, PRONOUN_WINDOW));
                    self.subjects.push((h.start, false));
                }
                Role::Dialogue(Dialogue::ThirdPerson) => self.subjects.push((h.start, true)),
                Role::Dialogue(_) => {}
            }
        }
        // A pseudo phrase removes what it overlaps, unless that holds all of it (the trigger
        // "did not know where she was" keeps the words of the pseudo "not know"; a pseudo with
        // context outside its brackets reaches beyond its words, so it removes what it overlaps).
        let pseudo = &self.pseudo;
        let not_pseudo = |h: &Hit| {
            !pseudo.iter().any(|p| {
                p.overlaps_literally(h)
                    && (rules.patterns[p.pattern as usize].bracketed || !p.within_literally(h))
            })
        };
        self.triggers.retain(not_pseudo);
        self.modifiers.retain(|m| not_pseudo(&m.0));
        self.terminators.retain(not_pseudo);
        let cues = self.modifiers.iter().fold(0, |c, m| c | m.1.bit());
        // Overlapping triggers: the longest wins, then the more severe.
        let category = |h: &Hit| match rules.patterns[h.pattern as usize].role {
            Role::Trigger(c) => c,
            _ => unreachable!("only triggers here"),
        };
        self.triggers
            .sort_by_key(|h| (std::cmp::Reverse(h.end - h.start), category(h), h.start));
        let mut k = 0;
        while k < self.triggers.len() {
            let (kept, rest) = self.triggers.split_at(k);
            if kept.iter().any(|t| t.overlaps(&rest[0])) {
                self.triggers.remove(k);
            } else {
                k += 1;
            }
        }
        // A modifier within a trigger's words is part of it ("kan inte andas"); one that
        // reaches beyond them ("rädd för att" around "rädd") still modifies.
        let triggers = &self.triggers;
        self.modifiers
            .retain(|m| !triggers.iter().any(|t| m.0.within_literally(t)));

        self.flags.clear();
        self.flags.resize(self.triggers.len(), 0);
        let mut resolves = false;
        for &(m, kind, dir, window) in &self.modifiers {
            let reaches = |t: &Hit| {
                in_scope(
                    rules,
                    toks,
                    &m,
                    t,
                    (kind, dir, window),
                    sentence_end,
                    &self.terminators,
                )
            };
            if kind == Kind::Resolved {
                // "it has passed" speaks of the nearest trigger before it only.
                let nearest = (0..self.triggers.len())
                    .filter(|&t| reaches(&self.triggers[t]))
                    .min_by_key(|&t| distance(&m, &self.triggers[t]));
                match nearest {
                    Some(t) => self.flags[t] |= kind.bit(),
                    None => resolves = true,
                }
                continue;
            }
            for (t, trigger) in self.triggers.iter().enumerate() {
                if reaches(trigger) {
                    self.flags[t] |= kind.bit();
                }
            }
        }
        for m in &self.modifiers {
            if m.1 == Kind::Other {
                self.subjects.push((m.0.start, false));
            }
        }
        for (t, trigger) in self.triggers.iter().enumerate() {
            let mut flags = self.flags[t];
            if mode == Mode::Question {
                flags &= !Kind::Negated.bit();
            }
            // "Jag har ramlat, och min dotter bor i Göteborg": the nearest subject before the
            // trigger is the speaker (the client), so someone else's whereabouts do not count.
            let nearest = self
                .subjects
                .iter()
                .filter(|s| s.0 < trigger.start)
                .max_by_key(|s| s.0);
            if nearest.is_some_and(|s| s.1) {
                flags &= !(Kind::Other.bit() | Kind::OtherElsewhere.bit());
            }
            found.push((category(trigger), flags));
        }
        Reading {
            first_person,
            cues,
            resolves,
        }
    }
}

/// Words between a modifier and a trigger (0 when they touch or nest).
fn distance(m: &Hit, t: &Hit) -> usize {
    if m.end <= t.start {
        t.start - m.end
    } else {
        m.start.saturating_sub(t.end)
    }
}

/// Whether trigger `t` lies in the scope of modifier `m` (its kind, direction and window).
fn in_scope(
    rules: &Rules,
    toks: &Tokens,
    m: &Hit,
    t: &Hit,
    (kind, dir, window): (Kind, Direction, u16),
    sentence_end: usize,
    terms: &[Hit],
) -> bool {
    // Within a trigger's gap ("bröstet gör inte ont"), or an "it is over" around its trigger
    // ("slutat blöda"): it applies.
    if (m.start >= t.start && m.end <= t.end)
        || (kind == Kind::Resolved && t.start >= m.start && t.end <= m.end)
    {
        return true;
    }
    let (from, to) = if m.end <= t.start && dir != Direction::Backward {
        (m.end, t.start)
    } else if t.end <= m.start && dir != Direction::Forward {
        (t.end, m.start)
    } else {
        return false;
    };
    let words = (from..to).filter(|&i| !toks.is_comma(i)).count();
    if words > usize::from(window) {
        return false;
    }
    // A backward scope stops at a comma ("ont i bröstet, inte i magen"), except that an "it is
    // over" speaks of what came before it, and so does a time said as an afterthought at the
    // end of the sentence ("set the kitchen on fire once, years ago"), and so does a joke
    // marker at its end ("I'll throw myself out the window, ha!").
    let backward = from == t.end;
    let afterthought = matches!(kind, Kind::Historical | Kind::Figurative)
        && m.start > 0
        && toks.is_comma(m.start - 1)
        && m.end + 1 >= sentence_end;
    if backward && kind != Kind::Resolved && !afterthought && (from..to).any(|i| toks.is_comma(i)) {
        return false;
    }
    !terms.iter().any(|x| {
        let Role::Terminator(mask) = rules.patterns[x.pattern as usize].role else {
            return false;
        };
        mask & kind.bit() != 0 && x.start >= from && x.start < to
    })
}
