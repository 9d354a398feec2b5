//! Condition and update expressions with their attribute names and values.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::items::Item;

/// A condition or update expression with its attribute names and values.
#[derive(Default)]
pub(crate) struct Expression {
    pub(crate) names: HashMap<String, String>,
    pub(crate) values: HashMap<String, AttributeValue>,
}

impl Expression {
    pub(crate) fn name(&mut self, placeholder: &str, name: &str) -> &mut Self {
        self.names.insert(placeholder.into(), name.into());
        self
    }
    pub(crate) fn value(&mut self, placeholder: &str, value: AttributeValue) -> &mut Self {
        self.values.insert(placeholder.into(), value);
        self
    }
}

impl Expression {
    /// Names and values as the SDK takes them: DynamoDB refuses empty maps.
    pub(crate) fn into_parts(self) -> (Option<HashMap<String, String>>, Option<Item>) {
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}
