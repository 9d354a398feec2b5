//! Owns the call-wide signals read beside the triggers: the agent's promise that help is
//! coming, a caller's sign that what they raise is happening now and badly, and the means of
//! a suicide at hand.

use super::*;

/// Whether any of `hits` is a modifier of one of `kinds` ("inte", "if", "last year").
fn hedged(rules: &Rules, hits: &[(usize, Hit)], kinds: &[Kind]) -> bool {
    hits.iter().any(|(_, h)| {
        matches!(rules.patterns[h.pattern as usize].role,
            Role::Modifier { kind, .. } if kinds.contains(&kind))
    })
}

/// Whether any of `hits` is the dialogue word `what` in language `lang`, not taken back by a
/// pseudo phrase over it as a trigger would be ("Ring Gun-Britt" names no gun).
fn says(rules: &Rules, hits: &[(usize, Hit)], what: Dialogue, lang: u8) -> bool {
    let pseudo = |h: &Hit| {
        hits.iter().any(|(_, q)| {
            let p = &rules.patterns[q.pattern as usize];
            p.role == Role::Pseudo && p.lang & lang != 0 && q.takes_back(rules, h)
        })
    };
    hits.iter().any(|(_, h)| {
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
        let someone_else = cues & (Kind::Other.bit() | Kind::OtherElsewhere.bit()) != 0;
        says(self.rules, hits, what, lang)
            && !someone_else
            && !hedged(
                self.rules,
                hits,
                &[Kind::Negated, Kind::Hypothetical, Kind::Historical],
            )
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
                let promises = says(rules, hits, Dialogue::Dispatch, lang);
                let hedged = hedged(rules, hits, &[Kind::Negated, Kind::Hypothetical]);
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
}
