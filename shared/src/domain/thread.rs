//! The order of a call thread: the call, its connected legs, and each one's transcript.

use crate::records::PhoneCall;

/// Sorting shared by both stores: transcript by `createdAt` then `id`; connected calls by
/// `startDate` then `id`, after the call itself.
pub fn order_thread(root: PhoneCall, mut connected: Vec<PhoneCall>) -> Vec<PhoneCall> {
    connected.sort_by_key(|call| (call.start_date, call.id));
    let mut thread = Vec::with_capacity(connected.len() + 1);
    thread.push(root);
    thread.extend(connected);
    for call in &mut thread {
        if let Some(lines) = call.transcript.as_mut() {
            lines.sort_by_key(|line| (line.created_at, line.id));
        }
    }
    thread
}
