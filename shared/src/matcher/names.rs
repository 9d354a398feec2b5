//! Comparing a name heard in a call with a client's name: exact, nickname, phonetic and fuzzy
//! evidence, robust to how speech recognition misspells Swedish names.

use super::text::fold;

/// How well a heard word matches a name word, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NameMatch {
    Exact,
    /// A common short form of the name ("Kalle" for Karl).
    Nickname,
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
            Self::Phonetic => 0.85,
            Self::Fuzzy(similarity) => 0.8 * similarity,
        }
    }
}

/// The least Jaro-Winkler similarity that counts as a misspelling of the same name.
const FUZZY_THRESHOLD: f64 = 0.88;

/// Compares a heard word with a name word, both folded (`text::words`).
pub fn compare(heard: &str, name: &str) -> Option<NameMatch> {
    if heard == name {
        return Some(NameMatch::Exact);
    }
    if canonical_first_name(heard) == canonical_first_name(name)
        && canonical_first_name(heard).is_some()
    {
        return Some(NameMatch::Nickname);
    }
    // Short words sound alike by accident; they must match exactly.
    if heard.chars().count() < 3 || name.chars().count() < 3 {
        return None;
    }
    if phonetic_key(heard) == phonetic_key(name) {
        return Some(NameMatch::Phonetic);
    }
    // Jaro-Winkler favours shared beginnings: "Sven" is not a misspelling of "Svensson".
    if heard.chars().count().abs_diff(name.chars().count()) > 2 {
        return None;
    }
    let similarity = strsim::jaro_winkler(heard, name);
    (similarity >= FUZZY_THRESHOLD).then_some(NameMatch::Fuzzy(similarity))
}

/// A sound key for a Swedish (or English-spelled) name: consonant sounds in order, the first
/// vowel as back (a, o, u, å) or front (e, i, y, ä, ö) so that "Lund" and "Lind" stay apart,
/// later vowels dropped (where speech recognition errs most), doubled sounds once. Written on the unfolded word where
/// Swedish spelling decides the sound ("Göran" begins like "Jöran"), folded otherwise.
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
                    if front(Some(&lower[i])) { 'E' } else { 'A' }
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

/// Swedish first names and their common short forms; the first of each row is the name the
/// others stand for.
const NICKNAMES: &[&[&str]] = &[
    &["karl", "kalle", "carl", "calle"],
    &["lars", "lasse"],
    &["olof", "olov", "olle", "ola"],
    &["per", "pelle", "perra", "peter"],
    &["nils", "nisse"],
    &["johan", "janne", "jan", "johannes", "jonte"],
    &["gustav", "gustaf", "gurra", "gösta", "gosta"],
    &["bo", "bosse"],
    &["hans", "hasse"],
    &["lennart", "lelle", "lenne"],
    &["mikael", "michael", "micke", "mike"],
    &["joakim", "jocke"],
    &["tomas", "thomas", "tompa", "tommy"],
    &["niklas", "nicklas", "nicke", "klas", "claes", "klasse"],
    &["fredrik", "fredde"],
    &["robert", "robban", "robbe"],
    &["rolf", "rolle"],
    &["ulf", "uffe"],
    &["stig", "stickan"],
    &["torsten", "totte"],
    &["tobias", "tobbe"],
    &["daniel", "danne"],
    &["kenneth", "kenta", "kent"],
    &["ragnar", "ragge"],
    &["sigvard", "sigurd", "sigge"],
    &["alf", "affe"],
    &["sture", "sturre"],
    &["ingvar", "ingge"],
    &[
        "kristina",
        "christina",
        "stina",
        "kicki",
        "kristin",
        "kerstin",
    ],
    &[
        "margareta",
        "margaretha",
        "maggan",
        "greta",
        "märta",
        "marta",
    ],
    &[
        "elisabet",
        "elisabeth",
        "lisa",
        "bettan",
        "lisbeth",
        "lisbet",
        "elsa",
    ],
    &[
        "karin",
        "kajsa",
        "kaisa",
        "katarina",
        "catharina",
        "kattis",
        "karina",
    ],
    &["birgitta", "britt", "gittan", "birgit", "brita", "britta"],
    &["charlotte", "charlotta", "lotta", "lotten"],
    &["maria", "mia", "maja", "majken", "marie", "mimmi"],
    &["susanne", "susanna", "sussie", "susse", "sanna"],
    &["helena", "lena", "magdalena", "malena"],
    &["gunilla", "gunnel", "gunnis", "nilla"],
    &["ingrid", "inga", "ingegerd", "ingegärd", "ingis"],
    &["anna", "annika", "anki", "annie", "anneli"],
    &["eva", "evy", "evelina"],
    &["ulrika", "ulla"],
    &["barbro", "babs"],
    &["agneta", "agge"],
    &["viktoria", "victoria", "vicky", "vickan"],
    &["gunnar", "gunne"],
    &["göran", "goran", "jöran", "joran", "örjan", "orjan"],
    &["sven", "svenne"],
    &["bengt", "bengan"],
    &["anders", "anders", "ante", "andreas"],
];

/// The full name a first name or short form stands for, if the table knows it.
pub fn canonical_first_name(word: &str) -> Option<&'static str> {
    NICKNAMES
        .iter()
        .find(|row| row.contains(&word))
        .map(|row| row[0])
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
        ] {
            assert_eq!(phonetic_key(a), phonetic_key(b), "{a} / {b}");
        }
        assert_ne!(phonetic_key("lund"), phonetic_key("lind"));
        assert_ne!(phonetic_key("nilsson"), phonetic_key("nyberg"));
    }

    #[test]
    fn nicknames_stand_for_their_names() {
        assert_eq!(compare("kalle", "karl"), Some(NameMatch::Nickname));
        assert_eq!(compare("lasse", "lars"), Some(NameMatch::Nickname));
        assert_eq!(compare("maggan", "margareta"), Some(NameMatch::Nickname));
        assert_eq!(compare("kalle", "lars"), None);
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
