//! Owns the call-wide signals read beside the triggers: the agent's promise that help is
//! coming, a caller's sign that what they raise is happening now and badly, and the means of
//! a suicide at hand.

use super::*;

/// What hedges a signal said of the client: a negation, an "if", a past.
const HEDGES: [Kind; 3] = [Kind::Negated, Kind::Hypothetical, Kind::Historical];

/// The cues of a sentence about someone else, whose signals are not the client's.
const ABOUT_SOMEONE_ELSE: u16 = Kind::Other.bit() | Kind::OtherElsewhere.bit();

/// The modifiers of `hits` of one of `kinds` ("inte", "if", "last year") with their scope,
/// other than those within the words of `own` (the "inte" of "slutar inte" is part of the cue).
fn hedges<'h>(
    rules: &'h Rules,
    hits: &'h [(usize, Hit)],
    kinds: &'h [Kind],
    own: Option<&'h Hit>,
) -> impl Iterator<Item = (&'h Hit, Kind, Direction, u16)> {
    hits.iter().filter_map(
        move |(_, h)| match rules.patterns[h.pattern as usize].role {
            Role::Modifier { kind, dir, window }
                if kinds.contains(&kind) && !own.is_some_and(|own| h.within_literally(own)) =>
            {
                Some((h, kind, dir, window))
            }
            _ => None,
        },
    )
}

/// Whether any of `hits` is a modifier of one of `kinds`, other than one within `own`.
fn hedged(rules: &Rules, hits: &[(usize, Hit)], kinds: &[Kind], own: Option<&Hit>) -> bool {
    hedges(rules, hits, kinds, own).next().is_some()
}

/// The hits of `hits` that are the dialogue word `what` in language `lang`, not taken back by
/// a pseudo phrase over them as a trigger would be ("Ring Gun-Britt" names no gun).
fn saying<'h>(
    rules: &'h Rules,
    hits: &'h [(usize, Hit)],
    what: Dialogue,
    lang: u8,
) -> impl Iterator<Item = &'h Hit> {
    let pseudo = move |h: &Hit| {
        hits.iter().any(|(_, q)| {
            let p = &rules.patterns[q.pattern as usize];
            p.role == Role::Pseudo && p.lang & lang != 0 && q.takes_back(rules, h)
        })
    };
    hits.iter().map(|(_, h)| h).filter(move |h| {
        let p = &rules.patterns[h.pattern as usize];
        p.role == Role::Dialogue(what) && p.lang & lang != 0 && !pseudo(h)
    })
}

impl Analyser<'_> {
    /// Whether a sentence (its `hits`, language and modifier kinds `cues`) says the signal
    /// `what` (acuity, means at hand) of the client now: not negated, past or hypothetical,
    /// and not about someone else ("my sister is in hospital").
    pub(super) fn says_now(
        &self,
        hits: &[(usize, Hit)],
        lang: u8,
        cues: u16,
        what: Dialogue,
    ) -> bool {
        let someone_else = cues & ABOUT_SOMEONE_ELSE != 0;
        !someone_else
            && saying(self.rules, hits, what, lang)
                .any(|own| !hedged(self.rules, hits, &HEDGES, Some(own)))
    }

    /// Whether a sentence says the standing fact `what` (a blood thinner, a bleeding) of the
    /// client: as `says_now`, but a negation, an "if" or a past hedges it only where its scope
    /// reaches it, since a long spoken sentence holds other clauses ("since before Countdown,
    /// ... I'm on the warfarin").
    pub(super) fn states(
        &self,
        hits: &[(usize, Hit)],
        lang: u8,
        cues: u16,
        what: Dialogue,
        sentence_end: usize,
    ) -> bool {
        let rules = self.rules;
        let someone_else = cues & ABOUT_SOMEONE_ELSE != 0;
        if someone_else || saying(rules, hits, what, lang).next().is_none() {
            return false;
        }
        let terminators: Vec<Hit> = hits
            .iter()
            .filter(|(_, h)| matches!(rules.patterns[h.pattern as usize].role, Role::Terminator(_)))
            .map(|(_, h)| *h)
            .collect();
        saying(rules, hits, what, lang).any(|own| {
            !hedges(rules, hits, &HEDGES, Some(own)).any(|(m, kind, dir, window)| {
                sentence::in_scope(
                    rules,
                    &self.toks,
                    m,
                    own,
                    (kind, dir, window),
                    sentence_end,
                    (&terminators, &[]),
                )
            })
        })
    }

    /// Sentence `si` of the text last read, `message`, as it is written.
    fn sentence_text(&self, message: &str, si: usize) -> String {
        let s = self.toks.sents[si];
        message
            .get(s.orig_start..s.orig_end)
            .unwrap_or(message)
            .trim()
            .to_owned()
    }

    /// The agent line that checks on a caller who no longer answers: the call ends with the
    /// agent's lines after the caller's last one, and one of them asks whether the caller is
    /// still there ("Shirley? Are you still there?", "Hör du mig?"), as (line, sentence).
    pub(crate) fn went_silent(&mut self, call: &CallText) -> Option<(usize, String)> {
        let rules = self.rules;
        let last_caller = call
            .transcript
            .iter()
            .rposition(|l| l.by == Speaker::Caller)?;
        for (index, line) in call.transcript.iter().enumerate().skip(last_caller + 1) {
            if line.by != Speaker::Agent {
                continue;
            }
            let lang = self.scan(line.message, FOR_AGENT);
            if let Some(&(si, _)) = self.hits.iter().find(|(_, h)| {
                let p = &rules.patterns[h.pattern as usize];
                p.role == Role::Dialogue(Dialogue::PresenceCheck) && p.lang & lang != 0
            }) {
                return Some((index, self.sentence_text(line.message, si)));
            }
        }
        None
    }

    /// The first agent line that tells the client help is coming now, as (line, sentence):
    /// a statement with a dispatch phrase, no "if" and no negation of it ("Jag skickar hjälp
    /// direkt", "Oroa dig inte, hjälpen är på väg"; not "Om du ramlar skickar vi hjälp", "Jag
    /// skickar inte hjälp" nor "Behöver jag skicka hjälp?").
    pub(crate) fn dispatched(&mut self, call: &CallText) -> Option<(usize, String)> {
        let rules = self.rules;
        for (index, line) in call.transcript.iter().enumerate() {
            if line.by != Speaker::Agent {
                continue;
            }
            let lang = self.scan(line.message, FOR_AGENT);
            let mut i = 0;
            for si in 0..self.toks.sents.len() {
                let mut j = i;
                while j < self.hits.len() && self.hits[j].0 == si {
                    j += 1;
                }
                let hits = &self.hits[i..j];
                i = j;
                // An "if" anywhere in the sentence hedges the promise ("Om du ramlar, skickar
                // vi hjälp"); a negation only in its own clause, before it or inside it ("I
                // won't send anyone", not "Don't worry, help is on the way").
                let toks = &self.toks;
                let promises = !hedged(rules, hits, &[Kind::Hypothetical], None)
                    && saying(rules, hits, Dialogue::Dispatch, lang).any(|d| {
                        !hedges(rules, hits, &[Kind::Negated], Some(d)).any(|(m, ..)| {
                            m.start < d.end && !(m.end..d.start).any(|t| toks.is_comma(t))
                        })
                    });
                if promises && !self.is_closed_question(si, hits) {
                    return Some((index, self.sentence_text(line.message, si)));
                }
            }
        }
        None
    }
}
