//! Normalised text for matching: case and diacritics folded, words split the way names are
//! written and misheard, and the numbers spoken or written in a summary.

use unicode_normalization::UnicodeNormalization;

/// Lower case without diacritics, for comparing what speech recognition may spell either way
/// ("Ängsvägen" and "Angsvagen", "Ström" and "Strom"). Letters without a decomposition get
/// their usual ASCII spelling (ø, æ, ß, đ, ł).
pub fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.nfd() {
        match c {
            c if unicode_normalization::char::is_combining_mark(c) => {}
            'ø' | 'Ø' => folded.push('o'),
            'æ' | 'Æ' => folded.push_str("ae"),
            'ß' => folded.push_str("ss"),
            'đ' | 'Đ' => folded.push('d'),
            'ł' | 'Ł' => folded.push('l'),
            c => folded.extend(c.to_lowercase()),
        }
    }
    folded
}

/// The words of a text, folded. A hyphenated word also gives its joined form, since a double
/// surname is said both ways ("Johansson-Ström": `johansson`, `strom`, `johanssonstrom`).
/// English and Swedish possessive endings stay on the word; see `without_possessive`.
pub fn words(text: &str) -> Vec<String> {
    let folded = fold(text);
    let mut words = Vec::new();
    for chunk in folded.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')) {
        let parts: Vec<&str> = chunk
            .split(['-', '\''])
            .filter(|part| !part.is_empty())
            .collect();
        // "Anna's" is "anna" plus a possessive "s", not a word of its own.
        let parts: Vec<&str> = match parts.as_slice() {
            [stem, "s"] if chunk.contains('\'') => vec![*stem],
            _ => parts,
        };
        if parts.len() > 1 && chunk.contains('-') {
            words.extend(parts.iter().map(|part| part.to_string()));
            words.push(parts.concat());
        } else {
            words.extend(parts.iter().map(|part| part.to_string()));
        }
    }
    words
}

/// The word without a Swedish genitive `s` ("Svenssons" -> "svensson", "Lunds" -> "lund"),
/// when the stem is long enough to be a name; `None` without such an ending. Whether the stem
/// is a name is the caller's question ("Hans" is a name, "han" is not).
pub fn without_possessive(word: &str) -> Option<&str> {
    let stem = word.strip_suffix('s')?;
    (stem.chars().count() >= 3).then_some(stem)
}

/// Endings a topic word loses before it is compared: Swedish definite and plural forms
/// ("undulaterna", "undulater"), English plurals and -ing, longest first.
const TOPIC_ENDINGS: &[&str] = &[
    "arna", "erna", "orna", "ing", "na", "en", "et", "ar", "er", "or", "es", "s", "n", "e",
];

/// A light stem for topic words, so that the notes' "Har två undulater" and the call's
/// "undulaterna" meet: endings are removed while at least four letters stay.
pub fn topic_stem(word: &str) -> &str {
    let mut stem = word;
    while let Some(shorter) = TOPIC_ENDINGS
        .iter()
        .filter_map(|ending| stem.strip_suffix(ending))
        // Words are folded, so bytes are letters (an unfolded one keeps a little more).
        .find(|shorter| shorter.len() >= 4)
    {
        stem = shorter;
    }
    stem
}

/// Digit words of Swedish and English, as speech recognition writes numbers read aloud.
fn digit_word(word: &str) -> Option<char> {
    Some(match word {
        "noll" | "zero" | "oh" => '0',
        "ett" | "en" | "one" => '1',
        "tva" | "two" => '2',
        "tre" | "three" => '3',
        "fyra" | "four" => '4',
        "fem" | "five" => '5',
        "sex" | "six" => '6',
        "sju" | "seven" => '7',
        "atta" | "eight" => '8',
        "nio" | "nie" | "nine" => '9',
        _ => return None,
    })
}

/// The numbers in a text, each with its digits only: groups written apart ("073-532 16 95",
/// "19320927-8500", "+46 70 123 45 67") and digits read out one word at a time ("noll sju
/// tre ...", at least four in a row) are joined. A lone short number stays on its own, so a
/// street number is not glued to the next one.
pub fn numbers(text: &str) -> Vec<String> {
    let folded = fold(text);
    let mut numbers = Vec::new();
    let mut current = String::new();
    let mut spoken = String::new();
    let mut pending_separator = false;
    let flush = |current: &mut String, numbers: &mut Vec<String>| {
        if !current.is_empty() {
            numbers.push(std::mem::take(current));
        }
    };
    let flush_spoken = |spoken: &mut String, numbers: &mut Vec<String>| {
        if spoken.len() >= 4 {
            numbers.push(std::mem::take(spoken));
        } else {
            spoken.clear();
        }
    };
    for token in folded.split_inclusive(|c: char| !c.is_ascii_digit()) {
        let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
        let rest = &token[digits.len()..];
        if !digits.is_empty() {
            if !pending_separator {
                flush(&mut current, &mut numbers);
            }
            current.push_str(&digits);
        }
        // Spaces, hyphens, dots, slashes and a leading plus keep a number going; anything
        // else ends it.
        pending_separator = !current.is_empty() && matches!(rest, " " | "-" | "." | "/" | "");
        if !pending_separator {
            flush(&mut current, &mut numbers);
        }
    }
    flush(&mut current, &mut numbers);
    for word in folded.split(|c: char| !c.is_alphanumeric()) {
        match digit_word(word) {
            Some(digit) => spoken.push(digit),
            None if word.is_empty() => {}
            None => flush_spoken(&mut spoken, &mut numbers),
        }
    }
    flush_spoken(&mut spoken, &mut numbers);
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_removes_case_and_diacritics() {
        assert_eq!(fold("Ängsvägen ÖSTRA Åsa"), "angsvagen ostra asa");
        assert_eq!(fold("Jørgen Ærø Weiß Zoë"), "jorgen aero weiss zoe");
    }

    #[test]
    fn hyphenated_names_give_their_parts_and_the_joined_form() {
        assert_eq!(
            words("The caller, Johansson-Ström, lives in Tierp."),
            [
                "the",
                "caller",
                "johansson",
                "strom",
                "johanssonstrom",
                "lives",
                "in",
                "tierp"
            ]
        );
    }

    #[test]
    fn english_possessives_are_dropped_and_swedish_ones_are_found() {
        assert_eq!(words("Anna's daughter"), ["anna", "daughter"]);
        assert_eq!(without_possessive("svenssons"), Some("svensson"));
        assert_eq!(without_possessive("lunds"), Some("lund"));
        assert_eq!(without_possessive("hans"), Some("han"));
        assert_eq!(without_possessive("lars"), Some("lar"));
        assert_eq!(without_possessive("ts"), None);
        assert_eq!(without_possessive("karin"), None);
    }

    #[test]
    fn topic_words_meet_across_swedish_and_english_inflections() {
        for (a, b) in [
            ("undulaterna", "undulater"),
            ("pacemakern", "pacemaker"),
            ("frimarkena", "frimarken"),
            ("igelkottarna", "igelkott"),
            ("hedgehogs", "hedgehog"),
            ("budgerigars", "budgerigar"),
            ("gardening", "garden"),
        ] {
            assert_eq!(topic_stem(a), topic_stem(b), "{a} / {b}");
        }
        assert_eq!(topic_stem("cat"), "cat");
    }

    #[test]
    fn written_numbers_are_joined_across_separators() {
        assert_eq!(
            numbers("Call back at 073-532 16 95, she said."),
            ["0735321695"]
        );
        assert_eq!(numbers("pnr 19320927-8500."), ["193209278500"]);
        assert_eq!(numbers("+46 70 123 45 67"), ["46701234567"]);
        assert_eq!(numbers("Storgatan 12, 2 trappor"), ["12", "2"]);
    }

    #[test]
    fn spoken_digits_become_numbers() {
        assert_eq!(
            numbers("numret är noll sju tre fem tre två ett sex nio fem"),
            ["0735321695"]
        );
        assert_eq!(numbers("one or two things"), Vec::<String>::new());
    }
}
