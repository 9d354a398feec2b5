//! Owns the reading of the rule files: each line becomes a pattern of the rules, or an error
//! naming its file, line and problem.

use super::*;

impl Rules {
    /// Parses the files; the error names the file, line and problem.
    pub(crate) fn parse(files: &[(&str, &str)]) -> Result<Rules, String> {
        let mut rules = Rules {
            patterns: Vec::new(),
            nodes: vec![Node::default()],
            dense: Vec::new(),
            second_person: Vec::new(),
            files: files.iter().map(|(name, _)| Box::from(*name)).collect(),
        };
        let mut seen: HashMap<String, (String, usize)> = HashMap::new();
        let mut markers: Vec<(String, u8)> = Vec::new();
        let mut counts = HashMap::new();
        for (file, (name, content)) in files.iter().enumerate() {
            for (n, raw) in content.lines().enumerate() {
                let line = raw.trim_end();
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                let at = || format!("{name}:{}", n + 1);
                let fields: Vec<&str> = line
                    .split('\t')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .collect();
                let lang = match fields.first().copied() {
                    Some("sv") => SV,
                    Some("en") => EN,
                    Some("any") => ANY,
                    other => {
                        return Err(format!(
                            "{}: language must be sv, en or any, not {other:?}",
                            at()
                        ));
                    }
                };
                let (role, phrase) = match *name {
                    "triggers.tsv" => {
                        parse_trigger(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "modifiers.tsv" => {
                        parse_modifier(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "terminators.tsv" => {
                        parse_terminator(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "dialogue.tsv" => {
                        parse_dialogue(&fields).map_err(|e| format!("{}: {e}", at()))?
                    }
                    "language.tsv" => {
                        if fields.len() != 2 {
                            return Err(format!(
                                "{}: expected 2 tab-separated fields: lang, words",
                                at()
                            ));
                        }
                        for w in fields[1].split_whitespace() {
                            let words = crate::normalise::phrase_words(w).unwrap_or_default();
                            if words.len() != 1 {
                                return Err(format!("{}: marker {w:?} is not one word", at()));
                            }
                            let capital = w.starts_with(char::is_uppercase);
                            markers.push((
                                words[0].clone(),
                                lang | if capital { CAPITAL_ONLY } else { 0 },
                            ));
                        }
                        continue;
                    }
                    other => return Err(format!("unknown rule file {other}")),
                };
                let elems =
                    parse_phrase(phrase).map_err(|e| format!("{}: {e} in {phrase:?}", at()))?;
                let key = format!("{lang}|{role:?}|{elems:?}");
                if let Some((file, line)) = seen.insert(key, (name.to_string(), n + 1)) {
                    return Err(format!("{}: duplicate of {file}:{line}", at()));
                }
                *counts.entry(*name).or_insert(0usize) += 1;
                let first = elems
                    .iter()
                    .position(|e| matches!(e, Elem::Word(..)))
                    .expect("checked by parse_phrase");
                if !elems
                    .iter()
                    .any(|e| matches!(e, Elem::Word(atoms, _) if atoms.iter().all(Atom::indexable)))
                {
                    return Err(format!(
                        "{}: a phrase needs a word that is not @cap in {phrase:?}",
                        at()
                    ));
                }
                let joinable = matches!(role, Role::Trigger(_))
                    && matches!(&elems[..], [Elem::Word(atoms, true)] if atoms.iter().all(|a| a.text.len() >= MIN_JOINED));
                rules.patterns.push(Pattern {
                    elems: elems.into(),
                    first,
                    anchor: first,
                    lang,
                    role,
                    joinable,
                    gate: Box::default(),
                    used_for: used_for(role),
                    bracketed: phrase.contains('['),
                    origin: (file as u8, n as u32 + 1),
                });
            }
        }
        for (name, _) in files.iter().filter(|(n, _)| *n != "language.tsv") {
            if counts.get(name).copied().unwrap_or(0) == 0 {
                return Err(format!("{name}: no rules"));
            }
        }
        if markers.is_empty() {
            return Err("language.tsv: no marker words".into());
        }
        for c in Category::ALL {
            if !rules.patterns.iter().any(|p| p.role == Role::Trigger(c)) {
                return Err(format!(
                    "triggers.tsv: no trigger for category {}",
                    c.as_str()
                ));
            }
        }
        // Every word of every pattern goes into the index, so that matching compares nodes.
        let mut patterns = std::mem::take(&mut rules.patterns);
        for p in &mut patterns {
            for e in p.elems.iter_mut() {
                if let Elem::Word(atoms, _) = e {
                    for a in atoms.iter_mut().filter(|a| a.indexable()) {
                        a.node = rules.insert(&a.text) as u32;
                    }
                }
            }
        }
        // The anchor: the word least often met in calls. A common function word (a marker of
        // language.tsv, or a comma) or a short wildcard is met everywhere; then fewer atoms.
        let common: std::collections::HashSet<&str> = markers
            .iter()
            .map(|(w, _)| w.as_str())
            .chain([COMMA])
            .collect();
        let cost = |atoms: &[Atom]| -> usize {
            let frequent = atoms
                .iter()
                .any(|a| common.contains(&*a.text) || (a.prefix && a.text.len() < 4));
            usize::from(frequent) * 1000 + atoms.len()
        };
        for p in &mut patterns {
            let words = || {
                p.elems.iter().enumerate().filter_map(|(i, e)| match e {
                    Elem::Word(atoms, _) if atoms.iter().all(Atom::indexable) => {
                        Some((i, &atoms[..]))
                    }
                    _ => None,
                })
            };
            let anchor = words()
                .min_by_key(|(_, atoms)| cost(atoms))
                .map_or(p.first, |(i, _)| i);
            let gate = words()
                .filter(|&(i, _)| i != anchor)
                .min_by_key(|(_, atoms)| cost(atoms));
            p.gate = gate
                .map(|(_, atoms)| atoms.iter().map(|a| a.node).collect())
                .unwrap_or_default();
            p.anchor = anchor;
        }
        rules.patterns = patterns;
        for id in 0..rules.patterns.len() {
            let Elem::Word(atoms, _) = &rules.patterns[id].elems[rules.patterns[id].anchor] else {
                unreachable!()
            };
            let keys: Vec<(String, bool)> = atoms
                .iter()
                .map(|a| (a.text.to_string(), a.prefix))
                .collect();
            for (text, prefix) in keys {
                let node = rules.insert(&text);
                let list = if prefix {
                    &mut rules.nodes[node].prefix
                } else {
                    &mut rules.nodes[node].exact
                };
                if !list.contains(&(id as u32)) {
                    list.push(id as u32);
                }
            }
        }
        for (word, lang) in markers {
            let node = rules.insert(&word);
            rules.nodes[node].marker |= lang;
        }
        for p in &rules.patterns {
            if let (Role::Dialogue(Dialogue::SecondPerson), [Elem::Word(atoms, _)]) =
                (p.role, &p.elems[..])
            {
                for a in atoms.iter() {
                    if a.prefix || !a.indexable() || !a.text.is_ascii() {
                        return Err(
                            "dialogue.tsv: second_person words are plain ASCII words".into()
                        );
                    }
                    rules.second_person.push(a.text.as_bytes().into());
                }
            }
        }
        rules.dense = vec![0; rules.nodes.len() * DENSE];
        for (at, node) in rules.nodes.iter().enumerate() {
            for &(b, next) in &node.kids {
                if let Some(slot) = dense_slot(b) {
                    rules.dense[at * DENSE + slot] = next;
                }
            }
        }
        Ok(rules)
    }
}

fn parse_trigger<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, level, category, phrase] = f else {
        return Err("expected 4 tab-separated fields: lang, level, category, phrase".into());
    };
    let category =
        Category::parse(category).ok_or_else(|| format!("unknown category {category:?}"))?;
    let level = match *level {
        "urgent" => Level::Urgent,
        "concern" => Level::Concern,
        other => return Err(format!("level must be urgent or concern, not {other:?}")),
    };
    if category.level() != level {
        return Err(format!("category {} is not {level:?}", category.as_str()));
    }
    Ok((Role::Trigger(category), phrase))
}

fn parse_modifier<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let (kind, dir, phrase, window) = match f {
        [_, kind, dir, phrase] => (*kind, *dir, *phrase, None),
        [_, kind, dir, phrase, window] => (*kind, *dir, *phrase, Some(*window)),
        _ => {
            return Err(
                "expected 4 or 5 tab-separated fields: lang, kind, direction, phrase[, window]"
                    .into(),
            );
        }
    };
    if kind == "pseudo" {
        if dir != "-" || window.is_some() {
            return Err("a pseudo phrase has direction - and no window".into());
        }
        return Ok((Role::Pseudo, phrase));
    }
    let kind = Kind::parse(kind).ok_or_else(|| format!("unknown modifier kind {kind:?}"))?;
    let dir = match dir {
        "forward" => Direction::Forward,
        "backward" => Direction::Backward,
        "bidirectional" => Direction::Both,
        other => {
            return Err(format!(
                "direction must be forward, backward or bidirectional, not {other:?}"
            ));
        }
    };
    let window = match window {
        None => u16::MAX,
        Some(w) => match w.parse::<u16>() {
            Ok(n) if (1..=40).contains(&n) => n,
            _ => return Err(format!("window must be 1 to 40 words, not {w:?}")),
        },
    };
    Ok((Role::Modifier { kind, dir, window }, phrase))
}

fn parse_terminator<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, kinds, phrase] = f else {
        return Err("expected 3 tab-separated fields: lang, kinds, phrase".into());
    };
    let mut mask = 0u16;
    for k in kinds.split(',') {
        if k == "all" {
            mask |= Kind::ALL.iter().fold(0, |m, k| m | k.bit());
        } else {
            mask |= Kind::parse(k)
                .ok_or_else(|| format!("unknown modifier kind {k:?}"))?
                .bit();
        }
    }
    Ok((Role::Terminator(mask), phrase))
}

fn parse_dialogue<'a>(f: &[&'a str]) -> Result<(Role, &'a str), String> {
    let [_, kind, phrase] = f else {
        return Err("expected 3 tab-separated fields: lang, kind, phrase".into());
    };
    let kind = match *kind {
        "affirm" => Dialogue::Affirm,
        "deny" => Dialogue::Deny,
        "unsure" => Dialogue::Unsure,
        "open_question" => Dialogue::OpenQuestion,
        "closed_question" => Dialogue::ClosedQuestion,
        "first_person" => Dialogue::FirstPerson,
        "third_person" => Dialogue::ThirdPerson,
        "third_party" => Dialogue::ThirdParty,
        "second_person" => Dialogue::SecondPerson,
        "present" => Dialogue::Present,
        "client" => Dialogue::Client,
        "dispatch" => Dialogue::Dispatch,
        "acute" => Dialogue::Acute,
        "means" => Dialogue::Means,
        "thinner" => Dialogue::Thinner,
        "bleeding" => Dialogue::Bleeding,
        "presence_check" => Dialogue::PresenceCheck,
        other => match other.strip_prefix("inability:").and_then(Category::parse) {
            Some(c) => Dialogue::Inability(c),
            None => return Err(format!("unknown dialogue kind {other:?}")),
        },
    };
    Ok((Role::Dialogue(kind), phrase))
}

/// Parses a phrase: words separated by spaces, each `a|b*` alternatives with an optional `*`
/// suffix wildcard, `~`/`~N` a gap of up to N words (`~~N` across commas too), `^`/`$` the
/// sentence start/end, `,` a comma, `@cap` a capitalised word; `[`...`]` around some words
/// makes only those the hit (the rest must be there but is not part of it).
fn parse_phrase(phrase: &str) -> Result<Vec<Elem>, String> {
    let parts: Vec<&str> = phrase.split_whitespace().collect();
    let bracketed = phrase.contains('[');
    if (bracketed || phrase.contains(']'))
        && (phrase.matches('[').count() != 1 || phrase.matches(']').count() != 1)
    {
        return Err("brackets must be one [ and one ]".into());
    }
    let mut inside = !bracketed;
    let mut elems = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let mut part: &str = part;
        let opens = part.starts_with('[');
        if opens {
            part = &part[1..];
            inside = true;
        }
        let closes = part.ends_with(']');
        if closes {
            part = &part[..part.len() - 1];
        }
        let elem = if part == "^" {
            if i != 0 {
                return Err("^ must come first".into());
            }
            Elem::Start
        } else if part == "$" {
            if i + 1 != parts.len() {
                return Err("$ must come last".into());
            }
            Elem::End
        } else if let Some(n) = part.strip_prefix('~') {
            let (n, commas) = match n.strip_prefix('~') {
                Some(n) => (n, true),
                None => (n, false),
            };
            let n = if n.is_empty() {
                3
            } else {
                n.parse::<u8>().map_err(|_| format!("bad gap {part:?}"))?
            };
            if !(1..=8).contains(&n) {
                return Err(format!("gap {part:?} must be 1 to 8 words"));
            }
            if !matches!(elems.last(), Some(Elem::Word(..))) {
                return Err("a gap must follow a word".into());
            }
            Elem::Gap { max: n, commas }
        } else {
            let mut atoms = Vec::new();
            for alt in part.split('|') {
                if alt == "@cap" {
                    atoms.push(Atom {
                        text: "".into(),
                        prefix: false,
                        suffix: false,
                        cap: true,
                        node: 0,
                    });
                    continue;
                }
                let (alt, suffix) = match alt.strip_prefix('*') {
                    Some(t) => (t, true),
                    None => (alt, false),
                };
                let (text, prefix) = match alt.strip_suffix('*') {
                    Some(t) => (t, true),
                    None => (alt, false),
                };
                if prefix && suffix {
                    return Err(format!("{alt:?} has a wildcard at both ends"));
                }
                if text != COMMA
                    && !text
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '\'' | '’'))
                {
                    return Err(format!("{alt:?} is not one word"));
                }
                let words = if text == COMMA {
                    vec![COMMA.to_owned()]
                } else {
                    crate::normalise::phrase_words(text).unwrap_or_default()
                };
                if words.len() != 1 || (words[0] == COMMA && text != COMMA) {
                    return Err(format!("{alt:?} is not one word"));
                }
                if (prefix || suffix) && words[0].chars().count() < 3 {
                    return Err(format!("wildcard {alt:?} needs at least 3 letters"));
                }
                atoms.push(Atom {
                    text: words[0].clone().into(),
                    prefix,
                    suffix,
                    cap: false,
                    node: 0,
                });
            }
            Elem::Word(atoms.into(), inside)
        };
        if (opens || closes) && !matches!(elem, Elem::Word(..)) {
            return Err("brackets go around words".into());
        }
        if closes {
            if !bracketed {
                return Err("] without [".into());
            }
            inside = false;
        }
        elems.push(elem);
    }
    if matches!(elems.last(), Some(Elem::Gap { .. })) {
        return Err("a gap must be followed by a word".into());
    }
    if !elems.iter().any(|e| matches!(e, Elem::Word(_, true))) {
        return Err("no word (in the brackets)".into());
    }
    Ok(elems)
}
