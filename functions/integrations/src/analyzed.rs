//! `call.analyzed`: the platform's summary and analysis merged into its call, or held until
//! the call arrives.

use crate::call_alerts::analysis_alert;
use crate::events::CallAnalyzed;
use shared::error::ApiError;
use shared::ids::{PortalId, QuestionnaireId};
use shared::store::optimistic::{self, LostRace, Round};
use shared::store::{
    AlertWrite, AnalysisHold, Conversation, DeliveryKey, HeldAnalysis, RecordedAnalysis,
};

use crate::ended::warn_unplaced_answers;
use crate::{Delivered, IntegrationsState, repeated};

pub(crate) async fn call_analyzed(
    state: &IntegrationsState,
    portal_id: i32,
    event: &CallAnalyzed,
) -> Result<Delivered, ApiError> {
    let store = &state.store;
    let analysis = event.analysis();
    // A concurrent delivery recorded the conversation or the event meanwhile: read again.
    let mut rounds = optimistic::Rounds::new(optimistic::ROUNDS, "the conversation");
    loop {
        rounds.start().await?;
        let delivery = store
            .delivery_state(DeliveryKey {
                portal_id: PortalId(portal_id),
                event_id: &event.event_id,
                conversation_uuid: &event.conversation_uuid,
                connected_uuid: None,
            })
            .await?;
        if let Some(receipt) = &delivery.receipt {
            return repeated(receipt, &event.conversation_uuid, &delivery);
        }
        let result = match delivery.conversation {
            Some(conversation) => {
                let answers = match conversation.entry {
                    Some(entry) if !analysis.answers.is_empty() => {
                        let questions = store
                            .questions(QuestionnaireId(entry.questionnaire_id))
                            .await?;
                        analysis.answer_records(entry.entry_id, &questions)
                    }
                    Some(_) => Vec::new(),
                    None => {
                        warn_unplaced_answers(&analysis.answers);
                        Vec::new()
                    }
                };
                let alert = analysis_alert(state, portal_id, &conversation, &analysis).await?;
                let recorded = RecordedAnalysis {
                    portal_id,
                    event_id: event.event_id.clone(),
                    conversation_uuid: event.conversation_uuid.clone(),
                    conversation: conversation.clone(),
                    analysis: analysis.clone(),
                    answers,
                    alert,
                };
                store.apply_analysis(&recorded).await.map(|written| {
                    let opened = matches!(recorded.alert, Some(AlertWrite::Open(_)));
                    shared::metrics::alerts_opened(usize::from(opened && written.is_some()));
                    Delivered::Wrote(Conversation {
                        // Only an alert this analysis opened or raised is escalated now.
                        alert: written,
                        ..conversation
                    })
                })
            }
            None => {
                let held = HeldAnalysis {
                    event_id: event.event_id.clone(),
                    analysis: analysis.clone(),
                };
                store
                    .hold_analysis(AnalysisHold {
                        portal_id: PortalId(portal_id),
                        conversation_uuid: &event.conversation_uuid,
                        held: &held,
                    })
                    .await
                    .map(|()| Delivered::Unchanged(None))
            }
        };
        if let Round::Done(delivered) = result.or_lost()? {
            let phone_call_id = match delivered {
                Delivered::Wrote(ref conversation) => Some(conversation.phone_call_id),
                Delivered::Unchanged(call) => call,
                Delivered::Outcome(_) => None,
            };
            tracing::info!(
                portal_id,
                phone_call_id,
                answers = analysis.answers.len(),
                held = phone_call_id.is_none(),
                "call analysis received"
            );
            return Ok(delivered);
        }
    }
}
