//! A phone call as stored: its record and transcript lines, its requests and its answers.

use crate::records::{Answer, ClientRequest, PhoneCall, TranscriptLine};
use crate::store::StoreResult;
use crate::store::dynamo::items::{Item, data_keys, s, to_item};
use crate::store::dynamo::keys;

/// A call's items: its transcript lines and its record (without transcript). A leg connected
/// to another call is also listed, record and lines, under that call in `gsi1`.
pub(crate) fn call_items(
    call: &PhoneCall,
    lines: &[TranscriptLine],
) -> StoreResult<(Vec<Item>, Item)> {
    let pk = keys::call(call.id);
    let connected = |sk: &str| {
        call.connected_to
            .map(|to| (keys::connected_to(to), format!("{pk}#{sk}")))
    };
    let line_items = lines
        .iter()
        .map(|line| {
            let sk = keys::line(line.id);
            to_item(line, data_keys(pk.clone(), sk.clone(), connected(&sk)))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    let bare = PhoneCall {
        transcript: None,
        ..call.clone()
    };
    let record = to_item(
        &bare,
        data_keys(pk.clone(), keys::META.into(), connected(keys::META)),
    )?;
    Ok((line_items, record))
}

/// A request, under its call, and in `gsi2` under its client once it has one.
pub(crate) fn request_item(request: &ClientRequest) -> StoreResult<Item> {
    let keys = data_keys(
        keys::call(request.phone_call_id),
        keys::request(request.id),
        None,
    );
    let mut item = to_item(request, keys)?;
    if request.client_id > 0 {
        item.insert(
            "gsi2pk".into(),
            s(keys::client_requests(request.portal_id, request.client_id)),
        );
    }
    Ok(item)
}

/// An answer, kept with the entries of the client's portal.
pub(crate) fn answer_item(
    questionnaire_id: i32,
    portal_id: i32,
    answer: &Answer,
) -> StoreResult<Item> {
    let keys = data_keys(
        keys::questionnaire_portal(questionnaire_id, portal_id),
        keys::answer(answer.questionnaire_call_id, answer.question_id),
        None,
    );
    to_item(answer, keys)
}
