//! Owns what `explain` shows of a reading: every rule phrase found, with the file and line it
//! is written on, and each clause with the modifier kinds that reach its triggers.

use super::*;

impl<'r> Analyser<'r> {
    /// An analyser that also records every rule phrase it finds (for `explain`).
    pub(crate) fn traced(rules: &'r Rules) -> Self {
        Analyser {
            trace: Some(String::new()),
            ..Analyser::new(rules)
        }
    }

    /// Records the hits of the text last collected, when tracing.
    pub(super) fn record_hits(&mut self, what: &str) {
        let Some(trace) = self.trace.as_mut() else {
            return;
        };
        trace.push_str(&format!("{what}\n"));
        for (si, h) in &self.hits {
            let p = &self.rules.patterns[h.pattern as usize];
            let words: Vec<&str> = (h.start..h.end).map(|i| self.toks.word_str(i)).collect();
            trace.push_str(&format!(
                "  s{si} {:?} {} \"{}\"\n",
                p.role,
                self.rules.origin(h.pattern),
                words.join(" ")
            ));
        }
    }

    /// What the analyser holds so far, one line per clause (for `explain`).
    pub(crate) fn dump(&self) -> String {
        let mut out = self.trace.clone().unwrap_or_default();
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
        out.push_str(&format!(
            "signals: acute={} means={} thinner={} bleeding={}\n",
            self.acute, self.means, self.thinner, self.bleeding
        ));
        out
    }
}
