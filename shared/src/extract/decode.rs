//! Decoding JSON into a request type, naming every field that does not parse.

use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldErrors};

/// Decodes JSON, naming the path of every field whose value does not parse: after a field
/// fails, it is taken out and the rest decoded again, so one answer lists them all (up to
/// `MAX_FIELD_ERRORS`). Rules between fields, and required fields, are the handler's, once
/// every value has parsed.
pub fn decode_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    decode_json_then(bytes, Ok)
}

/// Like `decode_json`, then `rules` (between fields, or needing the portal's region) on the
/// value. When some fields do not parse, `rules` still runs on the body without them, and its
/// field errors join theirs: one answer names every field, whatever layer found it.
pub fn decode_json_then<T: DeserializeOwned, U>(
    bytes: &[u8],
    rules: impl Fn(T) -> Result<U, ApiError>,
) -> Result<U, ApiError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') && expects_object::<T>() {
        let mut errors = FieldErrors::new();
        errors.insert("$".into(), vec!["must be a JSON object".into()]);
        return Err(ApiError::Validation {
            detail: "The body does not have the expected shape.".into(),
            errors,
        });
    }
    let bytes = integral_numbers(bytes);
    let (path, error) = match decode_once::<T>(&bytes) {
        Ok(value) => return rules(value),
        Err(failure) => failure,
    };
    let detail = if error.is_syntax() || error.is_eof() {
        "The body is not well-formed JSON."
    } else {
        "The body does not have the expected shape."
    };
    let mut errors = FieldErrors::new();
    errors.insert(path.clone(), vec![error.to_string()]);
    if let Ok(mut document) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        let mut failed = path;
        while errors.len() < MAX_FIELD_ERRORS && remove_at(&mut document, &failed) {
            let again = serde_json::to_vec(&document).expect("a JSON value serialises");
            match decode_once::<T>(&again) {
                // Taking a required field out makes the body miss it: not news.
                Err((path, error)) if path != "$" && !errors.contains_key(&path) => {
                    errors.insert(path.clone(), vec![error.to_string()]);
                    failed = path;
                }
                Ok(rest) => {
                    if let Err(ApiError::Validation { errors: more, .. }) = rules(rest) {
                        for (path, messages) in more {
                            errors.entry(path).or_insert(messages);
                        }
                    }
                    break;
                }
                Err(_) => break,
            }
        }
    }
    Err(ApiError::Validation {
        detail: detail.into(),
        errors,
    })
}

/// The most fields one 400 names.
const MAX_FIELD_ERRORS: usize = 32;

fn decode_once<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, (String, serde_json::Error)> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = match error.path().to_string() {
            path if path == "." => "$".to_string(),
            path => path,
        };
        (path, error.into_inner())
    })?;
    // Trailing characters after the document make it malformed too.
    deserializer
        .end()
        .map_err(|error| ("$".to_string(), error))?;
    Ok(value)
}

/// Takes out the value at a path as serde_path_to_error writes it (`name`, `[2].retries`,
/// `transcript[0].message`); false when there is nothing there to take out.
fn remove_at(document: &mut serde_json::Value, path: &str) -> bool {
    let mut segments = Vec::new();
    for part in path.split('.') {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            segments.push(Err(key.to_string()));
        }
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            match index.trim_end_matches(']').parse::<usize>() {
                Ok(i) => segments.push(Ok(i)),
                Err(_) => return false,
            }
        }
    }
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut at = document;
    for segment in parents {
        let next = match segment {
            Ok(i) => at.get_mut(*i),
            Err(key) => at.get_mut(key.as_str()),
        };
        match next {
            Some(next) => at = next,
            None => return false,
        }
    }
    match (last, at) {
        (Err(key), serde_json::Value::Object(map)) => map.remove(key).is_some(),
        _ => false,
    }
}

/// Whether `T` reads a JSON object. serde's derived structs also take an array of their
/// fields in order, which no client means (`[true]` would be a logout of every session); a
/// probe deserializer notes whether `T` asks for a struct first, and fails at once.
fn expects_object<T: DeserializeOwned>() -> bool {
    use serde::de::value::Error;
    use serde::de::{Error as _, Visitor};

    struct Probe<'a>(&'a std::cell::Cell<bool>);

    impl<'de> serde::Deserializer<'de> for Probe<'_> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Error::custom("probe"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Error> {
            self.0.set(true);
            Err(Error::custom("probe"))
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Error> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }

    let object = std::cell::Cell::new(false);
    let _ = T::deserialize(Probe(&object));
    object.get()
}

/// The body with every number written as an integer with a zero fraction (`27059.0`) written
/// without it, outside strings: JSON Schema counts `1.0` as an integer, serde's integer types
/// do not. Other numbers and all strings are left byte for byte; most bodies are borrowed as
/// they are.
pub(super) fn integral_numbers(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            match byte {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if byte.is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let mut end = i;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if end < bytes.len() && bytes[end] == b'.' {
                let mut zeros = end + 1;
                while zeros < bytes.len() && bytes[zeros] == b'0' {
                    zeros += 1;
                }
                let followed = bytes.get(zeros).copied();
                let number_ends = !followed
                    .is_some_and(|b| b.is_ascii_digit() || b == b'e' || b == b'E' || b == b'.');
                if zeros > end + 1 && number_ends {
                    spans.push((end, zeros));
                }
                i = zeros;
                continue;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for (start, end) in spans {
        out.extend_from_slice(&bytes[from..start]);
        from = end;
    }
    out.extend_from_slice(&bytes[from..]);
    std::borrow::Cow::Owned(out)
}
