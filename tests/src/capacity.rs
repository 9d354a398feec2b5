//! DynamoDB capacity units per request, estimated from the items on the wire by DynamoDB's
//! sizing rules (moto reports a constant, not the real figure): reads from the items a
//! response returns, writes from the item a put sends; an update, delete or condition check
//! counts as one item of at most 1 KB, which the benchmark checks against the largest stored
//! item.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeTransmitInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use serde_json::Value;
use shared::store::BoxError;

/// Read and write capacity units, summed over requests.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Units {
    pub read: f64,
    pub write: f64,
}

/// Records each request's body and, when it completes, adds up its units.
#[derive(Debug, Clone, Default)]
pub struct CapacityMeter {
    state: Arc<Mutex<MeterState>>,
}

#[derive(Debug, Default)]
struct MeterState {
    total: Units,
    largest_item: usize,
}

/// A request as sent, kept in its own operation's config bag: concurrent requests (a read of
/// two collections) each find their own.
#[derive(Debug, Clone)]
struct Sent {
    operation: String,
    body: Value,
}

impl Storable for Sent {
    type Storer = StoreReplace<Self>;
}

impl CapacityMeter {
    /// The units since the last call.
    pub fn take(&self) -> Units {
        std::mem::take(&mut self.lock().total)
    }

    /// The largest item any response has carried so far.
    pub fn largest_item(&self) -> usize {
        self.lock().largest_item
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MeterState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Intercept for CapacityMeter {
    fn name(&self) -> &'static str {
        "CapacityMeter"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let operation = shared::store::dynamo::operation_name(request).to_string();
        let body = request
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(Value::Null);
        cfg.interceptor_state().store_put(Sent { operation, body });
        Ok(())
    }

    fn read_after_execution(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let answer = context
            .response()
            .and_then(|response| response.body().bytes())
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(Value::Null);
        let mut state = self.lock();
        let returned = answer["Items"].as_array().into_iter().flatten();
        let largest = returned.chain([&answer["Item"]]).map(item_size).max();
        state.largest_item = state.largest_item.max(largest.unwrap_or(0));
        if let Some(sent) = cfg.load::<Sent>() {
            let units = units_of(&sent.operation, &sent.body, &answer);
            state.total.read += units.read;
            state.total.write += units.write;
        }
        Ok(())
    }
}

/// The units one request consumes.
pub fn units_of(operation: &str, request: &Value, answer: &Value) -> Units {
    let consistent = request["ConsistentRead"] == true;
    let per_read = if consistent { 1.0 } else { 0.5 };
    let read_units = |bytes: usize| (bytes.div_ceil(4096).max(1)) as f64;
    let write_units = |bytes: usize| (bytes.div_ceil(1024).max(1)) as f64;
    let items = |value: &Value| -> Vec<usize> {
        value
            .as_array()
            .map(|items| items.iter().map(item_size).collect())
            .unwrap_or_default()
    };
    let mut units = Units::default();
    match operation {
        "GetItem" => units.read = per_read * read_units(item_size(&answer["Item"])),
        "Query" | "Scan" => {
            units.read = per_read * read_units(items(&answer["Items"]).iter().sum());
        }
        "BatchGetItem" => {
            let responses = answer["Responses"].as_object().into_iter().flatten();
            units.read = responses
                .flat_map(|(_, found)| items(found))
                .map(|size| 0.5 * read_units(size))
                .sum();
        }
        "TransactGetItems" => {
            let found = answer["Responses"].as_array().into_iter().flatten();
            units.read = found
                .map(|response| 2.0 * read_units(item_size(&response["Item"])))
                .sum();
        }
        "PutItem" => units.write = write_units(item_size(&request["Item"])),
        "UpdateItem" | "DeleteItem" => units.write = 1.0,
        "TransactWriteItems" => {
            let actions = request["TransactItems"].as_array().into_iter().flatten();
            units.write = actions
                .map(|action| 2.0 * write_units(item_size(&action["Put"]["Item"])))
                .sum();
        }
        "BatchWriteItem" => {
            let tables = request["RequestItems"].as_object().into_iter().flatten();
            units.write = tables
                .flat_map(|(_, writes)| writes.as_array().into_iter().flatten())
                .map(|write| write_units(item_size(&write["PutRequest"]["Item"])))
                .sum();
        }
        _ => {}
    }
    units
}

/// An item's size in bytes by DynamoDB's rules: attribute names plus values.
pub fn item_size(item: &Value) -> usize {
    item.as_object()
        .map(|attributes| {
            attributes
                .iter()
                .map(|(name, value)| name.len() + value_size(value))
                .sum()
        })
        .unwrap_or(0)
}

fn value_size(value: &Value) -> usize {
    let Some((kind, inner)) = value.as_object().and_then(|typed| typed.iter().next()) else {
        return 0;
    };
    let text = |v: &Value| v.as_str().map_or(0, str::len);
    let number = |v: &Value| {
        let digits = v.as_str().map_or(0, |n| {
            n.trim_start_matches('-')
                .trim_matches('0')
                .chars()
                .filter(char::is_ascii_digit)
                .count()
        });
        digits.div_ceil(2) + 1
    };
    let binary = |v: &Value| text(v) * 3 / 4;
    let each = |v: &Value, size: &dyn Fn(&Value) -> usize| {
        v.as_array().map_or(0, |all| all.iter().map(size).sum())
    };
    match kind.as_str() {
        "S" => text(inner),
        "N" => number(inner),
        "B" => binary(inner),
        "BOOL" | "NULL" => 1,
        "SS" => each(inner, &text),
        "NS" => each(inner, &number),
        "BS" => each(inner, &binary),
        "L" => 3 + each(inner, &|v| 1 + value_size(v)),
        "M" => {
            3 + inner.as_object().map_or(0, |members| {
                members
                    .iter()
                    .map(|(name, v)| 1 + name.len() + value_size(v))
                    .sum()
            })
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_item_is_the_sum_of_its_names_and_values() {
        let item = json!({"pk": {"S": "P#1"}, "n": {"N": "12345"}, "ok": {"BOOL": true}});
        // "pk" 2 + "P#1" 3, "n" 1 + 5 digits 4, "ok" 2 + 1
        assert_eq!(item_size(&item), 13);
    }

    #[test]
    fn reads_round_up_to_4_kb_and_writes_to_1_kb_transactions_double() {
        let big = json!({"pk": {"S": "x".repeat(5000)}});
        let get = units_of("GetItem", &json!({}), &json!({"Item": big}));
        assert_eq!(get.read, 1.0);
        let put = units_of("PutItem", &json!({"Item": big}), &json!({}));
        assert_eq!(put.write, 5.0);
        let transaction = json!({"TransactItems": [{"Put": {"Item": big}}, {"Update": {}}]});
        assert_eq!(
            units_of("TransactWriteItems", &transaction, &json!({})).write,
            12.0
        );
    }
}
