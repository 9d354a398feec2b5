//! Request extractors and the negotiated JSON response: the one way every function reads a
//! body, a path id, and answers with JSON.

mod body;
mod decode;
mod parts;
mod response;

pub use body::{DEFAULT_BODY_LIMIT, Json, JsonBytes};
pub use decode::{decode_json, decode_json_then};
pub use parts::{PathId, Query};
pub use response::{JsonFlavour, JsonResponse, Paged, query_value};

#[cfg(test)]
mod tests;
