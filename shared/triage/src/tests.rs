//! Smoke cases of the triage: one call per assertion, in both languages, for each trap the
//! rules handle (negation, time, hypotheticals, someone else, figures of speech, agent lines).

use std::sync::LazyLock;

use crate::{CallText, Category, Level, Line, Source, Speaker, triage};

mod signals;

/// The category `triage` gives a call of these caller lines (agent lines between them are
/// none), or "none".
fn said(lines: &[&str]) -> &'static str {
    let transcript: Vec<Line> = lines
        .iter()
        .map(|m| Line {
            by: Speaker::Caller,
            message: m,
        })
        .collect();
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

/// The category of a dialogue written as (speaker, line) pairs, 'a' for agent, 'c' for caller.
fn dialogue(lines: &[(char, &str)]) -> &'static str {
    let transcript: Vec<Line> = lines
        .iter()
        .map(|(who, m)| Line {
            by: if *who == 'a' {
                Speaker::Agent
            } else {
                Speaker::Caller
            },
            message: m,
        })
        .collect();
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

fn summary(text: &str) -> &'static str {
    let call = CallText {
        transcript: &[],
        requests: &[],
        summary: Some(text),
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

/// Asserts that each row's call, read by `triaged` (`said` or `summary`), is triaged as its
/// category (or "none"), and names every row that is not.
fn expect<T: std::fmt::Debug + ?Sized>(triaged: fn(&T) -> &'static str, rows: &[(&T, &str)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter(|(call, want)| triaged(call) != *want)
        .map(|(call, want)| format!("{call:?}: {} (want {want})", triaged(call)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn plain_emergencies_are_urgent_in_both_languages() {
    expect(
        said,
        &[
            (&["Jag har ramlat och kommer inte upp."], "fall"),
            (&["I've fallen and I can't get up."], "fall"),
            (&["Det trycker så över bröstet."], "chest_pain"),
            (&["ja har ont i brostet"], "chest_pain"),
            (&["I have a terrible pain in my chest"], "chest_pain"),
            (&["Jag kan inte andas ordentligt"], "breathing"),
            (&["I can't breathe"], "breathing"),
            (&["Hon sluddrar och mungipan hänger"], "stroke_signs"),
            (&["His face is drooping on one side"], "stroke_signs"),
            (&["Det blöder jättemycket från benet"], "bleeding"),
            (&["Han svimmade nyss"], "unconscious"),
            (&["Jag vill inte leva längre"], "self_harm"),
            (&["I want to end my life"], "self_harm"),
            (&["Det brinner i köket!"], "fire_or_smoke"),
            (&["There's smoke coming from the kitchen"], "fire_or_smoke"),
            (&["Ring en ambulans!"], "asks_for_ambulance"),
            (&["Please call an ambulance"], "asks_for_ambulance"),
            (&["Hjälp!"], "asks_for_ambulance"),
        ],
    );
}

#[test]
fn the_most_severe_category_wins_and_keeps_its_evidence() {
    let transcript = [
        Line {
            by: Speaker::Caller,
            message: "Jag har lite ont i ryggen.",
        },
        Line {
            by: Speaker::Agent,
            message: "Jag förstår.",
        },
        Line {
            by: Speaker::Caller,
            message: "Och igår var det bra. Nu har jag svårt att andas, faktiskt.",
        },
    ];
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    let f = triage(&call).unwrap();
    assert_eq!(
        (f.level, f.category, f.source),
        (Level::Urgent, Category::Breathing, Source::CallerLine(2))
    );
    assert_eq!(f.evidence, "Nu har jag svårt att andas, faktiskt.");
}

#[test]
fn negation_rules_out_in_its_scope_only() {
    expect(
        said,
        &[
            (&["Jag har inte ont i bröstet."], "none"),
            (&["No, I didn't fall."], "none"),
            (&["Jag ramlade inte."], "none"),
            (
                &["Jag har inte ramlat men jag har ont i bröstet"],
                "chest_pain",
            ),
            (&["Jag har ont i bröstet, inte i magen"], "chest_pain"),
            (&["Nej, jag har ramlat!"], "fall"),
            (&["No, I've fallen and I need help"], "fall"),
            (&["Ingen kan hjälpa mig upp"], "fall"),
            (&["Jag har aldrig haft så ont i bröstet"], "chest_pain"),
        ],
    );
}

#[test]
fn past_and_finished_events_are_not_urgent() {
    expect(
        said,
        &[
            (&["I fell last winter, it's fine now."], "none"),
            (&["Jag ramlade förra vintern men det är bra nu."], "none"),
            (&["Jag hade en stroke för fem år sedan."], "none"),
            (&["Jag har haft ont i bröstet sedan i morse."], "chest_pain"),
            (&["I've had chest pain since last night"], "chest_pain"),
        ],
    );
}

#[test]
fn questions_and_hypotheticals_are_not_urgent() {
    expect(
        said,
        &[
            (&["What should I do if I fall?"], "none"),
            (&["Vad ska jag göra om jag ramlar?"], "none"),
            (&["Jag är rädd för att ramla."], "low_mood"),
            (&["Should I call an ambulance?"], "asks_for_ambulance"),
        ],
    );
}

#[test]
fn someone_with_the_client_is_urgent_and_someone_elsewhere_is_not() {
    expect(
        said,
        &[
            (&["Min man har svårt att andas."], "breathing"),
            (
                &["My husband is on the kitchen floor and won't wake up"],
                "unconscious",
            ),
            (&["Min syster som bor i Malmö har ramlat."], "none"),
            (&["I saw a man have a heart attack on TV."], "none"),
            (
                &["Jag tittade på TV när jag fick ont i bröstet."],
                "chest_pain",
            ),
        ],
    );
}

#[test]
fn figures_of_speech_are_not_urgent() {
    expect(
        said,
        &[
            (&["I fell asleep in my chair."], "none"),
            (&["Jag dör av skratt åt det där programmet."], "none"),
            (&["It takes my breath away."], "none"),
            (&["Det föll mig in att ringa."], "none"),
            (&["Vi ses i alla fall på torsdag."], "none"),
        ],
    );
}

#[test]
fn agent_lines_count_only_when_the_caller_says_yes() {
    assert_eq!(dialogue(&[('a', "Har du ramlat?")]), "none");
    assert_eq!(dialogue(&[('a', "Har du ramlat?"), ('c', "Ja.")]), "fall");
    assert_eq!(dialogue(&[('a', "Har du ramlat?"), ('c', "Nej.")]), "none");
    assert_eq!(
        dialogue(&[('a', "Do you have any chest pain?"), ('c', "Yes, I do.")]),
        "chest_pain"
    );
    assert_eq!(
        dialogue(&[
            ('a', "Do you have any chest pain?"),
            ('c', "No, not at all.")
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[('a', "Du har väl inte ramlat?"), ('c', "Jo.")]),
        "fall"
    );
    assert_eq!(
        dialogue(&[('a', "Har du ramlat någon gång?"), ('c', "Ja, förra året.")]),
        "none"
    );
    assert_eq!(
        dialogue(&[('a', "Vet du vad du ska göra om du ramlar?"), ('c', "Ja.")]),
        "none"
    );
    let transcript = [
        Line {
            by: Speaker::Agent,
            message: "Okej. Har du svårt att andas?",
        },
        Line {
            by: Speaker::Caller,
            message: "Ja",
        },
    ];
    let f = triage(&CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    })
    .unwrap();
    assert_eq!(f.source, Source::CallerLine(1));
    assert_eq!(f.evidence, "Har du svårt att andas? — Ja");
}

#[test]
fn the_summary_in_third_person_speaks_of_the_client() {
    expect(
        summary,
        &[
            ("Brukaren har ramlat och kommer inte upp.", "fall"),
            ("The client fell and cannot get up.", "fall"),
            (
                "The client denies chest pain and shortness of breath.",
                "none",
            ),
            ("Kunden mår bra och har inga besvär.", "none"),
        ],
    );
}

#[test]
fn concerns_are_found_when_nothing_is_urgent() {
    expect(
        said,
        &[
            (&["Jag har så ont i ryggen."], "pain"),
            (&["I forgot to take my pills this morning."], "medication"),
            (&["Jag har ingen aptit alls."], "not_eating"),
            (&["I feel so lonely these days."], "low_mood"),
            (&["Jag är så förvirrad."], "confusion"),
            (&["Jag mår bra, tack."], "none"),
        ],
    );
}

/// `explain` (the crate's example of that name prints it) shows why a call comes out as it
/// does: every rule phrase found, with the file and line it is written on, then each clause.
#[test]
fn explain_shows_each_line_and_the_rule_phrase_it_found() {
    let shown = crate::explain("A:Har du ramlat? | Ja, i natt | S:The client fell.");
    assert!(shown.contains("triggers=fall"), "{shown}");
    assert!(shown.contains("Trigger(Fall) triggers.tsv:"), "{shown}");
    assert!(shown.lines().count() >= 3, "{shown}");
}

/// The rows of a labelled-calls file: `label<TAB>lines`, `#` lines and blank lines skipped.
fn rows(file: &'static str) -> Vec<(&'static str, &'static str)> {
    file.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            line.split_once('\t')
                .unwrap_or_else(|| panic!("a row without a tab: {line}"))
        })
        .collect()
}

/// Calls written for this crate in words of their own (`tests/data/paraphrases.tsv`).
static PARAPHRASES: LazyLock<Vec<(&str, &str)>> =
    LazyLock::new(|| rows(include_str!("../tests/data/paraphrases.tsv")));

/// Triages a row of `PARAPHRASES`: its category, or "none".
fn paraphrase(text: &str) -> &'static str {
    let (transcript, requests, summary) = crate::written_call(text);
    let call = CallText {
        transcript: &transcript,
        requests: &requests,
        summary,
    };
    triage(&call).map_or("none", |f| f.category.as_str())
}

/// The rows of a labelled-calls file that `paraphrase` reads otherwise, each said.
fn mislabelled(rows: &[(&str, &str)]) -> Vec<String> {
    rows.iter()
        .filter_map(|(want, text)| {
            let got = paraphrase(text);
            (got != *want).then(|| format!("expected {want}, got {got}: {text}"))
        })
        .collect()
}

#[test]
fn calls_written_apart_from_the_evaluation_sets_are_triaged_as_labelled() {
    assert!(PARAPHRASES.len() >= 300, "{} rows", PARAPHRASES.len());
    let wrong = mislabelled(&PARAPHRASES);
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        PARAPHRASES.len(),
        wrong.join("\n")
    );
}

/// Smoke rows of the later rounds' rule families (`tests/data/families.tsv`).
static FAMILIES: LazyLock<Vec<(&str, &str)>> =
    LazyLock::new(|| rows(include_str!("../tests/data/families.tsv")));

#[test]
fn every_rule_familys_smoke_rows_are_triaged_as_labelled() {
    assert!(FAMILIES.len() >= 200, "{} rows", FAMILIES.len());
    let wrong = mislabelled(&FAMILIES);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Emergencies two red teams wrote to break the rules (`tests/data/red_team.tsv`, then
/// `red_team_2.tsv`, written after the first one's were fixed).
static RED_TEAM: LazyLock<Vec<(&str, &str)>> = LazyLock::new(|| {
    let mut all = rows(include_str!("../tests/data/red_team.tsv"));
    all.extend(rows(include_str!("../tests/data/red_team_2.tsv")));
    all
});

/// How many of `RED_TEAM` the rules still miss (docs/triage.md, "Emergencies written to break
/// the rules"): the figure may only fall.
const RED_TEAM_MISSED: usize = 207;

#[test]
fn emergencies_written_to_break_the_rules_are_found() {
    let missed: Vec<&str> = RED_TEAM
        .iter()
        .filter(|(_, text)| unseen(text) == "calm")
        .map(|(_, text)| *text)
        .collect();
    assert!(
        missed.len() <= RED_TEAM_MISSED,
        "{} of {} missed (at most {RED_TEAM_MISSED}):\n{}",
        missed.len(),
        RED_TEAM.len(),
        missed.join("\n")
    );
}

/// Unseen wordings of every urgent category and trap (`tests/data/unseen.tsv`).
static UNSEEN_CALLS: LazyLock<Vec<(&str, &str)>> =
    LazyLock::new(|| rows(include_str!("../tests/data/unseen.tsv")));

/// The urgent category `triage` gives a row of `UNSEEN_CALLS`, or "calm".
fn unseen(text: &str) -> &'static str {
    let category = paraphrase(text);
    Category::ALL
        .iter()
        .find(|c| c.as_str() == category && c.level() == Level::Urgent)
        .map_or("calm", |c| c.as_str())
}

#[test]
fn unseen_wordings_of_every_urgent_category_and_trap_are_triaged_as_labelled() {
    let (mut urgent, mut urgent_hit, mut calm, mut false_alarms) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for (want, text) in UNSEEN_CALLS.iter() {
        let got = unseen(text);
        if *want == "calm" {
            calm += 1;
            false_alarms += usize::from(got != "calm");
        } else {
            urgent += 1;
            urgent_hit += usize::from(got != "calm");
        }
        if got != *want {
            wrong.push(format!("expected {want}, got {got}: {text}"));
        }
    }
    println!(
        "unseen calls: {} rows, urgent {urgent_hit}/{urgent}, false alarms {false_alarms}/{calm}",
        UNSEEN_CALLS.len()
    );
    assert!(UNSEEN_CALLS.len() >= 60);
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        UNSEEN_CALLS.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_callers_short_echo_of_the_agents_words_reports_nothing() {
    assert_eq!(
        dialogue(&[
            ('a', "Have you had any chest pain?"),
            ('c', "Chest pain? No, dear.")
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[('a', "Har du ramlat?"), ('c', "Ramlat? Nej då.")]),
        "none"
    );
    // A longer question still reports what it says.
    assert_eq!(
        said(&["I can't breathe properly, can you send someone?"]),
        "breathing"
    );
}

#[test]
fn spoken_swedish_forms_read_as_the_written_ones() {
    assert_eq!(said(&["Hon rör sej inte."]), "unconscious");
    assert_eq!(said(&["Jag kan inte resa mej."]), "fall");
}

#[test]
fn a_transcribers_marker_is_one_unheard_word_not_a_clause_break() {
    // A trigger reaches across it...
    assert_eq!(
        said(&["...don't want... [inaudible]... to be here any more..."]),
        "self_harm"
    );
    // ...and so does a negation or a time before it.
    assert_eq!(
        said(&["nej, jag har inte... (ohörbart) ...ramlat."]),
        "none"
    );
    assert_eq!(
        said(&["förra året... (ohörbart) ...bröt handleden..."]),
        "none"
    );
    // A longer aside in parentheses is prose, not a marker.
    assert_eq!(
        said(&["I fell (the rug by the door, again) and can't get up"]),
        "fall"
    );
}

#[test]
fn a_short_text_with_too_few_marker_words_is_read_in_both_languages() {
    // "i" is the only marker word: English "I", and Swedish "in".
    assert_eq!(said(&["Brandvarnaren tjuter i hallen!"]), "fire_or_smoke");
    assert_eq!(summary("Brandvarnare larmar, rök i kök."), "fire_or_smoke");
    assert_eq!(said(&["I fell."]), "fall");
    // Two marker words of each language and more of one still read that one alone.
    assert_eq!(
        said(&["Jag mår bra i alla fall, och det är skönt."]),
        "none"
    );
}

#[test]
fn self_harm_said_of_the_client_in_the_third_person_or_to_ni_is_urgent() {
    expect(
        summary,
        &[
            ("Brukaren vill ta sitt liv.", "self_harm"),
            ("Brukaren önskar få dö.", "self_harm"),
            ("She says she wants to harm herself.", "self_harm"),
        ],
    );
    assert_eq!(
        dialogue(&[('a', "Jag vill att någon kommer till er nu."), ('c', "Ja.")]),
        "other_emergency"
    );
}

#[test]
fn a_no_to_can_you_get_up_counts_when_the_agent_says_ni_and_a_notes_sob_is_breathing() {
    assert_eq!(dialogue(&[('a', "Kan ni resa er?"), ('c', "Nej.")]), "fall");
    assert_eq!(
        dialogue(&[('a', "Får ni luft?"), ('c', "Nej.")]),
        "breathing"
    );
    assert_eq!(summary("SOB at rest."), "breathing");
    assert_eq!(said(&["I had a good sob at the film."]), "none");
}

#[test]
fn a_fire_put_out_is_over_and_one_that_cannot_be_is_not() {
    expect(
        said,
        &[
            (
                &["Pan caught fire, I smothered it with a tea towel."],
                "none",
            ),
            (
                &["Flottet tog eld, men jag la på locket och det slocknade direkt."],
                "none",
            ),
            (
                &["The pan caught fire and I can't put it out!"],
                "fire_or_smoke",
            ),
            (&["Fire in the kitchen, get out at once!"], "fire_or_smoke"),
        ],
    );
}
