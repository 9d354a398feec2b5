//! Timing of the triage on a long call: a 60-line transcript with requests and a summary,
//! triaged 2,000 times; p50 and p99 are printed. p99 must stay within 1 ms when built with
//! optimisations (`--release`); in the unoptimised dev profile, which CI runs on a busy 2-core
//! machine, within 10 ms (a 1 ms bar there measures the machine, not the triage).

use std::time::{Duration, Instant};

use triage::{CallText, Line, Speaker, triage};

/// Agent and caller lines of an ordinary check-in call, in both languages, as long as the
/// lines of the evaluation sets are on average (caller about 60 characters, agent 50), with
/// the traps the rules look at (negation, time, other people, questions) but no emergency
/// until the end.
const AGENT: [&str; 6] = [
    "Hej, det här är hemtjänstens assistent. Hur mår du i dag?",
    "Har du haft ont någonstans den senaste veckan?",
    "Och hur är det med aptiten, äter du ordentligt?",
    "How have you been sleeping, and are you taking your tablets?",
    "Is there anything the staff can help you with this week?",
    "Tack, jag för det vidare till personalen. Något mer?",
];

const CALLER: [&str; 6] = [
    "Jo tack, det är bra. Min dotter var här i söndags på kaffe.",
    "Nej, inte direkt. Jag ramlade förra vintern men det är bra nu.",
    "Jag äter bra, men jag vill ha mer fisk i matlådorna, tack.",
    "Not too badly. I watched a programme about heart attacks.",
    "Could someone help me with the shopping list on Friday?",
    "Nej, det var allt. Vi hörs nästa vecka, hej då!",
];

/// The p99 bar: 1 ms optimised, 10 ms in the dev profile.
const P99_BAR: Duration = if cfg!(debug_assertions) {
    Duration::from_millis(10)
} else {
    Duration::from_millis(1)
};

#[test]
fn a_sixty_line_call_is_triaged_within_a_millisecond_at_p99_when_optimised() {
    let mut lines: Vec<Line> = Vec::new();
    for i in 0..30 {
        lines.push(Line {
            by: Speaker::Agent,
            message: AGENT[i % AGENT.len()],
        });
        lines.push(Line {
            by: Speaker::Caller,
            message: CALLER[i % CALLER.len()],
        });
    }
    // The emergency comes last, so every line is read.
    lines[59] = Line {
        by: Speaker::Caller,
        message: "Oj, nu får jag så ont i bröstet och svårt att andas.",
    };
    let requests = [
        "Hjälp med inköpslistan på fredag",
        "Byt glödlampan i hallen",
    ];
    let summary = "Brukaren mår bra, ramlade förra vintern utan men. Önskar hjälp med inköp. \
                   I slutet av samtalet fick hon ont i bröstet och svårt att andas.";
    let call = CallText {
        transcript: &lines,
        requests: &requests,
        summary: Some(summary),
    };
    assert_eq!(lines.len(), 60);

    // The first call parses the rules; it is not a call's cost, but a cold start's.
    let start = Instant::now();
    assert_eq!(
        triage(&call).map(|f| f.category.as_str()),
        Some("breathing")
    );
    println!("first call, with the rules parsed: {:?}", start.elapsed());
    let mut times: Vec<Duration> = (0..2_000)
        .map(|_| {
            // Start each run on a fresh time slice: on a busy machine a run cut in two by the
            // scheduler measures the other processes, not the triage.
            std::thread::yield_now();
            let start = Instant::now();
            let finding = triage(&call);
            let took = start.elapsed();
            assert!(finding.is_some());
            took
        })
        .collect();
    times.sort();
    let p50 = times[times.len() / 2];
    let p99 = times[times.len() * 99 / 100];
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "optimised"
    };
    println!("triage of a 60-line call, 2,000 runs ({profile}): p50 {p50:?}, p99 {p99:?}");
    assert!(
        p99 <= P99_BAR,
        "p99 {p99:?} > {P99_BAR:?} ({profile}; p50 {p50:?})"
    );
}
