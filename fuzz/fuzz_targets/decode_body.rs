//! Request body decoding under libFuzzer: any bytes decode to a record or a 400 problem,
//! never a panic, and whatever decodes encodes again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::extract::decode_json;
use shared::records::{ContactDetail, PhoneCall, TranscriptLine};

fuzz_target!(|body: &[u8]| {
    if let Ok(call) = decode_json::<PhoneCall>(body) {
        serde_json::to_vec(&call).expect("a decoded call encodes");
    }
    if let Ok(detail) = decode_json::<ContactDetail>(body) {
        serde_json::to_vec(&detail).expect("a decoded contact detail encodes");
    }
    let _ = decode_json::<Vec<TranscriptLine>>(body);
    let _ = decode_json::<serde_json::Value>(body);
});
