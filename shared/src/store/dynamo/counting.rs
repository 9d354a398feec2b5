//! DynamoDB request counting: per HTTP request for its log line, and by operation for tests and
//! benchmarks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::Client as DynamoClient;
use aws_sdk_dynamodb::config::{Intercept, RuntimeComponents};

use crate::store::BoxError;

/// The DynamoDB client functions and `local-api` use: each request it sends (retries
/// included) counts towards the HTTP request being served, for that request's log line.
pub fn client_from(sdk: &aws_config::SdkConfig) -> DynamoClient {
    let config = aws_sdk_dynamodb::config::Builder::from(sdk)
        .interceptor(RequestCounter {
            tally: Tally::ForTheLogLine,
        })
        .build();
    DynamoClient::from_conf(config)
}

/// The DynamoDB operation a request calls (`GetItem`), from its `x-amz-target` header.
pub fn operation_name(request: &aws_sdk_dynamodb::config::http::HttpRequest) -> &str {
    request
        .headers()
        .get("x-amz-target")
        .and_then(|target| target.rsplit('.').next())
        .unwrap_or("unknown")
}

/// Counts requests as they are sent, retries included: by operation (`x-amz-target`), so
/// tests and benchmarks can hold every endpoint to its request budget, or towards the HTTP
/// request being served.
#[derive(Debug, Clone)]
pub struct RequestCounter {
    tally: Tally,
}

#[derive(Debug, Clone)]
enum Tally {
    ByOperation(Arc<Mutex<HashMap<String, usize>>>),
    ForTheLogLine,
}

impl Default for RequestCounter {
    fn default() -> Self {
        Self {
            tally: Tally::ByOperation(Arc::default()),
        }
    }
}

impl RequestCounter {
    /// The requests counted by operation since the last call (none for the log line's count).
    pub fn take(&self) -> HashMap<String, usize> {
        match &self.tally {
            Tally::ByOperation(counts) => {
                std::mem::take(&mut *counts.lock().unwrap_or_else(|p| p.into_inner()))
            }
            // Only `client_from` builds this tally, and it never hands the counter out.
            Tally::ForTheLogLine => HashMap::new(),
        }
    }
}

impl Intercept for RequestCounter {
    fn name(&self) -> &'static str {
        "RequestCounter"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), BoxError> {
        match &self.tally {
            Tally::ByOperation(counts) => {
                let operation = operation_name(context.request()).to_string();
                *counts
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .entry(operation)
                    .or_default() += 1;
            }
            Tally::ForTheLogLine => crate::trace::count_dynamo_request(),
        }
        Ok(())
    }
}
