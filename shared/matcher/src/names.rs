//! Comparing a name heard in a call with a client's name: exact, nickname, phonetic and fuzzy
//! evidence, robust to how speech recognition misspells Swedish names.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::text::fold;

/// How well a heard word matches a name word, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NameMatch {
    Exact,
    /// A short form or spelling variant the name data knows ("Kalle" for Karl).
    Nickname,
    /// A Swedish pet form by the usual pattern, not in the data ("Robban" for Robert).
    PetForm,
    /// Spelled differently, pronounced alike ("Eriksson", "Ericson").
    Phonetic,
    /// Close in spelling (Jaro-Winkler similarity, 0.88 or more).
    Fuzzy(f64),
}

impl NameMatch {
    /// The strength of the match, 1.0 for an exact one.
    pub fn strength(self) -> f64 {
        match self {
            Self::Exact => 1.0,
            Self::Nickname => 0.9,
            Self::PetForm => 0.8,
            Self::Phonetic => 0.85,
            Self::Fuzzy(similarity) => 0.8 * similarity,
        }
    }
}

/// The least Jaro-Winkler similarity that counts as a misspelling of the same name.
const FUZZY_THRESHOLD: f64 = 0.88;

/// Compares a heard word with a given name, both folded (`text::words`): as `compare`, and a
/// short form, spelling variant or pet form of the name counts too.
pub fn compare_given(heard: &str, name: &str) -> Option<NameMatch> {
    if heard == name {
        return Some(NameMatch::Exact);
    }
    if same_given_name(heard, name) {
        return Some(NameMatch::Nickname);
    }
    // A name of its own ("Anna") is not read as a pet form of another ("Anders").
    if !is_known_given_name(heard) && is_swedish_pet_form(heard, name) {
        return Some(NameMatch::PetForm);
    }
    compare(heard, name)
}

/// Compares a heard word with a name word, both folded (`text::words`): the same word, the same
/// sound, or a near spelling.
pub fn compare(heard: &str, name: &str) -> Option<NameMatch> {
    if heard == name {
        return Some(NameMatch::Exact);
    }
    // Short words sound alike by accident; they must match exactly.
    if heard.chars().count() < 3 || name.chars().count() < 3 {
        return None;
    }
    if sound_of(heard) == sound_of(name) {
        return Some(NameMatch::Phonetic);
    }
    // Jaro-Winkler favours shared beginnings: "Sven" is not a misspelling of "Svensson".
    if heard.chars().count().abs_diff(name.chars().count()) > 2 {
        return None;
    }
    let similarity = strsim::jaro_winkler(heard, name);
    (similarity >= FUZZY_THRESHOLD).then_some(NameMatch::Fuzzy(similarity))
}

/// A sound key for a Swedish (or English-spelled) name, after the Swedish phonetic keys of the
/// SfinxBis kind: consonant sounds in order (sj/sk/stj/ch/tj sounds as one, soft g and k before
/// front vowels, c, q, w, x, z, ph, th, ck as said, -rg/-lg before a consonant as -rj/-lj), the
/// first vowel kept as a class (i/y, e/ä/a, o/u/å/ö: "Lund" and "Lind" stay apart, "Sjöberg"
/// and a transcribed "Sjoberg" do not), later vowels dropped (where speech
/// recognition errs most), doubled sounds once. Written on the unfolded word where Swedish
/// spelling decides the sound ("Göran" begins like "Jöran"), folded otherwise.
pub fn phonetic_key(word: &str) -> String {
    let lower: Vec<char> = word.to_lowercase().chars().collect();
    let front = |c: Option<&char>| matches!(c, Some('e' | 'i' | 'y' | 'ä' | 'ö'));
    let vowel = |c: char| "aeiouyåäöéü".contains(c);
    let mut sounds: Vec<char> = Vec::with_capacity(lower.len());
    let mut first_vowel = true;
    let mut i = 0;
    while i < lower.len() {
        let rest: String = lower[i..].iter().collect();
        let next = lower.get(i + 1);
        let starts = |prefixes: &[&str]| prefixes.iter().any(|p| rest.starts_with(p));
        let (sound, used) = if starts(&["sch", "skj", "stj"]) {
            ('X', 3)
        } else if starts(&["sj", "sh", "ch", "tj", "kj"])
            || (starts(&["sk"]) && front(lower.get(i + 2)))
        {
            ('X', 2)
        } else if i == 0 && lower[i] == 'k' && front(next) {
            ('X', 1)
        } else if i == 0 && starts(&["dj", "gj", "hj", "lj"]) {
            ('J', 2)
        } else if i == 0
            && ((lower[i] == 'g' && front(next))
                || (lower[i] == 'y' && next.is_some_and(|c| vowel(*c))))
        {
            ('J', 1)
        } else if starts(&["ph"]) {
            ('F', 2)
        } else if starts(&["th", "dt"]) {
            ('T', 2)
        } else if starts(&["ck"]) {
            ('K', 2)
        } else if lower[i] == 'g'
            && i > 0
            && matches!(lower[i - 1], 'r' | 'l')
            && !next.is_some_and(|c| vowel(*c))
        {
            // -rg and -lg before a consonant or at the end are said -rj, -lj ("Sjöberg" is
            // heard "Sjöbärj", "Bergkvist" "Bärjkvist").
            ('J', 1)
        } else {
            let c = fold(&lower[i].to_string()).chars().next().unwrap_or(' ');
            let sound = match c {
                'w' => 'V',
                'z' => 'S',
                'q' => 'K',
                'c' if front(next) => 'S',
                'c' => 'K',
                'x' => {
                    sounds.push('K');
                    'S'
                }
                'h' if i > 0 => {
                    i += 1;
                    continue;
                }
                _ if vowel(lower[i]) => {
                    if !std::mem::take(&mut first_vowel) {
                        i += 1;
                        continue;
                    }
                    // Three classes, so that they survive folding (names are compared folded,
                    // and speech recognition drops the dots as well): i and y; e, ä and a
                    // ("Bärj" and a folded "Barj" for Berg); o, u, å and ö ("Sjoberg" for
                    // Sjöberg).
                    match lower[i] {
                        'i' | 'y' | 'í' => 'I',
                        'e' | 'é' | 'è' | 'ä' | 'æ' | 'a' | 'á' | 'à' => 'E',
                        _ => 'A',
                    }
                }
                c => c.to_ascii_uppercase(),
            };
            (sound, 1)
        };
        if sounds.last() != Some(&sound) {
            sounds.push(sound);
        }
        i += used;
    }
    sounds.into_iter().collect()
}

/// Given names and the names they are short forms or spelling variants of: the reference
/// (English Wiktionary's given-name entries for the Nordic languages and English) and the
/// forms curated here that it lacks. Data, not code: `shared/assets/README.md` names the source.
const REFERENCE_VARIANTS: &[u8] = include_bytes!("../../assets/name-variants.tsv.gz");
const CURATED_VARIANTS: &str = include_str!("../../assets/name-variants-curated.tsv");

/// Each folded given name that is a short form or variant, with the folded names it stands for.
fn variants() -> &'static HashMap<String, Vec<String>> {
    static VARIANTS: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        let reference = crate::assets::text_of(REFERENCE_VARIANTS, "given-name variants");
        let mut variants: HashMap<String, Vec<String>> = HashMap::new();
        for line in reference.lines().chain(CURATED_VARIANTS.lines()) {
            if line.starts_with('#') {
                continue;
            }
            let mut columns = line.split('\t');
            if let (Some(variant), Some(name)) = (columns.next(), columns.next()) {
                let (variant, name) = (fold(variant.trim()), fold(name.trim()));
                if !variant.is_empty() && !name.is_empty() && variant != name {
                    let names = variants.entry(variant).or_default();
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
        }
        variants
    })
}

/// The names a given name belongs with: itself, and every name it is a short form or variant
/// of. Two given names are the same name when these share one ("Kalle" and "Calle" both stand
/// for "karl").
pub fn name_groups(word: &str) -> impl Iterator<Item = &str> {
    std::iter::once(word).chain(
        variants()
            .get(word)
            .into_iter()
            .flatten()
            .map(String::as_str),
    )
}

/// Whether the name data knows `word` (folded) as a given name or a form of one.
pub fn is_known_given_name(word: &str) -> bool {
    static KNOWN: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    KNOWN
        .get_or_init(|| {
            variants()
                .iter()
                .flat_map(|(variant, names)| {
                    std::iter::once(variant.as_str()).chain(names.iter().map(String::as_str))
                })
                .collect()
        })
        .contains(word)
}

/// Whether two folded given names are forms of the same name.
pub fn same_given_name(heard: &str, name: &str) -> bool {
    let variants = variants();
    let (heard_of, name_of) = (variants.get(heard), variants.get(name));
    if heard_of.is_none() && name_of.is_none() {
        return false;
    }
    let name_groups: Vec<&str> = std::iter::once(name)
        .chain(name_of.into_iter().flatten().map(String::as_str))
        .collect();
    std::iter::once(heard)
        .chain(heard_of.into_iter().flatten().map(String::as_str))
        .any(|group| name_groups.contains(&group))
}

/// Endings of Swedish pet forms, longest first: Robb-an, Katt-is, Suss-ie, Pell-e.
const PET_ENDINGS: &[&str] = &["an", "is", "ie", "en", "e", "a", "o", "y", "i"];

/// A Swedish pet form made the usual way: the name's first syllable, its consonant doubled,
/// and a pet ending ("Robban" for Robert, "Kattis" for Katarina, "Mackan" for Markus, "Micke"
/// for Mikael, "Uffe" for Ulf). The first syllable is the name's opening consonants and vowel;
/// an `r` or `l` after the vowel may fall away (Ma(r)kus, U(l)f). Both words folded.
pub fn is_swedish_pet_form(heard: &str, name: &str) -> bool {
    let Some(stem) = PET_ENDINGS
        .iter()
        .find_map(|ending| heard.strip_suffix(ending))
    else {
        return false;
    };
    // Folded names are ASCII; checked without allocating, since the index tries every heard
    // word against every distinct name.
    let bytes = stem.as_bytes();
    if !stem.is_ascii() || bytes.len() < 3 || heard == name {
        return false;
    }
    let (head, pair) = bytes.split_at(bytes.len() - 2);
    let consonant = match (pair[0], pair[1]) {
        (b'c', b'k') => b'k',
        (a, b) if a == b && !is_vowel(a) => a,
        _ => return false,
    };
    // The head is the first syllable: consonants, then exactly one vowel, ending on it.
    let vowels = head.iter().filter(|c| is_vowel(**c)).count();
    if vowels != 1 || !head.last().is_some_and(|c| is_vowel(*c)) {
        return false;
    }
    let Some(rest) = name.as_bytes().strip_prefix(head) else {
        return false;
    };
    let opens = |after: &[u8]| {
        after.first() == Some(&consonant) || (consonant == b'k' && after.first() == Some(&b'c'))
    };
    match rest {
        [b'r' | b'l', after @ ..] if opens(after) => true,
        _ => opens(rest),
    }
}

fn is_vowel(c: u8) -> bool {
    b"aeiouy".contains(&c)
}

/// `phonetic_key`, remembered: the index compares every heard name with thousands of names,
/// and names repeat from request to request. Bounded, and per thread (a Lambda serves one
/// request at a time).
fn sound_of(word: &str) -> String {
    thread_local! {
        static KEYS: std::cell::RefCell<HashMap<String, String>> =
            std::cell::RefCell::new(HashMap::new());
    }
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some(key) = keys.get(word) {
            return key.clone();
        }
        if keys.len() >= 100_000 {
            keys.clear();
        }
        let key = phonetic_key(word);
        keys.insert(word.to_string(), key.clone());
        key
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surnames_spelled_differently_share_a_sound_key() {
        for (a, b) in [
            ("eriksson", "ericson"),
            ("olsson", "ohlson"),
            ("karlsson", "carlsson"),
            ("pettersson", "petterson"),
            ("nilsson", "nilson"),
            ("axelsson", "akselson"),
            ("Göran", "Jöran"),
            ("Kjell", "Tjell"),
            ("Kerstin", "Cherstin"),
            ("Sjöberg", "Sjobärj"),
            ("Bergkvist", "Bärjkvist"),
            ("bergkvist", "barjkvist"),
            ("sjoberg", "sjobarj"),
        ] {
            assert_eq!(phonetic_key(a), phonetic_key(b), "{a} / {b}");
        }
        assert_ne!(phonetic_key("lund"), phonetic_key("lind"));
        assert_ne!(phonetic_key("nilsson"), phonetic_key("nyberg"));
    }

    #[test]
    fn short_forms_from_the_name_data_stand_for_their_names() {
        assert_eq!(compare_given("kalle", "karl"), Some(NameMatch::Nickname));
        assert_eq!(compare_given("calle", "karl"), Some(NameMatch::Nickname));
        assert_eq!(compare_given("lasse", "lars"), Some(NameMatch::Nickname));
        assert_eq!(
            compare_given("maggan", "margareta"),
            Some(NameMatch::Nickname)
        );
        assert_eq!(
            compare_given("gittan", "birgitta"),
            Some(NameMatch::Nickname)
        );
        assert_eq!(compare_given("bill", "william"), Some(NameMatch::Nickname));
        assert_eq!(compare_given("kalle", "lars"), None);
        assert_eq!(
            compare("kalle", "karl"),
            None,
            "surnames have no short forms"
        );
    }

    #[test]
    fn swedish_pet_forms_follow_the_first_syllable() {
        for (pet, name) in [
            ("robban", "robert"),
            ("kattis", "katarina"),
            ("mackan", "markus"),
            ("micke", "mikael"),
            ("uffe", "ulf"),
            ("tobbe", "tobias"),
            ("sussie", "susanne"),
        ] {
            assert!(is_swedish_pet_form(pet, name), "{pet} / {name}");
        }
        for (word, name) in [("robert", "robert"), ("bengt", "bengan")] {
            assert!(!is_swedish_pet_form(word, name), "{word} / {name}");
        }
        assert_eq!(
            compare_given("anna", "anders"),
            None,
            "a name of its own is no pet form"
        );
    }

    #[test]
    fn misheard_names_match_weaker_than_exact_ones() {
        assert_eq!(compare("holger", "holger"), Some(NameMatch::Exact));
        let misheard = compare("holgar", "holger").expect("one letter off");
        assert!(misheard.strength() < 1.0 && misheard.strength() > 0.7);
        assert_eq!(compare("holger", "helga"), None);
        assert_eq!(
            compare("bo", "bod"),
            None,
            "short words match exactly or not at all"
        );
    }
}
