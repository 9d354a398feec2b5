//! Unit tests of alerts: escalation steps, windows and messages, and the contacts and times
//! other domain tests build theirs from.

use super::*;
use crate::domain::CallOutcome;

pub(crate) fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub(crate) fn contact(id: i32, priority: i32, window: Option<(&str, &str)>) -> ContactDetail {
    ContactDetail {
        id,
        portal_id: 1,
        name: Some(format!("Contact {id}")),
        contact_number: Some(format!("+4670000000{id}")),
        contact_email: None,
        contact_between_start: window.map(|w| w.0.to_string()),
        contact_between_end: window.map(|w| w.1.to_string()),
        priority,
        is_active: true,
        created_at: at("2026-01-01T00:00:00Z"),
        contact_when_final_outpost: true,
    }
}

pub(crate) fn alert() -> Alert {
    Alert {
        id: 7,
        portal_id: 1,
        client_id: 3,
        questionnaire_id: Some(2),
        questionnaire_client_id: Some(7),
        phone_call_id: None,
        client_number: None,
        account_id: None,
        reason: AlertReason::Exhausted,
        category: None,
        words: None,
        status: AlertStatus::Open,
        created_at: at("2026-11-23T09:00:00Z"),
        attempts: vec![AttemptOutcome {
            attempt: 3,
            outcome: CallOutcome::NoAnswer,
            at: at("2026-11-23T09:00:00Z"),
            detail: None,
        }],
        escalation: EscalationState::Notifying,
        next_step_at: Some(at("2026-11-23T09:00:00Z")),
        notifications: Vec::new(),
        acknowledged_at: None,
        acknowledged_by: None,
        note: None,
        outcome: None,
    }
}

pub(crate) fn sent(alert: &mut Alert, step: &Step, now: Timestamp) {
    for c in &step.notify {
        alert.notifications.push(Notification {
            contact_detail_id: c.id,
            name: c.name.clone().unwrap_or_default(),
            round: step.round,
            at: now,
            delivery: Delivery::Sent,
        });
    }
    alert.escalation = step.escalation;
    alert.next_step_at = step.next_step_at;
}

const DELAY: Delays = Delays {
    step: TimeDelta::minutes(30),
    urgent_repeat: TimeDelta::minutes(5),
};

#[test]
fn contacts_are_messaged_in_turn_by_priority_then_all_at_once_then_never_again() {
    let zone = Zone::stockholm();
    let contacts = [
        contact(5, 2, None),
        contact(9, 1, None),
        contact(4, 2, None),
    ];
    let mut alert = alert();
    let mut now = at("2026-11-23T09:00:00Z");
    let mut order = Vec::new();
    for _ in 0..3 {
        let step = next_step(&alert, &contacts, now, &zone, DELAY);
        assert_eq!(step.round, Round::InTurn);
        assert_eq!(step.next_step_at, Some(now + DELAY.step));
        order.push(step.notify[0].id);
        sent(&mut alert, &step, now);
        now += DELAY.step;
    }
    assert_eq!(order, [9, 4, 5]);
    let step = next_step(&alert, &contacts, now, &zone, DELAY);
    assert_eq!(step.round, Round::All);
    assert_eq!(step.notify.len(), 3);
    assert_eq!(step.escalation, EscalationState::AllNotified);
    assert_eq!(step.next_step_at, None);
}

#[test]
fn inactive_and_ordinary_contacts_are_never_messaged() {
    let zone = Zone::stockholm();
    let mut inactive = contact(1, 1, None);
    inactive.is_active = false;
    let mut ordinary = contact(2, 1, None);
    ordinary.contact_when_final_outpost = false;
    let now = at("2026-11-23T09:00:00Z");
    let step = next_step(&alert(), &[inactive, ordinary], now, &zone, DELAY);
    assert!(step.notify.is_empty());
    assert_eq!(step.escalation, EscalationState::NoContacts);
    assert_eq!(step.next_step_at, Some(now + NO_CONTACT_RECHECK));
}

#[test]
fn a_contact_outside_their_window_is_passed_over_until_it_opens() {
    let zone = Zone::stockholm();
    // 09:00 UTC is 10:00 in Stockholm: the first contact's window opens at 14:00.
    let contacts = [contact(1, 1, Some(("14:00", "18:00"))), contact(2, 2, None)];
    let mut alert = alert();
    let now = at("2026-11-23T09:00:00Z");
    let step = next_step(&alert, &contacts, now, &zone, DELAY);
    assert_eq!(step.notify[0].id, 2);
    sent(&mut alert, &step, now);
    let later = now + DELAY.step;
    let step = next_step(&alert, &contacts, later, &zone, DELAY);
    assert!(step.notify.is_empty());
    assert_eq!(step.escalation, EscalationState::WaitingForWindow);
    assert_eq!(step.next_step_at, Some(at("2026-11-23T13:00:00Z")));
    let opened = at("2026-11-23T13:00:00Z");
    let step = next_step(&alert, &contacts, opened, &zone, DELAY);
    assert_eq!(step.notify[0].id, 1);
}

#[test]
fn a_failed_message_does_not_count_as_a_turn() {
    let zone = Zone::stockholm();
    let contacts = [contact(1, 1, None), contact(2, 2, None)];
    let mut alert = alert();
    alert.notifications.push(Notification {
        contact_detail_id: 1,
        name: "Contact 1".into(),
        round: Round::InTurn,
        at: at("2026-11-23T09:00:00Z"),
        delivery: Delivery::Failed,
    });
    let step = next_step(&alert, &contacts, at("2026-11-23T09:05:00Z"), &zone, DELAY);
    assert_eq!(step.notify[0].id, 1);
}

#[test]
fn the_message_names_the_client_and_what_happened_and_nothing_else() {
    let mut alert = alert();
    assert_eq!(
        alert.message("Greta Berg"),
        "Greta Berg did not answer any of 3 questionnaire calls. Please check on them and \
         acknowledge alert 7 in the portal."
    );
    alert.reason = AlertReason::InvalidNumber;
    assert!(alert.message("Greta Berg").contains("does not exist"));
}

#[test]
fn an_open_alert_nobody_was_told_of_counts_once_its_first_delay_has_passed() {
    let delays = Delays::default();
    let opened = at("2026-11-23T09:00:00Z");
    let mut waiting = alert();
    waiting.escalation = EscalationState::NoContacts;
    assert!(!waiting.is_unnotified_at(opened + TimeDelta::minutes(29), delays));
    assert!(waiting.is_unnotified_at(opened + TimeDelta::minutes(30), delays));

    let mut refused = waiting.clone();
    refused.notifications.push(Notification {
        contact_detail_id: 301,
        name: "Contact 301".into(),
        round: Round::InTurn,
        at: opened,
        delivery: Delivery::Failed,
    });
    let later = opened + TimeDelta::hours(2);
    assert!(
        refused.is_unnotified_at(later, delays),
        "a refused SMS told nobody"
    );
    let mut told = refused.clone();
    told.notifications[0].delivery = Delivery::Sent;
    assert!(!told.is_unnotified_at(later, delays));
    let mut acknowledged = waiting.clone();
    acknowledged.status = AlertStatus::Acknowledged;
    assert!(!acknowledged.is_unnotified_at(later, delays));

    let mut urgent = waiting;
    urgent.reason = AlertReason::Urgent;
    assert!(!urgent.is_unnotified_at(opened + TimeDelta::minutes(4), delays));
    assert!(urgent.is_unnotified_at(opened + TimeDelta::minutes(5), delays));
}
