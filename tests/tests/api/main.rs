//! Every cross-function scenario, one module per endpoint group or concern, in one test binary:
//! each binary links the whole AWS SDK, so one binary instead of one per file saves a link per
//! file. Run one module with `cargo test -p integration-tests --test api clients::`.

mod access_log;
mod alarm_chain;
mod alerts;
mod authentication;
mod clients;
mod contact_details;
mod demo;
mod events;
mod faults;
mod fix_unknown_client;
mod hostile_input;
mod http_edges;
mod ingestion;
mod live_calls;
mod lockouts;
mod organisations;
mod permissions;
mod phone_calls;
mod portals;
mod questionnaires;
mod rerank;
mod routes;
mod runtime_emulator;
mod scheduler;
mod stores;
mod support;
mod template;
mod tenant_isolation;
mod unusual_reading;
mod urgent;
mod voice_platforms;
