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
use crate::{CallText, Category, Finding, Level, Source, Speaker};

mod explain;
mod reply;
mod sentence;
mod signals;

use reply::first_sentence;
use sentence::{Subject, collect};

/// A caller reply longer than this many words is not a short answer (it is read on its own).
const MAX_REPLY_WORDS: usize = 8;

/// Nor is one longer than this many bytes ("Ja, det har jag faktiskt, sedan i morse.").
const MAX_REPLY_CHARS: usize = 48;

/// A caller's question of at most this many words is an echo of the agent's words.
const ECHO_WORDS: usize = 3;

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

/// Kinds a story carries into the sentences after it: who (someone else, an animal), where,
/// when.
const FRAME: u16 = Kind::Other.bit()
    | Kind::OtherElsewhere.bit()
    | Kind::OtherPresent.bit()
    | Kind::NotPerson.bit()
    | Kind::Historical.bit();

/// A trigger's flag, beside the modifier kinds: the nearest subject before it is someone
/// else ("I think he's had a stroke"), so a story about that someone goes on in it although
/// the sentence has an "I".
const SOMEONE_ELSE: u16 = 1 << 15;

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
    /// A counted text said that something is happening now and badly (`Dialogue::Acute`,
    /// not negated, not in the past, not an "if").
    acute: bool,
    /// A counted text said that the means of a suicide are at hand (`Dialogue::Means`, read
    /// as `acute` is).
    means: bool,
    /// A counted text said the client takes a blood thinner (`Dialogue::Thinner`).
    thinner: bool,
    /// A counted text said something bleeds now (`Dialogue::Bleeding`).
    bleeding: bool,
    /// For `explain`: every rule phrase found, where it is written and the words it matched.
    trace: Option<String>,
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
    /// "she"), someone else ("min syster", "he") or an animal or a plant, by token.
    subjects: Vec<(usize, Subject)>,
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
    /// Per trigger, whether its own words hold a negation (an inability).
    self_negated: Vec<bool>,
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
            acute: false,
            means: false,
            thinner: false,
            bleeding: false,
            trace: None,
        }
    }

    /// Forgets the previous call (the buffers stay, so a thread's next call allocates little).
    pub(crate) fn reset(&mut self) {
        self.found.clear();
        self.entries.clear();
        self.third_party = false;
        self.acute = false;
        self.means = false;
        self.thinner = false;
        self.bleeding = false;
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
        let lang = self.scan(text, FOR_AGENT);
        let addresses = self.addresses(lang);
        self.record_hits(&format!("agent {agent}"));
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

    /// Tokenises `text` and finds the rule phrases that the reading `wanted` (`FOR_TEXT`,
    /// `FOR_AGENT`) uses; the text's language.
    fn scan(&mut self, text: &str, wanted: u8) -> u8 {
        self.toks.fill(text);
        collect(
            self.rules,
            &self.toks,
            &mut self.paths,
            &mut self.hits,
            wanted,
        )
    }

    /// Reads the sentences of one text into clauses.
    fn read(&mut self, text: &str, unit: Unit, caller: bool) {
        let lang = self.scan(text, FOR_TEXT);
        self.record_hits(&format!("{unit:?}"));
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
            // A caller's question of a few words ("Chest pain?", "Ramlat?", "An ambulance?")
            // repeats what the agent said to make sure of it: it reports nothing.
            if caller && s.question && s.end - s.start <= ECHO_WORDS {
                self.found.truncate(start);
            }
            if caller
                && self.hits[i..j].iter().any(|(_, h)| {
                    self.rules.patterns[h.pattern as usize].role
                        == Role::Dialogue(Dialogue::ThirdParty)
                        && self.rules.patterns[h.pattern as usize].lang & lang != 0
                })
            {
                self.third_party = true;
            }
            let hits = &self.hits[i..j];
            self.acute = self.acute || self.says_now(hits, lang, reading.cues, Dialogue::Acute);
            self.means = self.means || self.says_now(hits, lang, reading.cues, Dialogue::Means);
            self.thinner =
                self.thinner || self.states(hits, lang, reading.cues, Dialogue::Thinner, s.end);
            self.bleeding =
                self.bleeding || self.states(hits, lang, reading.cues, Dialogue::Bleeding, s.end);
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
                    // "Is there any smoke now?": the caller's answer may say the fire is out,
                    // which the caller can see; the same "I'm fine now" after a fall is the
                    // downplaying a person has to hear, so only a fire is carried to the answer.
                    let asks = call.transcript[agent].message.trim_end().ends_with('?');
                    pending.retain(|&p| asks && active[p].1 == Category::FireOrSmoke);
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
            let mut any = false;
            for &(category, own) in &self.found[c.triggers.clone()] {
                let inherit = if !c.caller {
                    0
                } else if !c.first_person && own & SOMEONE_ELSE != 0 {
                    frame
                } else if !c.first_person {
                    // An animal goes on only in a sentence that names someone as its subject
                    // ("Vår hund föll ihop. Nu blöder han"), not in a bare one ("Walked the
                    // dog. Chest pain.").
                    frame & !Kind::NotPerson.bit()
                } else if own & SOMEONE_ELSE != 0 {
                    // "I think he's had a stroke": who the story is about and where they are,
                    // not when; a place the sentence says itself stands.
                    let place = Kind::OtherElsewhere.bit() | Kind::OtherPresent.bit();
                    let who = frame & (Kind::Other.bit() | Kind::NotPerson.bit() | place);
                    if own & place != 0 { who & !place } else { who }
                } else {
                    0
                };
                let flags = (own | inherit) & !category.kinds_that_rule_nothing_out();
                // Someone else somewhere else: named in reach ("my brother in Dublin"), or the
                // subject of the trigger's clause ("His brother fell and is in hospital with a
                // broken leg").
                let elsewhere = flags & (Kind::Other.bit() | SOMEONE_ELSE) != 0
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
        // Each finding is escalated before the most severe is chosen, so that a concern that
        // escalates is never hidden behind one that ranks above it and does not.
        let (ci, category) = active
            .iter()
            .filter(|a| a.2)
            .map(|&(ci, category, _)| (ci, self.escalated(category)))
            .min_by_key(|&(ci, category)| (category, ci))?;
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

    /// A finding's category once the call-wide signals are applied. Low mood in a call that
    /// says the means of a suicide are at hand ("the tablets are on the table", "the bridge",
    /// "the letters are written") is a plan: self-harm. Another concern said with a sign that
    /// it is happening now and badly ("out of nowhere", "clammy", "it won't stop") is an
    /// emergency: where a rule must guess, it escalates. Not medication, nor low mood on a
    /// sign alone: "help me" about loneliness or a missed dose is not an emergency. Any
    /// concern in a call that says something bleeds now and that the client takes a blood
    /// thinner is urgent bleeding.
    fn escalated(&self, category: Category) -> Category {
        match category {
            Category::LowMood if self.means => Category::SelfHarm,
            // NHS "Nosebleed": go to A&E for one on a blood thinner such as warfarin.
            _ if category.level() == Level::Concern && self.thinner && self.bleeding => {
                Category::Bleeding
            }
            Category::LowMood | Category::Medication => category,
            _ if category.level() == Level::Concern && self.acute => Category::OtherEmergency,
            _ => category,
        }
    }
}
