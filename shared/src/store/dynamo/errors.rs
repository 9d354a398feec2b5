//! SDK failures mapped onto the store's error kinds, the original kept as the source.

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use crate::store::StoreError;

/// Maps an SDK failure onto the store's error kinds; the original is kept as the source.
pub(crate) fn classify<E>(error: SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let server_error = error
        .raw_response()
        .is_some_and(|raw| raw.status().is_server_error());
    let code = error.code().unwrap_or_default().to_string();
    let message = error.message().unwrap_or_default().to_string();
    match (&error, code.as_str()) {
        (_, "ConditionalCheckFailedException") => StoreError::ConditionFailed,
        (_, "TransactionCanceledException") if message.contains("ConditionalCheckFailed") => {
            StoreError::ConditionFailed
        }
        (
            _,
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded"
            | "TransactionConflictException"
            | "TransactionCanceledException"
            | "TransactionInProgressException",
        ) => StoreError::Throttled(Box::new(error)),
        (SdkError::TimeoutError(_) | SdkError::DispatchFailure(_), _) => {
            StoreError::Unavailable(Box::new(error))
        }
        (SdkError::ResponseError(_), _) => StoreError::Unavailable(Box::new(error)),
        (SdkError::ServiceError(_), _) if server_error => StoreError::Unavailable(Box::new(error)),
        _ => StoreError::Backend(Box::new(error)),
    }
}

pub(crate) fn build_error(error: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::Backend(Box::new(error))
}
