//! Owns the ConText step of one sentence: which modifiers reach which triggers, within their
//! direction, window and terminators, and which triggers survive pseudo phrases and overlaps.

use crate::Category;
use crate::normalise::Tokens;
use crate::rules::{Dialogue, Direction, FOR_REPLY, Hit, Kind, Paths, Role, Rules};

use super::{Mode, PRONOUN_WINDOW, Reading, SOMEONE_ELSE, Sentence};

/// Who a sentence's subject is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Subject {
    /// The speaker, or in the summary the client.
    Speaker,
    /// Someone else named ("min man", "Mrs Patel").
    Person,
    /// Someone else as a pronoun ("he", "hon"): a pet may be "he" too.
    Pronoun,
    /// An animal or a plant.
    Thing,
}

impl Sentence {
    /// Applies one sentence's modifiers to its triggers; pushes every trigger that survives
    /// pseudo phrases and overlaps, with the kinds that reach it, to `found`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolve(
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
                    self.subjects.push((h.start, Subject::Speaker));
                }
                // In a caller's words "she" is someone else; in the summary she is the client.
                Role::Dialogue(Dialogue::ThirdPerson) if caller => {
                    self.modifiers
                        .push((*h, Kind::Other, Direction::Both, PRONOUN_WINDOW));
                    self.subjects.push((h.start, Subject::Pronoun));
                }
                Role::Dialogue(Dialogue::ThirdPerson) => {
                    self.subjects.push((h.start, Subject::Speaker))
                }
                Role::Dialogue(_) => {}
            }
        }
        let pseudo = &self.pseudo;
        let triggers = &self.triggers;
        // A pseudo phrase that takes back a trigger speaks of that trigger: a modifier or
        // terminator in its other words still counts ("an ambulance if she falls": the "if"
        // reaches the fall). One that takes back no trigger ("no one") takes back all it holds.
        let not_pseudo_cue = |h: &Hit| {
            !pseudo.iter().any(|p| {
                p.takes_back(rules, h) && {
                    let mut taken = triggers
                        .iter()
                        .filter(|t| p.takes_back(rules, t))
                        .peekable();
                    taken.peek().is_none() || taken.any(|t| t.overlaps(h))
                }
            })
        };
        self.modifiers.retain(|m| not_pseudo_cue(&m.0));
        self.terminators.retain(not_pseudo_cue);
        let not_pseudo = |h: &Hit| !pseudo.iter().any(|p| p.takes_back(rules, h));
        self.triggers.retain(not_pseudo);
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
        // A trigger that says its own negation, an inability ("kan inte andas", "får inte
        // luft"), is not negated again by an earlier "inte": in unpunctuated speech that is as
        // likely the clause before ("kan inte anda ordentligt far inte luft"), and a guess
        // escalates.
        self.self_negated.clear();
        self.self_negated.extend(self.triggers.iter().map(|t| {
            self.modifiers
                .iter()
                .any(|m| m.1 == Kind::Negated && m.0.within_literally(t))
        }));
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
                    (&self.terminators, &self.triggers),
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
                if reaches(trigger) && !(kind == Kind::Negated && self.self_negated[t]) {
                    self.flags[t] |= kind.bit();
                }
            }
        }
        // Someone else, or an animal, is a subject too: "I think the dog collapsed" speaks of
        // the dog, "the dog knocked me over and I can't get up" of the speaker.
        for m in &self.modifiers {
            match m.1 {
                Kind::Other => self.subjects.push((m.0.start, Subject::Person)),
                Kind::NotPerson => self.subjects.push((m.0.start, Subject::Thing)),
                _ => {}
            }
        }
        for (t, trigger) in self.triggers.iter().enumerate() {
            let mut flags = self.flags[t];
            if mode == Mode::Question {
                flags &= !Kind::Negated.bit();
            }
            // "Jag har ramlat, och min dotter bor i Göteborg": the nearest subject before the
            // trigger is the speaker (the client), so someone else's whereabouts do not count,
            // nor an animal ("jag snubblade på katten och kommer inte upp").
            // Swedish puts the subject after the verb behind a fronted word ("Nu blöder han"):
            // with none before the trigger, one just after it counts.
            let nearest = self
                .subjects
                .iter()
                .filter(|s| s.0 < trigger.start)
                .max_by_key(|s| s.0)
                .or_else(|| {
                    self.subjects
                        .iter()
                        .filter(|s| s.0 >= trigger.end && s.0 < trigger.end + INVERTED_SUBJECT)
                        .min_by_key(|s| s.0)
                });
            // Someone named as the subject is a person, whatever animal or plant stands near
            // ("Min man snubblade över hunden", "Dad collapsed pruning the roses"); a pronoun
            // may be a pet's.
            match nearest.map(|s| s.1) {
                Some(Subject::Speaker) => {
                    flags &=
                        !(Kind::Other.bit() | Kind::OtherElsewhere.bit() | Kind::NotPerson.bit())
                }
                Some(Subject::Person) => flags = (flags | SOMEONE_ELSE) & !Kind::NotPerson.bit(),
                Some(Subject::Pronoun | Subject::Thing) => flags |= SOMEONE_ELSE,
                None => {}
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

/// The words that join the items of a list, in both languages.
const LIST_WORDS: [&str; 6] = ["or", "and", "nor", "eller", "och", "samt"];

/// The most words of a list item that no trigger covers ("dizziness", "trouble swallowing").
const LIST_ITEM_WORDS: usize = 2;

/// The longest trigger whose gap is read as one clause with it ("bröstet gör inte ont").
const GAP_CLAUSE: usize = 6;

/// How far after a trigger an inverted subject may stand ("blöder han", "ramlade jag").
const INVERTED_SUBJECT: usize = 2;

/// How many words ("what, maybe") may stand between the comma and a time said as an
/// afterthought.
const AFTERTHOUGHT_FILLERS: usize = 2;

/// Words between a modifier and a trigger (0 when they touch or nest).
fn distance(m: &Hit, t: &Hit) -> usize {
    if m.end <= t.start {
        t.start - m.end
    } else {
        m.start.saturating_sub(t.end)
    }
}

/// Whether trigger `t` lies in the scope of modifier `m` (its kind, direction and window), given
/// the sentence's terminators and its other triggers (the items of a list).
pub(super) fn in_scope(
    rules: &Rules,
    toks: &Tokens,
    m: &Hit,
    t: &Hit,
    (kind, dir, window): (Kind, Direction, u16),
    sentence_end: usize,
    (terms, items): (&[Hit], &[Hit]),
) -> bool {
    // Within a trigger's gap ("bröstet gör inte ont"), or around its trigger ("slutat blöda",
    // "worried about falling", "en sommar brann det"): it applies, except to a trigger it
    // starts with ("rädd för att ramla" speaks of the fall, not of the fear).
    // A long gap holds clauses of its own ("went out this morning and hasn't come back, it's
    // freezing"): a modifier in it speaks of its own clause.
    let around = t.start >= m.start && t.end <= m.end;
    let within = m.start >= t.start && m.end <= t.end && t.end - t.start <= GAP_CLAUSE;
    if within || (around && (kind == Kind::Resolved || t.start > m.start)) {
        return true;
    }
    let (from, to) = if m.end <= t.start && dir != Direction::Backward {
        (m.end, t.start)
    } else if t.end <= m.start && dir != Direction::Forward {
        (t.end, m.start)
    } else {
        return false;
    };
    // A list between them is no distance: "No falls, dizziness, chest pain or breathlessness"
    // negates the last as it does the first, "pain, chest pain, breathing, falls all negative"
    // the first as the last. Any other words between ("did not wake up and that she has been
    // counting her pills") count as before.
    let backward = from == t.end;
    // Only a list said with commas, and backward only from the sentence's end ("all
    // negative"): "och"/"and" alone join clauses too ("har ramlat i vardagsrummet och inte
    // kommer upp").
    let listed = (!backward || m.end + 1 >= sentence_end) && is_list(toks, from..to, items);
    let words = if listed {
        0
    } else {
        (from..to).filter(|&i| !toks.is_comma(i)).count()
    };
    if words > usize::from(window) {
        return false;
    }
    // A backward scope stops at a comma ("ont i bröstet, inte i magen"), except that an "it is
    // over" speaks of what came before it, and so does a time said as an afterthought at the
    // end of the sentence ("set the kitchen on fire once, years ago", "that stroke I had,
    // what, maybe six years ago?": at most a filler or two after the comma), and so does a
    // joke marker at its end ("I'll throw myself out the window, ha!").
    // A time set off by commas on both sides is an afterthought too ("I had my heart attack at
    // the Cineplex, ten years ago now, I like to sit by the door").
    let parenthetical = kind == Kind::Historical
        && (m.end..sentence_end)
            .take(AFTERTHOUGHT_FILLERS)
            .any(|i| toks.is_comma(i));
    let afterthought = matches!(kind, Kind::Historical | Kind::Figurative)
        && (m.end + 1 >= sentence_end || parenthetical)
        && (from..m.start)
            .rev()
            .take(AFTERTHOUGHT_FILLERS + 1)
            .any(|i| toks.is_comma(i));
    if backward
        && kind != Kind::Resolved
        && !afterthought
        && !listed
        && (from..to).any(|i| toks.is_comma(i))
    {
        return false;
    }
    // In a question an "if" goes on past "and" to the question mark ("And what if I run out
    // and I'm bleeding or something?" asks about the bleeding too); a comma before a new
    // clause still ends it ("What do I do if I fall, and can you come, I've fallen?").
    let open_if = kind == Kind::Hypothetical && !backward && toks.question_ends_at(sentence_end);
    // A time said first and set off by a comma governs the clause after it ("Last time I went,
    // 2015, I had my heart attack out there"): the comma that starts that clause ends nothing.
    // Not one said after a trigger ("så ledsen sedan Gunnar dog, jag gråter varje dag").
    let fronted = kind == Kind::Historical
        && !backward
        && toks.is_comma(m.end)
        && !items.iter().any(|h| h.end <= m.start);
    !terms.iter().any(|x| {
        let Role::Terminator(mask) = rules.patterns[x.pattern as usize].role else {
            return false;
        };
        mask & kind.bit() != 0
            && x.start >= from
            && x.start < to
            && (!open_if || toks.is_comma(x.start))
            && !(fronted && x.start == m.end)
    })
}

/// Finds every rule phrase in `toks` (hits in sentence order) and returns the text's language
/// bits: the language with more marker words, or both on a tie.
pub(super) fn collect(
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
            if let Some(node) = node.filter(|_| {
                i + 1 < s.end && !toks.is_comma(i) && !toks.is_comma(i + 1) && !toks.is_gap(i + 1)
            }) {
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

/// Whether tokens `range` are the rest of a list said with commas: items of at most two words
/// besides other triggers' words, each ended by a comma or a joining word ("or", "och").
fn is_list(toks: &Tokens, range: std::ops::Range<usize>, items: &[Hit]) -> bool {
    let mut words = 0;
    let mut commas = 0;
    for i in range {
        if toks.is_comma(i) || LIST_WORDS.contains(&toks.word_str(i)) {
            commas += usize::from(toks.is_comma(i));
            words = 0;
        } else if !items.iter().any(|h| h.covers_literally(i)) {
            words += 1;
            if words > LIST_ITEM_WORDS {
                return false;
            }
        }
    }
    commas > 0
}
