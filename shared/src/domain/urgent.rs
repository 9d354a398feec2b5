//! Alerts raised by what was said in a call: the triage of a call's text, the alert it opens,
//! the escalation of an urgent one (every reachable contact at once, at any hour, repeated until
//! acknowledged) and the SMS it sends.

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::contact_window;
use crate::domain::alert::{Alert, AlertReason, AlertStatus, EscalationState, Round, Step};
use crate::records::{ContactDetail, Timestamp, TranscriptCategory, TranscriptLine};
use crate::zone::Zone;

/// What a call's alert is about: the first ten are `urgent`, the rest `concern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertCategory {
    Fall,
    ChestPain,
    Breathing,
    StrokeSigns,
    Bleeding,
    Unconscious,
    SelfHarm,
    FireOrSmoke,
    AsksForAmbulance,
    OtherEmergency,
    Pain,
    NotEating,
    Medication,
    LowMood,
    Confusion,
    Other,
}

impl From<triage::Category> for AlertCategory {
    fn from(category: triage::Category) -> Self {
        use triage::Category as C;
        match category {
            C::Fall => Self::Fall,
            C::ChestPain => Self::ChestPain,
            C::Breathing => Self::Breathing,
            C::StrokeSigns => Self::StrokeSigns,
            C::Bleeding => Self::Bleeding,
            C::Unconscious => Self::Unconscious,
            C::SelfHarm => Self::SelfHarm,
            C::FireOrSmoke => Self::FireOrSmoke,
            C::AsksForAmbulance => Self::AsksForAmbulance,
            C::OtherEmergency => Self::OtherEmergency,
            C::Pain => Self::Pain,
            C::NotEating => Self::NotEating,
            C::Medication => Self::Medication,
            C::LowMood => Self::LowMood,
            C::Confusion => Self::Confusion,
            C::Other => Self::Other,
        }
    }
}

impl AlertCategory {
    /// Whether an alert of this category is `urgent` (the others are `concern`).
    pub fn is_urgent(self) -> bool {
        !matches!(
            self,
            Self::Pain
                | Self::NotEating
                | Self::Medication
                | Self::LowMood
                | Self::Confusion
                | Self::Other
        )
    }

    /// The category as an SMS names it.
    fn described(self) -> &'static str {
        match self {
            Self::Fall => "a fall",
            Self::ChestPain => "chest pain",
            Self::Breathing => "trouble breathing",
            Self::StrokeSigns => "signs of a stroke",
            Self::Bleeding => "bleeding",
            Self::Unconscious => "someone unconscious",
            Self::SelfHarm => "a risk of self-harm",
            Self::FireOrSmoke => "fire or smoke",
            Self::AsksForAmbulance => "a request for an ambulance",
            Self::OtherEmergency => "an emergency",
            Self::Pain => "pain",
            Self::NotEating => "not eating or drinking",
            Self::Medication => "a medication problem",
            Self::LowMood => "low mood",
            Self::Confusion => "confusion",
            Self::Other => "something staff should see",
        }
    }
}

/// What the staff member who acknowledged an alert found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckOutcome {
    /// Someone reached the client and helped.
    Helped,
    /// Somebody had already handled it (the client called 112, a relative was there).
    AlreadyHandled,
    /// Nothing was wrong; the acknowledgement's note says why.
    FalseAlarm,
}

/// What the triage of a call found, ready to become its alert.
#[derive(Debug, Clone, PartialEq)]
pub struct CallFinding {
    pub reason: AlertReason,
    pub category: AlertCategory,
    /// The words that triggered it.
    pub words: String,
}

/// The longest excerpt of the caller's words kept in an alert, in characters.
pub const MAX_WORDS: usize = 500;

/// Starts parsing the triage's rules on a thread of its own, once per process. A delivery calls
/// this as soon as its signature holds, so that the parse (about 16 ms of one core in a release
/// build) overlaps the delivery's DynamoDB reads instead of adding to a cold start's first
/// answer; a 401 never pays for it.
pub fn warm_triage() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        // Without a thread the first triage parses the rules itself.
        let _ = std::thread::Builder::new()
            .name("triage-rules".into())
            .spawn(triage::warm);
    });
}

/// Triages a call's text: its transcript lines (the caller's and the agent's), the requests the
/// agent noted and the summary. `None` when nothing calls for staff.
pub fn triage_call(
    lines: &[TranscriptLine],
    requests: &[&str],
    summary: Option<&str>,
) -> Option<CallFinding> {
    let transcript: Vec<triage::Line> = lines
        .iter()
        .map(|line| triage::Line {
            by: match line.category {
                TranscriptCategory::Caller => triage::Speaker::Caller,
                TranscriptCategory::Agent => triage::Speaker::Agent,
                TranscriptCategory::System => triage::Speaker::Other,
            },
            message: line.message.as_deref().unwrap_or_default(),
        })
        .collect();
    let text = triage::CallText {
        transcript: &transcript,
        requests,
        summary,
    };
    // A fault in the rules must neither lose the call (a panic would fail the delivery that
    // stores it) nor hide an emergency: the call is escalated for a person to read.
    let finding = match std::panic::catch_unwind(|| triage::triage(&text)) {
        Ok(finding) => finding?,
        Err(_) => {
            tracing::error!(
                "the triage failed on a call; escalated as urgent for a person to read"
            );
            return Some(CallFinding {
                reason: AlertReason::Urgent,
                category: AlertCategory::OtherEmergency,
                words: "The automatic triage failed on this call: please read it.".into(),
            });
        }
    };
    Some(CallFinding {
        reason: match finding.level {
            triage::Level::Urgent => AlertReason::Urgent,
            triage::Level::Concern => AlertReason::Concern,
        },
        category: finding.category.into(),
        words: finding.evidence.chars().take(MAX_WORDS).collect(),
    })
}

impl CallFinding {
    /// Whether this finding should replace `other` as a call's alert: urgent over concern.
    pub fn outranks(&self, other: AlertReason) -> bool {
        self.reason == AlertReason::Urgent && other != AlertReason::Urgent
    }
}

/// Where a call's alert comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOrigin {
    pub portal_id: i32,
    /// 0 for a caller who is no client of the portal.
    pub client_id: i32,
    pub phone_call_id: i32,
    /// The client's side of the call.
    pub client_number: Option<String>,
}

impl Alert {
    /// The alert of a call whose triage found `finding`, escalated at once. Its id is given
    /// by the store when it is written.
    pub fn of_call(origin: CallOrigin, finding: CallFinding, at: Timestamp) -> Self {
        Self {
            phone_call_id: Some(origin.phone_call_id),
            client_number: origin.client_number,
            category: Some(finding.category),
            words: Some(finding.words),
            ..Self::opened(origin.portal_id, origin.client_id, finding.reason, at)
        }
    }

    /// The alert raised to urgent by a later, more severe finding of its call (an analysis
    /// after the transcript): open again if a concern was acknowledged meanwhile, and escalated
    /// at once, with what was sent so far kept.
    pub fn raised_to(&self, finding: CallFinding, now: Timestamp) -> Self {
        Self {
            reason: finding.reason,
            category: Some(finding.category),
            words: Some(finding.words),
            status: AlertStatus::Open,
            escalation: EscalationState::Notifying,
            next_step_at: Some(now),
            acknowledged_at: None,
            acknowledged_by: None,
            note: None,
            outcome: None,
            ..self.clone()
        }
    }
}

/// The next round of an open urgent alert at `now`: every active final-outpost contact with a
/// number who is inside their window; when none is, every active contact with a number, at any
/// hour. The round is repeated every `repeat` until staff acknowledge the alert; with nobody to
/// message at all it is looked at again as often, so that a contact added meanwhile is reached.
pub(crate) fn next_step(
    alert: &Alert,
    contacts: &[ContactDetail],
    now: Timestamp,
    zone: &Zone,
    repeat: TimeDelta,
) -> Step {
    let reachable: Vec<&ContactDetail> = contacts
        .iter()
        .filter(|c| {
            c.is_active
                && c.portal_id == alert.portal_id
                && c.contact_number.as_deref().is_some_and(|n| !n.is_empty())
        })
        .collect();
    let on_duty: Vec<ContactDetail> = reachable
        .iter()
        .filter(|c| c.contact_when_final_outpost && contact_window::is_active(c, now, zone))
        .map(|c| (*c).clone())
        .collect();
    let mut notify = if on_duty.is_empty() {
        reachable.into_iter().cloned().collect()
    } else {
        on_duty
    };
    contact_window::sort(&mut notify);
    let escalation = if notify.is_empty() {
        EscalationState::NoContacts
    } else {
        EscalationState::Notifying
    };
    Step {
        notify,
        round: Round::All,
        escalation,
        next_step_at: Some(now + repeat),
    }
}

/// The SMS of a call's alert: the category, the client's name and number and the alert id;
/// never the caller's words.
pub(crate) fn message(alert: &Alert, client_name: &str) -> String {
    let category = alert
        .category
        .map_or("an emergency", AlertCategory::described);
    let number = alert
        .client_number
        .as_deref()
        .map(|number| format!(" ({number})"))
        .unwrap_or_default();
    match alert.reason {
        AlertReason::Urgent => format!(
            "URGENT: {client_name}{number} described {category} in a call just now. Call them \
             or send help at once, then acknowledge alert {} in the portal.",
            alert.id
        ),
        _ => format!(
            "{client_name}{number} mentioned {category} in a call. Please look at alert {} in \
             the portal.",
            alert.id
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::alert::tests::{at, contact};

    const REPEAT: TimeDelta = TimeDelta::minutes(5);

    fn urgent() -> Alert {
        Alert::of_call(
            CallOrigin {
                portal_id: 1,
                client_id: 3,
                phone_call_id: 40,
                client_number: Some("+46701234567".into()),
            },
            CallFinding {
                reason: AlertReason::Urgent,
                category: AlertCategory::Fall,
                words: "I fell and I can't get up".into(),
            },
            at("2026-11-23T02:00:00Z"),
        )
    }

    fn line(category: TranscriptCategory, message: &str) -> TranscriptLine {
        TranscriptLine {
            id: 0,
            created_at: at("2026-11-23T02:00:00Z"),
            by: None,
            message: Some(message.into()),
            phone_call_id: 0,
            category,
        }
    }

    #[test]
    fn every_contact_in_their_window_is_messaged_at_once_and_again_after_the_repeat() {
        let zone = Zone::stockholm();
        // 03:00 in Stockholm: only the night contact is inside a window.
        let night = contact(1, 2, Some(("22:00", "07:00")));
        let day = contact(2, 1, Some(("07:00", "16:00")));
        let now = at("2026-11-23T02:00:00Z");
        let step = next_step(&urgent(), &[night, day], now, &zone, REPEAT);
        assert_eq!(step.notify.iter().map(|c| c.id).collect::<Vec<_>>(), [1]);
        assert_eq!(step.round, Round::All);
        assert_eq!(step.next_step_at, Some(now + REPEAT));
    }

    #[test]
    fn when_nobody_is_inside_a_window_every_active_contact_with_a_number_is_messaged() {
        let zone = Zone::stockholm();
        let day = contact(2, 1, Some(("07:00", "16:00")));
        let mut ordinary = contact(3, 2, Some(("08:00", "09:00")));
        ordinary.contact_when_final_outpost = false;
        let mut inactive = contact(4, 1, None);
        inactive.is_active = false;
        let mut no_number = contact(5, 1, None);
        no_number.contact_number = None;
        no_number.contact_when_final_outpost = false;
        let now = at("2026-11-23T02:00:00Z");
        let step = next_step(
            &urgent(),
            &[day, ordinary, inactive, no_number],
            now,
            &zone,
            REPEAT,
        );
        assert_eq!(step.notify.iter().map(|c| c.id).collect::<Vec<_>>(), [2, 3]);
    }

    #[test]
    fn with_nobody_to_message_the_alert_is_looked_at_again_after_the_repeat() {
        let now = at("2026-11-23T02:00:00Z");
        let step = next_step(&urgent(), &[], now, &Zone::stockholm(), REPEAT);
        assert!(step.notify.is_empty());
        assert_eq!(step.escalation, EscalationState::NoContacts);
        assert_eq!(step.next_step_at, Some(now + REPEAT));
    }

    #[test]
    fn the_sms_names_the_category_client_number_and_alert_but_never_the_words() {
        let mut alert = urgent();
        alert.id = 12;
        let sms = alert.message("Greta Berg");
        assert_eq!(
            sms,
            "URGENT: Greta Berg (+46701234567) described a fall in a call just now. Call them or \
             send help at once, then acknowledge alert 12 in the portal."
        );
        assert!(!sms.contains("get up"));
    }

    #[test]
    fn a_call_is_triaged_on_the_callers_words_not_the_agents() {
        let said = [
            line(
                TranscriptCategory::Agent,
                "Hello, this is your weekly call.",
            ),
            line(TranscriptCategory::Caller, "I fell and I can't get up."),
        ];
        let finding = triage_call(&said, &[], None).expect("a fall is found");
        assert_eq!(finding.reason, AlertReason::Urgent);
        assert_eq!(finding.category, AlertCategory::Fall);
        let agent_only = [line(
            TranscriptCategory::Agent,
            "If you ever fall, press your alarm button.",
        )];
        assert_eq!(triage_call(&agent_only, &[], None), None);
    }

    #[test]
    fn a_very_long_call_is_triaged_and_an_emergency_at_its_end_is_found() {
        let mut said: Vec<TranscriptLine> = (0..3000)
            .map(|_| {
                line(
                    TranscriptCategory::Caller,
                    "And then we talked about the visits and the weather.",
                )
            })
            .collect();
        assert_eq!(triage_call(&said, &[], None), None);
        said.push(line(
            TranscriptCategory::Caller,
            "Now I have a terrible pain in my chest.",
        ));
        let finding = triage_call(&said, &[], None).expect("found at the end");
        assert_eq!(finding.category, AlertCategory::ChestPain);
    }

    #[test]
    fn an_urgent_finding_outranks_a_concern_and_nothing_outranks_urgent() {
        let finding = |reason| CallFinding {
            reason,
            category: AlertCategory::Pain,
            words: String::new(),
        };
        assert!(finding(AlertReason::Urgent).outranks(AlertReason::Concern));
        assert!(!finding(AlertReason::Urgent).outranks(AlertReason::Urgent));
        assert!(!finding(AlertReason::Concern).outranks(AlertReason::Concern));
    }
}
