//! Where a question may go in a questionnaire, and how many one can hold.

use crate::records::Question;
use crate::store::AddQuestionOutcome;
use crate::store::limits::TRANSACTION_LIMIT;

/// Why a question cannot go in at `position` among `questions`, if it cannot.
pub fn question_refusal(questions: &[Question], position: i32) -> Option<AddQuestionOutcome> {
    let max = questions
        .iter()
        .map(|q| q.position)
        .max()
        .unwrap_or(0)
        .saturating_add(1);
    if questions.len() >= MAX_QUESTIONS {
        Some(AddQuestionOutcome::Full {
            max_questions: MAX_QUESTIONS,
        })
    } else if position > max {
        Some(AddQuestionOutcome::PositionOutOfRange { max })
    } else {
        None
    }
}

/// The most questions a questionnaire holds: inserting at the top shifts all of them, and the
/// shift is one transaction (100 items, two of which are the new question and the version).
pub const MAX_QUESTIONS: usize = TRANSACTION_LIMIT - 2;
