//! Request body decoding under libFuzzer: any bytes decode to a record or a 400 problem,
//! never a panic, and whatever decodes encodes again; every wire type that accepts a text
//! reads its own output back as the same value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::extract::decode_json;
use shared::records::{ContactDetail, PhoneCall, TranscriptLine};
use shared::wire::{
    ClockTime, Email, Instant, LanguageTag, Metadata, Name, PhoneText, Prose, RequiredText, Text,
    Variables,
};

/// Parses `text` as `T`; when it is accepted, what it writes parses back as the same value.
fn round_trips<T>(text: &str)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(text).expect("a string encodes");
    if let Ok(value) = serde_json::from_str::<T>(&json) {
        let again = serde_json::to_string(&value).expect("a wire value encodes");
        assert_eq!(serde_json::from_str::<T>(&again).ok().as_ref(), Some(&value));
    }
}

fuzz_target!(|body: &[u8]| {
    if let Ok(call) = decode_json::<PhoneCall>(body) {
        serde_json::to_vec(&call).expect("a decoded call encodes");
    }
    if let Ok(detail) = decode_json::<ContactDetail>(body) {
        serde_json::to_vec(&detail).expect("a decoded contact detail encodes");
    }
    let _ = decode_json::<Vec<TranscriptLine>>(body);
    let _ = decode_json::<serde_json::Value>(body);
    if let Ok(variables) = decode_json::<Variables>(body) {
        let again = serde_json::to_vec(&variables).expect("variables encode");
        assert_eq!(decode_json::<Variables>(&again).ok().as_ref(), Some(&variables));
    }
    if let Ok(text) = std::str::from_utf8(body) {
        round_trips::<Text<200>>(text);
        round_trips::<RequiredText<200>>(text);
        round_trips::<Prose<20_000>>(text);
        round_trips::<Name<200>>(text);
        round_trips::<Email>(text);
        round_trips::<Metadata<10_000>>(text);
        round_trips::<Instant>(text);
        round_trips::<PhoneText>(text);
        round_trips::<LanguageTag>(text);
        round_trips::<ClockTime>(text);
    }
});
