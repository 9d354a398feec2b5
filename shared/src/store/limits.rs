//! DynamoDB's request limits, which moto does not enforce: the store splits its writes by them
//! and the handlers bound what one request may ask for by them, from this one place.

/// Items in one BatchWriteItem request.
pub const BATCH_WRITE_LIMIT: usize = 25;
/// Keys in one BatchGetItem request.
pub const BATCH_GET_LIMIT: usize = 100;
/// Items in one TransactWriteItems request.
pub const TRANSACTION_LIMIT: usize = 100;

/// The most client requests a call may carry and still be fixed: the call, the client, the
/// previous client and every request are one transaction.
pub const MAX_FIX_REQUESTS: usize = TRANSACTION_LIMIT - 3;
