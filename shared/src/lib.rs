//! Shared crate of the call-handling service: wire records, the error model, extractors,
//! authentication primitives, configuration and the store traits with both implementations.

pub(crate) mod assets;
pub mod audit;
pub mod auth;
#[cfg(feature = "bedrock")]
pub mod bedrock;
pub mod clock;
pub mod config;
pub mod contact_window;
pub mod domain;
pub mod entry;
pub mod error;
pub mod escalation;
pub mod extract;
pub mod fixture;
pub mod ids;
pub mod matching;
pub mod metrics;
pub use matcher::national_id;
pub mod notify;
pub mod openapi;
pub mod phone;
pub mod provider_auth;
pub mod records;
pub mod runtime;
pub mod source;
pub mod store;
pub mod trace;
pub mod validate;
pub mod webhook;
pub mod wire;
pub mod zone;

pub use error::ApiError;
