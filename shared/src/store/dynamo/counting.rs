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
        .interceptor(PerRequestCount)
        .build();
    DynamoClient::from_conf(config)
}

#[derive(Debug)]
struct PerRequestCount;

impl Intercept for PerRequestCount {
    fn name(&self) -> &'static str {
        "PerRequestCount"
    }

    fn read_before_transmit(
        &self,
        _context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), BoxError> {
        crate::trace::count_dynamo_request();
        Ok(())
    }
}

/// The DynamoDB operation a request calls (`GetItem`), from its `x-amz-target` header.
pub fn operation_name(request: &aws_sdk_dynamodb::config::http::HttpRequest) -> &str {
    request
        .headers()
        .get("x-amz-target")
        .and_then(|target| target.rsplit('.').next())
        .unwrap_or("unknown")
}

/// Counts DynamoDB requests by operation (`x-amz-target`), retries included, so tests and
/// benchmarks can hold every endpoint to its request budget.
#[derive(Debug, Clone, Default)]
pub struct RequestCounter {
    counts: Arc<Mutex<HashMap<String, usize>>>,
}

impl RequestCounter {
    pub fn take(&self) -> HashMap<String, usize> {
        std::mem::take(&mut *self.counts.lock().unwrap_or_else(|p| p.into_inner()))
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
        let operation = operation_name(context.request()).to_string();
        *self
            .counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(operation)
            .or_default() += 1;
        Ok(())
    }
}
