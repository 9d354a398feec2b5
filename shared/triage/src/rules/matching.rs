//! Owns matching one pattern at a token of a sentence (its words after the anchor forwards,
//! the words before it backwards) and the hit it makes.

use super::*;

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

    /// Whether this pseudo hit takes back `other`: it overlaps it, unless `other` holds all of
    /// it and more (the trigger "did not know where she was" keeps the words of the pseudo "not
    /// know"; the pseudo "ambulansfaktura" takes back the same word as a trigger); a pseudo
    /// with context outside its brackets reaches beyond its words, so it takes back whatever
    /// it overlaps.
    pub(crate) fn takes_back(&self, rules: &Rules, other: &Hit) -> bool {
        self.overlaps_literally(other)
            && (rules.patterns[self.pattern as usize].bracketed
                || !self.within_literally(other)
                || other.within_literally(self))
    }

    /// Whether the two spans overlap at all.
    pub(crate) fn overlaps(&self, other: &Hit) -> bool {
        self.start < other.end && other.start < self.end
    }
}

impl Rules {
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
