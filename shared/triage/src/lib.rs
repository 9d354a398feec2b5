//! Deterministic triage of a finished call: `urgent` (someone must reach the client within
//! minutes), `concern` (staff should see it) or nothing, with a category. Owns the public API;
//! the word lists and rules are data in `rules/` (see `rules/SOURCES.md`), applied with
//! ConText-style scopes (negated, historical, hypothetical, someone elsewhere, figurative) in
//! `context`. Only the caller's lines, the noted requests and the summary count; an agent's
//! yes/no question counts when the caller answers it with a short yes, and an agent's promise
//! that help is coming makes the call urgent whatever the caller said.

mod context;
mod normalise;
mod rules;

use context::Analyser;

/// How soon someone must act on a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// A person must reach the client within minutes.
    Urgent,
    /// Staff should see it.
    Concern,
}

impl Level {
    /// The level's wire name: `urgent` or `concern`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Urgent => "urgent",
            Level::Concern => "concern",
        }
    }
}

/// What a finding is about. The urgent ones come first, in the order `triage` prefers them
/// when a call holds several (the most time-critical first), then the concern ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Unconscious, fainted, cannot be woken (urgent).
    Unconscious,
    /// Cannot breathe, short of breath, choking (urgent).
    Breathing,
    /// Chest pain or pressure, heart attack (urgent).
    ChestPain,
    /// Face drooping, arm weakness, slurred speech, stroke (urgent).
    StrokeSigns,
    /// Heavy bleeding, bleeding that will not stop, vomiting or coughing blood (urgent).
    Bleeding,
    /// Fire, smoke, a smell of burning (urgent).
    FireOrSmoke,
    /// Wants to die, self-harm, suicide (urgent).
    SelfHarm,
    /// Has fallen, on the floor, cannot get up (urgent).
    Fall,
    /// Asks for an ambulance or 112 (urgent).
    AsksForAmbulance,
    /// Another emergency: seizure, severe allergic reaction, overdose, intruder... (urgent).
    OtherEmergency,
    /// Pain (concern).
    Pain,
    /// Medication missed, run out, wrong or with side effects (concern).
    Medication,
    /// Confusion or memory trouble (concern).
    Confusion,
    /// Not eating or drinking (concern).
    NotEating,
    /// Low mood, loneliness, sadness (concern).
    LowMood,
    /// Another thing staff should see (concern).
    Other,
}

impl Category {
    /// Every category, most severe first.
    pub const ALL: [Category; 16] = [
        Category::Unconscious,
        Category::Breathing,
        Category::ChestPain,
        Category::StrokeSigns,
        Category::Bleeding,
        Category::FireOrSmoke,
        Category::SelfHarm,
        Category::Fall,
        Category::AsksForAmbulance,
        Category::OtherEmergency,
        Category::Pain,
        Category::Medication,
        Category::Confusion,
        Category::NotEating,
        Category::LowMood,
        Category::Other,
    ];

    /// The category's snake_case wire name, e.g. `chest_pain`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Unconscious => "unconscious",
            Category::Breathing => "breathing",
            Category::ChestPain => "chest_pain",
            Category::StrokeSigns => "stroke_signs",
            Category::Bleeding => "bleeding",
            Category::FireOrSmoke => "fire_or_smoke",
            Category::SelfHarm => "self_harm",
            Category::Fall => "fall",
            Category::AsksForAmbulance => "asks_for_ambulance",
            Category::OtherEmergency => "other_emergency",
            Category::Pain => "pain",
            Category::Medication => "medication",
            Category::Confusion => "confusion",
            Category::NotEating => "not_eating",
            Category::LowMood => "low_mood",
            Category::Other => "other",
        }
    }

    /// The category with this wire name, if any.
    pub fn parse(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The modifier kinds that rule nothing out for this category.
    pub(crate) fn kinds_that_rule_nothing_out(self) -> u16 {
        match self {
            // A death wish is said in the conditional ("it would be easier if I didn't wake
            // up"): for self-harm an "if" rules nothing out.
            Category::SelfHarm => rules::Kind::Hypothetical.bit(),
            // A fire is a fire whatever burns: a shed, a hedge or the dog's basket near it
            // ("the shed is on fire").
            Category::FireOrSmoke => rules::Kind::NotPerson.bit(),
            // Stroke signs that pass are a TIA: "ring 112 även om symtomen går över".
            Category::StrokeSigns => rules::Kind::Resolved.bit(),
            _ => 0,
        }
    }

    /// The level every finding of this category has.
    pub fn level(self) -> Level {
        if self < Category::Pain {
            Level::Urgent
        } else {
            Level::Concern
        }
    }
}

/// Who said a transcript line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    /// The AI voice agent.
    Agent,
    /// The client (or whoever answered the client's phone).
    Caller,
    /// Anything else (system notes, tool output); never counts.
    Other,
}

/// One line of a call's transcript.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// Who said it.
    pub by: Speaker,
    /// What was said.
    pub message: &'a str,
}

/// Everything the service knows of a call after it ended.
#[derive(Clone, Copy, Debug)]
pub struct CallText<'a> {
    /// The transcript lines, in order.
    pub transcript: &'a [Line<'a>],
    /// The client requests the agent noted.
    pub requests: &'a [&'a str],
    /// The AI summary, once written (third person: "the client" is the client).
    pub summary: Option<&'a str>,
}

/// Where the words behind a finding came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A caller line, by index into `CallText::transcript` (for a confirmed agent question,
    /// the caller's answer).
    CallerLine(usize),
    /// A request, by index into `CallText::requests`.
    Request(usize),
    /// The summary.
    Summary,
    /// An agent line, by index into `CallText::transcript`: the agent told the client that
    /// help is on its way.
    AgentLine(usize),
}

/// The most severe thing found in a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// How soon someone must act.
    pub level: Level,
    /// What it is about.
    pub category: Category,
    /// The words that triggered it: the whole sentence (for a confirmed agent question, the
    /// question and the caller's answer).
    pub evidence: String,
    /// Where those words came from.
    pub source: Source,
}

/// Triage a call: the most severe finding (urgent over concern; among urgent ones the order
/// of `Category::ALL`; among equals the first in transcript, requests, summary order), or
/// `None` when nothing in the caller's words, the requests or the summary calls for staff.
pub fn triage(call: &CallText) -> Option<Finding> {
    let rules = match &*rules::RULES {
        Ok(rules) => rules,
        // Unreachable in a build whose tests pass (the rules are compiled in and a unit test
        // parses them); if it ever happens, escalate every call rather than miss one.
        Err(e) => {
            return Some(Finding {
                level: Level::Urgent,
                category: Category::OtherEmergency,
                evidence: format!("triage rules failed to load: {e}"),
                source: Source::Summary,
            });
        }
    };
    thread_local! {
        /// The buffers of this thread's last call, reused by the next one.
        static ANALYSER: std::cell::RefCell<Option<Analyser<'static>>> = const { std::cell::RefCell::new(None) };
    }
    ANALYSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            let analyser = slot.get_or_insert_with(|| Analyser::new(rules));
            analyser.reset();
            read(analyser, call)
        }
        // Re-entered on this thread (not possible today): a fresh analyser.
        Err(_) => read(&mut Analyser::new(rules), call),
    })
}

/// Reads a call into `analyser` and returns its finding.
fn read(analyser: &mut Analyser, call: &CallText) -> Option<Finding> {
    let lines = call.transcript;
    for (i, line) in lines.iter().enumerate() {
        match line.by {
            Speaker::Caller => analyser.caller_line(line.message, i),
            Speaker::Agent => {
                // The caller's answer: the next line that is not `Other`, if it is the caller's.
                let reply = lines[i + 1..]
                    .iter()
                    .enumerate()
                    .find(|(_, l)| l.by != Speaker::Other)
                    .filter(|(_, l)| l.by == Speaker::Caller)
                    .map(|(k, l)| (l.message, i + 1 + k));
                analyser.agent_line(line.message, i, reply);
            }
            Speaker::Other => {}
        }
    }
    for (i, request) in call.requests.iter().enumerate() {
        analyser.request(request, i);
    }
    if let Some(summary) = call.summary {
        analyser.summary(summary);
    }
    let found = analyser.finish(call);
    if found.as_ref().is_some_and(|f| f.level == Level::Urgent) {
        return found;
    }
    // The agent told the client help is coming: a person must be told, whatever the words
    // before it (a symptom the rules do not know yet still gets its alarm). Or the caller
    // stopped answering mid-call: the agent's "are you still there?" went unanswered to the
    // end.
    let agent_saw = analyser
        .dispatched(call)
        .map(|said| (Category::OtherEmergency, said))
        .or_else(|| {
            analyser
                .went_silent(call)
                .map(|said| (Category::Unconscious, said))
        });
    match agent_saw {
        Some((category, (line, evidence))) => Some(Finding {
            level: Level::Urgent,
            category,
            evidence,
            source: Source::AgentLine(line),
        }),
        None => found,
    }
}

/// Parses the rules now, so that the first call to `triage` does not (a service starts this on
/// a thread of its own while its first request waits on the network).
pub fn warm() {
    let _ = &*rules::RULES;
}

/// How the rules read `text`, line by line, for someone changing them: lines separated by
/// " | ", an agent's line starting "A:", the summary "S:", the caller's otherwise
/// (`cargo run -p triage --example explain -- 'A:Har du ramlat? | Ja'`).
pub fn explain(text: &str) -> String {
    let Ok(rules) = rules::RULES.as_ref() else {
        return "the rules do not load: run validate_rules()".to_string();
    };
    let (transcript, requests, summary) = written_call(text);
    let call = CallText {
        transcript: &transcript,
        requests: &requests,
        summary,
    };
    let mut analyser = context::Analyser::traced(rules);
    let finding = read(&mut analyser, &call);
    format!("{}finding: {finding:?}\n", analyser.dump())
}

/// A call written on one line, as `explain` and the crate's test rows take it: lines separated
/// by " | ", an agent's starting "A:", a request "R:", the summary "S:", the caller's otherwise.
fn written_call(text: &str) -> (Vec<Line<'_>>, Vec<&str>, Option<&str>) {
    let mut transcript = Vec::new();
    let mut requests = Vec::new();
    let mut summary = None;
    for part in text.split(" | ") {
        if let Some(agent) = part.strip_prefix("A:") {
            transcript.push(Line {
                by: Speaker::Agent,
                message: agent,
            });
        } else if let Some(request) = part.strip_prefix("R:") {
            requests.push(request);
        } else if let Some(text) = part.strip_prefix("S:") {
            summary = Some(text);
        } else {
            transcript.push(Line {
                by: Speaker::Caller,
                message: part,
            });
        }
    }
    (transcript, requests, summary)
}

/// Loads and checks the embedded rules; call it at start-up to fail there, not in a call.
/// Returns the problem (file, line, what) when a rule file is malformed.
pub fn validate_rules() -> Result<(), String> {
    rules::RULES.as_ref().map(|_| ()).map_err(Clone::clone)
}

#[cfg(test)]
mod tests;
