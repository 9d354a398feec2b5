//! Owns text normalisation and tokenisation: lowercase, Swedish and other diacritics folded
//! (å/ä -> a, ö -> o, é -> e ...), apostrophes joined ("can't" -> "cant"), other punctuation
//! dropped except sentence ends and commas, and the split into sentences. The same function
//! normalises the phrases of the rule files at load and the call text at run time, so both
//! sides always agree.

/// One token of normalised text: a word, or a comma (kept, since a comma may end a scope).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    /// Start of the token in `Tokens::text`.
    start: u32,
    /// End (exclusive) of the token in `Tokens::text`.
    end: u32,
    /// The original word started with a capital letter (a name, mid-sentence).
    pub(crate) cap: bool,
    /// The original word had a letter only Swedish writes (å, ä, ö): a marker of the text's
    /// language that folding removes.
    pub(crate) swedish: bool,
}

/// One sentence: a range of tokens, whether it ended with a question mark, and where it lies
/// in the original text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sentence {
    /// First token index.
    pub(crate) start: usize,
    /// One past the last token index.
    pub(crate) end: usize,
    /// The sentence ended with `?`.
    pub(crate) question: bool,
    /// Byte range of the sentence in the original text, its end mark included.
    pub(crate) orig_start: usize,
    /// End (exclusive) of that byte range.
    pub(crate) orig_end: usize,
}

/// A normalised text: the folded words one after another, the tokens and the sentences.
/// Reused between calls to avoid allocating per line.
#[derive(Default, Debug)]
pub(crate) struct Tokens {
    /// Folded characters of every token, back to back (UTF-8).
    text: Vec<u8>,
    /// The tokens, in order.
    pub(crate) toks: Vec<Tok>,
    /// The sentences, in order; every token belongs to exactly one.
    pub(crate) sents: Vec<Sentence>,
}

/// Titles written with a point that does not end the sentence.
const TITLES: [&str; 8] = ["mr", "mrs", "ms", "dr", "st", "prof", "fr", "jr"];

/// Spoken forms (folded) and the written word (folded) they stand for; none is an English
/// word, so the map needs no language.
const SPOKEN: [(&str, &str); 7] = [
    ("sej", "sig"),
    ("mej", "mig"),
    ("dej", "dig"),
    ("nat", "nagot"),
    ("nanting", "nagonting"),
    ("nanstans", "nagonstans"),
    ("opp", "upp"),
];

/// The text of the comma token.
pub(crate) const COMMA: &str = ",";

/// The text of the gap token: a transcriber's marker ("[inaudible]", "[ohörbart]") where words
/// are missing. It is one unheard word, not a clause break: a trigger's `~` skips it ("don't
/// want [inaudible] to be here") and a modifier reaches across it ("inte [ohörbart] ramlat").
pub(crate) const GAP: &str = "_";

/// A transcriber's marker is at most this many bytes between its brackets.
const MARKER_BYTES: usize = 32;

impl Tokens {
    /// The folded text of token `i`.
    #[inline]
    pub(crate) fn word(&self, i: usize) -> &[u8] {
        let t = self.toks[i];
        &self.text[t.start as usize..t.end as usize]
    }

    /// The folded text of token `i` as a string.
    pub(crate) fn word_str(&self, i: usize) -> &str {
        std::str::from_utf8(self.word(i)).unwrap_or_default()
    }

    /// Whether the sentence that ends at token `end` ends with a question mark.
    pub(crate) fn question_ends_at(&self, end: usize) -> bool {
        self.sents.iter().any(|s| s.end == end && s.question)
    }

    /// Whether token `i` is a comma.
    #[inline]
    pub(crate) fn is_comma(&self, i: usize) -> bool {
        self.word(i) == COMMA.as_bytes()
    }

    /// Whether token `i` is a gap (a transcriber's marker).
    #[inline]
    pub(crate) fn is_gap(&self, i: usize) -> bool {
        self.word(i) == GAP.as_bytes()
    }

    /// Number of folded bytes of all tokens.
    pub(crate) fn letters(&self) -> usize {
        self.text.len()
    }

    /// Number of word tokens (commas and gaps not counted).
    pub(crate) fn word_count(&self) -> usize {
        (0..self.toks.len())
            .filter(|&i| !self.is_comma(i) && !self.is_gap(i))
            .count()
    }

    /// Normalises `input` into `self`, replacing what was there.
    pub(crate) fn fill(&mut self, input: &str) {
        self.text.clear();
        self.toks.clear();
        self.sents.clear();
        let mut builder = Builder {
            out: self,
            word_start: None,
            word_cap: false,
            word_swedish: false,
            sent_start_tok: 0,
            sent_orig_start: None,
        };
        let bytes = input.as_bytes();
        let mut at = 0;
        // Bytes, with a table for ASCII (most of the text); other characters decoded one by one.
        while at < bytes.len() {
            let b = bytes[at];
            let (c, class, len) = if b < 0x80 {
                if matches!(ASCII[b as usize], Class::Letter) {
                    // The common case, an ASCII letter: no decoding, no folding table.
                    if builder.word_start.is_none() {
                        builder.open_word(b.is_ascii_uppercase(), at);
                    }
                    builder.out.text.push(LOWER[b as usize]);
                    at += 1;
                    continue;
                }
                (b as char, ASCII[b as usize], 1)
            } else {
                let c = input[at..].chars().next().unwrap_or(' ');
                (c, class(c), c.len_utf8())
            };
            let after = at + len;
            match class {
                Class::Letter => builder.push_letter(c, at),
                Class::Join => {
                    // "'s" is dropped ("it's" = "it", "mum's" = "mum"); other apostrophes join
                    // ("can't" = "cant").
                    let s = bytes.get(after).is_some_and(|&n| n == b's' || n == b'S');
                    if builder.word_start.is_some()
                        && s
                        && !bytes.get(after + 1).is_some_and(u8::is_ascii_alphanumeric)
                    {
                        at = after + 1;
                        continue;
                    }
                }
                Class::Space => builder.end_word(),
                Class::Comma => {
                    builder.end_word();
                    if let Some(len) = marker_len(&input[at..]) {
                        builder.gap(at);
                        at += len;
                        continue;
                    }
                    builder.comma(at);
                }
                Class::Stop { question } => {
                    // A point between two digits ("1.5") is part of a number, and one after a
                    // title ("Mr. Jensen", "Dr. Berg") part of a name: neither is a stop. An
                    // ellipsis ("Jag... får... inte... luft") is a pause in speech, not a stop.
                    let digits = at > 0
                        && bytes[at - 1].is_ascii_digit()
                        && bytes.get(after).is_some_and(|n| n.is_ascii_digit());
                    let ellipsis = (b == b'.'
                        && (bytes.get(after) == Some(&b'.') || (at > 0 && bytes[at - 1] == b'.')))
                        || c == '…';
                    if b == b'.' && digits {
                    } else if ellipsis || (b == b'.' && builder.ends_with_title()) {
                        builder.end_word();
                    } else {
                        builder.end_word();
                        builder.end_sentence(after, question);
                    }
                }
            }
            at = after;
        }
        builder.end_word();
        builder.end_sentence(input.len(), false);
    }
}

/// Tokeniser state while filling a `Tokens`.
struct Builder<'t> {
    out: &'t mut Tokens,
    /// Start of the current word in `out.text`.
    word_start: Option<usize>,
    /// The current word started with a capital letter.
    word_cap: bool,
    /// The current word has å, ä or ö.
    word_swedish: bool,
    /// First token of the current sentence.
    sent_start_tok: usize,
    /// Original byte offset where the current sentence starts.
    sent_orig_start: Option<usize>,
}

impl Builder<'_> {
    /// Opens a word at the output's end (`capital`: its first letter's case); `at`, the input
    /// byte, opens the sentence too if none is open. Callers check that no word is open first,
    /// so that a letter inside a word pays for no case test.
    #[inline]
    fn open_word(&mut self, capital: bool, at: usize) {
        self.word_start = Some(self.out.text.len());
        self.word_cap = capital;
        self.word_swedish = false;
        if self.sent_orig_start.is_none() {
            self.sent_orig_start = Some(at);
        }
    }

    fn push_letter(&mut self, c: char, at: usize) {
        if self.word_start.is_none() {
            self.open_word(c.is_uppercase(), at);
        }
        self.word_swedish |= matches!(c, 'å' | 'ä' | 'ö' | 'Å' | 'Ä' | 'Ö');
        fold_into(c, &mut self.out.text);
    }

    /// Whether the word being read is a title written with a point ("Mr.", "Dr.").
    fn ends_with_title(&self) -> bool {
        let Some(start) = self.word_start else {
            return false;
        };
        TITLES
            .iter()
            .any(|t| t.as_bytes() == &self.out.text[start..])
    }

    fn end_word(&mut self) {
        if let Some(start) = self.word_start.take()
            && self.out.text.len() > start
        {
            // Spoken Swedish as speech-to-text writes it: "sej", "mej", "nåt" are "sig", "mig",
            // "något", so one rule row serves both (rules are normalised by this same code).
            if let Some(&(_, written)) = SPOKEN
                .iter()
                .find(|(spoken, _)| spoken.as_bytes() == &self.out.text[start..])
            {
                self.out.text.truncate(start);
                self.out.text.extend_from_slice(written.as_bytes());
            }
            self.out.toks.push(Tok {
                start: start as u32,
                end: self.out.text.len() as u32,
                cap: self.word_cap,
                swedish: self.word_swedish,
            });
        }
    }

    fn comma(&mut self, at: usize) {
        // A comma at the start of a sentence, or after another comma, says nothing; an opening
        // one ("(ohörbart)") still starts the sentence's text.
        self.mark(at, COMMA);
    }

    fn gap(&mut self, at: usize) {
        // Missing words at the start of a sentence, or beside other missing words, add nothing.
        self.mark(at, GAP);
    }

    /// Pushes the token `mark` (a comma or a gap) unless the sentence has no words yet or the
    /// last token is the same mark; at a sentence's start it still marks where its text begins.
    fn mark(&mut self, at: usize, mark: &str) {
        let n = self.out.toks.len();
        if n == self.sent_start_tok || self.out.word(n - 1) == mark.as_bytes() {
            if n == self.sent_start_tok && self.sent_orig_start.is_none() {
                self.sent_orig_start = Some(at);
            }
            return;
        }
        let start = self.out.text.len();
        self.out.text.extend_from_slice(mark.as_bytes());
        self.out.toks.push(Tok {
            start: start as u32,
            end: self.out.text.len() as u32,
            cap: false,
            swedish: false,
        });
    }

    fn end_sentence(&mut self, after: usize, question: bool) {
        // A trailing comma or gap belongs to no clause.
        while self.out.toks.len() > self.sent_start_tok
            && (self.out.is_comma(self.out.toks.len() - 1)
                || self.out.is_gap(self.out.toks.len() - 1))
        {
            self.out.toks.pop();
        }
        let end = self.out.toks.len();
        if end > self.sent_start_tok {
            let orig_start = self.sent_orig_start.unwrap_or(0);
            self.out.sents.push(Sentence {
                start: self.sent_start_tok,
                end,
                question,
                orig_start,
                orig_end: after.max(orig_start),
            });
        } else if question {
            // "Ja?" followed by "?" again: mark the previous sentence a question.
            if let Some(last) = self.out.sents.last_mut() {
                last.question = true;
            }
        }
        self.sent_start_tok = end;
        self.sent_orig_start = None;
    }
}

/// The length of the transcriber's marker `text` starts with, brackets included: "[inaudible]",
/// "[crackle]", "[ohörbart]"; letters and spaces only, at most three words. Round brackets are
/// not markers: in a note they hold what was said ("Ester (känd afasi) kräver läkare").
fn marker_len(text: &str) -> Option<usize> {
    if !text.starts_with('[') {
        return None;
    }
    let end = text
        .char_indices()
        .take_while(|&(i, _)| i <= MARKER_BYTES)
        .find(|&(_, c)| c == ']')?
        .0;
    let inner = &text[1..end];
    let letters = inner
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    let words = inner.split_whitespace().count();
    (letters && (1..=3).contains(&words)).then_some(end + 1)
}

/// Every ASCII character lowercased.
const LOWER: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    table
};

/// The class of every ASCII character.
const ASCII: [Class; 128] = {
    let mut table = [Class::Space; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = match b as u8 {
            b'\'' | b'`' => Class::Join,
            b'.' | b'!' | b';' | b'\n' | b'\r' => Class::Stop { question: false },
            b'?' => Class::Stop { question: true },
            b',' | b':' | b'(' | b')' | b'[' | b']' => Class::Comma,
            c if c.is_ascii_alphanumeric() => Class::Letter,
            _ => Class::Space,
        };
        b += 1;
    }
    table
};

/// What a character does to tokenisation.
#[derive(Clone, Copy)]
enum Class {
    /// Part of a word.
    Letter,
    /// Dropped without ending the word (apostrophes: "can't" -> "cant").
    Join,
    /// Ends a word.
    Space,
    /// Ends a word and stands as a comma token (a clause break inside a sentence).
    Comma,
    /// Ends the sentence.
    Stop {
        /// It was a question mark.
        question: bool,
    },
}

fn class(c: char) -> Class {
    match c {
        '\'' | '’' | '‘' | '´' | '`' | 'ʼ' => Class::Join,
        '.' | '!' | ';' | '…' | '\n' | '\r' | '¡' => Class::Stop { question: false },
        '?' | '¿' => Class::Stop { question: true },
        ',' | ':' | '–' | '—' | '(' | ')' | '[' | ']' => Class::Comma,
        c if c.is_alphanumeric() => Class::Letter,
        _ => Class::Space,
    }
}

/// Lowercases `c`, folds its diacritics and appends the result (UTF-8).
fn fold_into(c: char, out: &mut Vec<u8>) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase() as u8);
        return;
    }
    let mut push = |c: char| out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    for l in c.to_lowercase() {
        match l {
            'å' | 'ä' | 'à' | 'á' | 'â' | 'ã' | 'æ' | 'ā' => push('a'),
            'ö' | 'ø' | 'ó' | 'ò' | 'ô' | 'õ' | 'œ' | 'ō' => push('o'),
            'é' | 'è' | 'ê' | 'ë' | 'ē' => push('e'),
            'ü' | 'ú' | 'ù' | 'û' | 'ū' => push('u'),
            'í' | 'ì' | 'î' | 'ï' | 'ī' => push('i'),
            'ç' => push('c'),
            'ñ' => push('n'),
            'ß' => {
                push('s');
                push('s')
            }
            'ý' | 'ÿ' => push('y'),
            other => push(other),
        }
    }
}

/// Normalises a phrase of a rule file into its words (commas kept as ","), in one sentence.
/// Returns `None` when the phrase holds a sentence end.
pub(crate) fn phrase_words(phrase: &str) -> Option<Vec<String>> {
    let mut t = Tokens::default();
    t.fill(phrase);
    if t.sents.len() > 1 {
        return None;
    }
    Some(
        (0..t.toks.len())
            .map(|i| t.word_str(i).to_owned())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Vec<String>> {
        let mut t = Tokens::default();
        t.fill(s);
        t.sents
            .iter()
            .map(|s| (s.start..s.end).map(|i| t.word_str(i).to_owned()).collect())
            .collect()
    }

    #[test]
    fn folds_swedish_letters_and_joins_apostrophes() {
        assert_eq!(
            words("Jag har ONT i bröstet, och kan't gå!"),
            vec![vec![
                "jag", "har", "ont", "i", "brostet", ",", "och", "kant", "ga"
            ]]
        );
        assert_eq!(
            words("It's my husband's chest, he's fine"),
            vec![vec!["it", "my", "husband", "chest", ",", "he", "fine"]]
        );
        assert_eq!(
            words("Åsa är på café"),
            vec![vec!["asa", "ar", "pa", "cafe"]]
        );
    }

    #[test]
    fn splits_sentences_and_marks_questions() {
        let mut t = Tokens::default();
        t.fill("Hej. Har du ramlat? Ja");
        assert_eq!(t.sents.len(), 3);
        assert!(!t.sents[0].question);
        assert!(t.sents[1].question);
        assert_eq!(
            &"Hej. Har du ramlat? Ja"[t.sents[1].orig_start..t.sents[1].orig_end],
            "Har du ramlat?"
        );
    }

    #[test]
    fn keeps_decimal_numbers_and_drops_stray_commas() {
        assert_eq!(words(", 1.5 mg,, ok ,"), vec![vec!["15", "mg", ",", "ok"]]);
    }
}
