//! Smoke cases of the call-wide signals read beside the triggers: the agent's promise of help,
//! a sign of acuity that raises a concern, and the means of a suicide at hand.

use super::*;

#[test]
fn an_agent_promising_help_now_makes_the_call_urgent_whatever_the_caller_said() {
    assert_eq!(
        dialogue(&[
            ('c', "the thing in the hall is doing that noise again"),
            ('a', "I'm sending help right now. Please go outside."),
        ]),
        "other_emergency"
    );
    assert_eq!(
        dialogue(&[
            ('c', "det känns så konstigt i hela mig"),
            ('a', "Jag ser till att någon kommer till dig direkt."),
        ]),
        "other_emergency"
    );
    assert_eq!(
        dialogue(&[('c', "mm ... so tired"), ('a', "Help is on the way.")]),
        "other_emergency"
    );
}

#[test]
fn an_agent_asking_explaining_or_sending_paperwork_is_no_promise_of_help() {
    assert_eq!(
        dialogue(&[
            ('c', "I wanted to ask about the price list"),
            ('a', "I'll ask the office to send you the price list."),
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[
            ('c', "vad händer om jag ramlar i natt"),
            ('a', "Om du ramlar skickar vi hjälp, tryck bara på larmet."),
        ]),
        "none"
    );
    assert_eq!(
        dialogue(&[
            ('c', "I'm fine, just lonely"),
            ('a', "Shall I send someone round to see you now?"),
            ('c', "oh no, that's all right, tomorrow is fine"),
        ]),
        "low_mood"
    );
}

#[test]
fn the_agents_promise_is_the_evidence_and_its_line_the_source() {
    let transcript = [
        Line {
            by: Speaker::Caller,
            message: "there's grey stuff everywhere",
        },
        Line {
            by: Speaker::Agent,
            message: "Stay low. I'm sending help now.",
        },
    ];
    let call = CallText {
        transcript: &transcript,
        requests: &[],
        summary: None,
    };
    let f = triage(&call).expect("a finding");
    assert_eq!(f.level, Level::Urgent);
    assert_eq!(f.evidence, "I'm sending help now.");
    assert_eq!(f.source, Source::AgentLine(1));
}

#[test]
fn a_concern_said_with_a_sign_of_acuity_is_urgent_and_without_one_stays_a_concern() {
    expect(
        said,
        &[
            (&["My back hurts."], "pain"),
            (
                &["My back hurts.", "It came on all of a sudden."],
                "other_emergency",
            ),
            (
                &["Jag har ont i magen.", "Jag är alldeles kallsvettig."],
                "other_emergency",
            ),
        ],
    );
    // Not when the sign is denied, past, or about someone else.
    assert_eq!(said(&["My back hurts.", "It isn't getting worse."]), "pain");
    assert_eq!(
        said(&[
            "My back hurts.",
            "My sister went grey in the face last year."
        ]),
        "pain"
    );
    // Low mood and medication are not raised by a "help me".
    assert_eq!(said(&["I feel so lonely, help me."]), "low_mood");
}

#[test]
fn low_mood_with_the_means_at_hand_is_self_harm_and_without_them_stays_low_mood() {
    expect(
        said,
        &[
            (
                &[
                    "Det är ingen som skulle sakna mig.",
                    "Jag har lagt fram alla mina tabletter på köksbordet.",
                ],
                "self_harm",
            ),
            (
                &[
                    "Nobody would care.",
                    "I've got my coat on. I'm going to the bridge.",
                ],
                "self_harm",
            ),
            (&["Nobody would care."], "low_mood"),
        ],
    );
    // Means denied, or with no low mood in the call, are nothing.
    expect(
        said,
        &[
            (
                &["Nobody would care.", "I haven't got the tablets out, no."],
                "low_mood",
            ),
            (&["I'm going to the bridge to feed the ducks."], "none"),
            (&["Ingen kommer att sakna mig."], "low_mood"),
        ],
    );
    // A pseudo phrase takes back a signal word as it takes back a trigger: Gun is a name.
    assert_eq!(
        said(&["Ingen kommer att sakna mig.", "Ring Gun-Britt i morgon."]),
        "low_mood"
    );
}

#[test]
fn an_escalating_concern_is_not_hidden_behind_one_that_ranks_above_it() {
    // Medication outranks low mood and confusion as a concern, and never escalates itself.
    expect(
        said,
        &[
            (
                &[
                    "I missed my tablets this morning.",
                    "Nobody would care.",
                    "I'm going to the bridge.",
                ],
                "self_harm",
            ),
            (
                &[
                    "I forgot my tablets this morning.",
                    "I'm all muddled, it came on suddenly.",
                ],
                "other_emergency",
            ),
            (&["I forgot my tablets this morning."], "medication"),
        ],
    );
}

#[test]
fn a_cue_that_holds_its_own_negation_is_not_negated_by_it() {
    // "slutar inte" says the pain will not stop; the "inte" is the cue's, not a denial.
    expect(
        said,
        &[
            (
                &["Jag har ont i magen och det slutar inte."],
                "other_emergency",
            ),
            (&["Jag har ont i magen som inte slutar."], "other_emergency"),
            (&["Jag har ont i magen."], "pain"),
        ],
    );
    // A Swedish subordinate clause puts "inte" before the verb.
    assert_eq!(
        said(&["Jag har näsblod som inte går att stoppa."]),
        "bleeding"
    );
}

#[test]
fn a_negation_in_another_clause_does_not_take_back_the_agents_promise() {
    for promise in [
        "Don't worry, help is on the way.",
        "Oroa dig inte, hjälpen är på väg.",
        "Ingen fara, jag skickar hjälp direkt.",
        "I'm sending help right away, don't move.",
    ] {
        assert_eq!(
            dialogue(&[('c', "Hello."), ('a', promise)]),
            "other_emergency",
            "{promise}"
        );
    }
    for no_promise in [
        "I won't send help.",
        "Jag skickar inte hjälp nu.",
        "No, I'm not sending anyone now.",
        "Om du ramlar, skickar vi hjälp.",
    ] {
        assert_eq!(
            dialogue(&[('c', "Hello."), ('a', no_promise)]),
            "none",
            "{no_promise}"
        );
    }
}
