//! Test harness: `spawn_app` builds the whole API over either store with a manual clock, a dev
//! outbox, a recording dialler in front of the outbox (in memory) or of an SQS FIFO queue on
//! moto (DynamoDB), and (on DynamoDB) a request counter, so every scenario runs on both stores.

pub mod app;
pub mod bedrock;
pub mod capacity;
pub mod dialler;
pub mod emulator;
pub mod endpoints;
pub mod evaluation;
pub mod faults;
pub mod fixtures;
pub mod local_http;
pub mod moto;
pub mod requests;

pub use app::{
    Backend, TestApp, access_record_write, spawn_app, spawn_app_with, spawn_app_with_faults,
    start_time,
};
pub use dialler::RecordingDialler;
pub use endpoints::{
    Access, ENDPOINTS, Endpoint, EventSecrets, SCHEDULED_EVENT, edited_event, endpoint,
    prepared_event, sample_event,
};
pub use fixtures::{
    add_questionnaire_copy, copy_of_first_client, fixture_with_clients, fixture_with_due_entries,
    fixture_with_due_entries_ending, personnummer, quiet_demo,
};
pub use moto::{
    dynamo_client, fresh_dialler_queue, fresh_tables, local_sdk_config, moto_endpoint,
    moto_requests_served, sqs_client,
};
pub use requests::{TestResponse, body_request, error_fields, get_request, otp_in, without_trace};

/// Runs each scenario `async fn name(backend: Backend)` on both stores as `memory::name` and
/// `dynamodb::name`.
#[macro_export]
macro_rules! on_both_stores {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name($crate::Backend::Memory).await;
                }
            )*
        }
        mod dynamodb {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name($crate::Backend::DynamoDb).await;
                }
            )*
        }
    };
}
