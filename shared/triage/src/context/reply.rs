//! Owns the reading of a caller's short reply to an agent's yes/no question: whether the
//! agent asked one, and whether the caller said yes.

use super::*;

impl Analyser<'_> {
    /// Whether sentence `si` of `self.toks` is a yes/no question: it ends with "?" or starts
    /// with a verb that asks one, and does not start with a question word.
    pub(super) fn is_closed_question(&self, si: usize, hits: &[(usize, Hit)]) -> bool {
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
    pub(super) fn short_answer(&mut self, reply: &str) -> Option<bool> {
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
pub(super) fn first_sentence(reply: &str) -> &str {
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
