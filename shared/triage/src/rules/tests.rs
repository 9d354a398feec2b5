//! Unit tests of the rule files' parsing.

use super::*;

#[test]
fn the_embedded_rule_files_parse() {
    if let Err(e) = &*RULES {
        panic!("rules do not parse: {e}");
    }
}

#[test]
fn malformed_rule_lines_are_refused_with_their_place() {
    let ok = "en\tdeny\tno\n";
    let lang = "sv\tjag och\n";
    let cases = [
        (
            "triggers.tsv",
            "en\turgent\tpain\tchest pain\n",
            "category pain is not Urgent",
        ),
        (
            "triggers.tsv",
            "xx\turgent\tfall\tfell\n",
            "language must be",
        ),
        ("triggers.tsv", "en\turgent\tfall\n", "expected 4"),
        (
            "triggers.tsv",
            "en\turgent\tfall\t~ fell\n",
            "a gap must follow a word",
        ),
        (
            "triggers.tsv",
            "en\turgent\tfall\tfe*\n",
            "at least 3 letters",
        ),
        (
            "triggers.tsv",
            "en\turgent\tfall\tfell. down\n",
            "not one word",
        ),
        (
            "modifiers.tsv",
            "en\tnegated\tsideways\tnot\n",
            "direction must be",
        ),
        (
            "modifiers.tsv",
            "en\tpseudo\tforward\tfell asleep\n",
            "direction -",
        ),
        (
            "modifiers.tsv",
            "en\tnegated\tforward\tnot\t0\n",
            "window must be",
        ),
        (
            "terminators.tsv",
            "en\tnegated,oops\tbut\n",
            "unknown modifier kind",
        ),
    ];
    for (file, line, want) in cases {
        let mut files = [
            ("triggers.tsv", String::new()),
            ("modifiers.tsv", "en\tnegated\tforward\tnot\n".to_owned()),
            ("terminators.tsv", "en\tall\tbut\n".to_owned()),
            ("dialogue.tsv", ok.to_owned()),
            ("language.tsv", lang.to_owned()),
        ];
        for f in files.iter_mut().filter(|f| f.0 == file) {
            f.1.push_str(line);
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(n, c)| (*n, c.as_str())).collect();
        let err = Rules::parse(&files).expect_err(line);
        assert!(err.contains(want), "{line:?}: {err}");
        assert!(err.contains(file), "{line:?}: {err}");
    }
}

#[test]
fn a_duplicate_rule_line_is_refused() {
    let mut triggers = String::new();
    for c in Category::ALL {
        let level = if c.level() == Level::Urgent {
            "urgent"
        } else {
            "concern"
        };
        triggers.push_str(&format!(
            "en\t{level}\t{}\tword{}\n",
            c.as_str(),
            c.as_str().replace('_', "")
        ));
    }
    triggers.push_str("en\turgent\tfall\tfell\nen\turgent\tfall\tFell\n");
    let files = [
        ("triggers.tsv", triggers.as_str()),
        ("modifiers.tsv", "en\tnegated\tforward\tnot\n"),
        ("terminators.tsv", "en\tall\tbut\n"),
        ("dialogue.tsv", "en\tdeny\tno\n"),
        ("language.tsv", "en\tthe\n"),
    ];
    let err = Rules::parse(&files).unwrap_err();
    assert!(err.contains("duplicate of triggers.tsv"), "{err}");
}
