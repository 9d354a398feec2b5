//! Table definitions read from `template.yaml` itself, so tests and `local-api --dynamodb`
//! create exactly the tables that are deployed.

use aws_sdk_dynamodb::Client as DynamoClient;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TimeToLiveSpecification,
};
use serde::Deserialize;

use crate::config::Tables;
use crate::store::{BoxError, StoreError, StoreResult};

/// The SAM template, compiled in.
pub const TEMPLATE: &str = include_str!("../../../template.yaml");

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TableProperties {
    attribute_definitions: Vec<AttributeDef>,
    key_schema: Vec<KeyDef>,
    #[serde(default)]
    global_secondary_indexes: Vec<IndexDef>,
    time_to_live_specification: Option<TtlDef>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct AttributeDef {
    attribute_name: String,
    attribute_type: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeyDef {
    attribute_name: String,
    key_type: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct IndexDef {
    index_name: String,
    key_schema: Vec<KeyDef>,
    projection: ProjectionDef,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ProjectionDef {
    projection_type: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TtlDef {
    attribute_name: String,
}

/// One table of the template, as declared.
#[derive(Debug)]
pub struct TableDefinition {
    pub logical_id: String,
    properties: TableProperties,
}

impl TableDefinition {
    pub fn ttl_attribute(&self) -> Option<&str> {
        self.properties
            .time_to_live_specification
            .as_ref()
            .map(|ttl| ttl.attribute_name.as_str())
    }

    pub fn index_names(&self) -> Vec<&str> {
        self.properties
            .global_secondary_indexes
            .iter()
            .map(|index| index.index_name.as_str())
            .collect()
    }
}

/// Every `AWS::DynamoDB::Table` resource of a template. CloudFormation tags (`!Ref`, ...) are
/// parsed as tagged values and ignored; table properties use none where it matters.
pub fn table_definitions(template: &str) -> Result<Vec<TableDefinition>, BoxError> {
    let document: serde_yaml::Value = serde_yaml::from_str(template)?;
    let resources = document
        .get("Resources")
        .and_then(serde_yaml::Value::as_mapping)
        .ok_or("template has no Resources")?;
    let mut tables = Vec::new();
    for (name, resource) in resources {
        if resource.get("Type").and_then(serde_yaml::Value::as_str) != Some("AWS::DynamoDB::Table")
        {
            continue;
        }
        let logical_id = name
            .as_str()
            .ok_or("resource name is not a string")?
            .to_string();
        let properties = resource
            .get("Properties")
            .ok_or("table without Properties")?;
        let properties: TableProperties = serde_yaml::from_value(properties.clone())
            .map_err(|e| format!("table {logical_id}: {e}"))?;
        tables.push(TableDefinition {
            logical_id,
            properties,
        });
    }
    Ok(tables)
}

fn key_schema(keys: &[KeyDef]) -> Result<Vec<KeySchemaElement>, BoxError> {
    keys.iter()
        .map(|k| {
            Ok(KeySchemaElement::builder()
                .attribute_name(&k.attribute_name)
                .key_type(KeyType::from(k.key_type.as_str()))
                .build()?)
        })
        .collect()
}

/// Creates the data, auth and access-log tables under the given names when they do not exist yet.
pub async fn create_tables(client: &DynamoClient, tables: &Tables) -> StoreResult<()> {
    let backend = |e: BoxError| StoreError::Backend(e);
    for definition in table_definitions(TEMPLATE).map_err(backend)? {
        let name = match definition.logical_id.as_str() {
            "DataTable" => &tables.data,
            "AuthTable" => &tables.auth,
            "AccessLogTable" => &tables.access_log,
            other => return Err(backend(format!("unexpected table {other}").into())),
        };
        let props = &definition.properties;
        let mut request = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .set_key_schema(Some(key_schema(&props.key_schema).map_err(backend)?));
        for attribute in &props.attribute_definitions {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(&attribute.attribute_name)
                    .attribute_type(ScalarAttributeType::from(attribute.attribute_type.as_str()))
                    .build()
                    .map_err(|e| backend(e.into()))?,
            );
        }
        for index in &props.global_secondary_indexes {
            request = request.global_secondary_indexes(
                GlobalSecondaryIndex::builder()
                    .index_name(&index.index_name)
                    .set_key_schema(Some(key_schema(&index.key_schema).map_err(backend)?))
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::from(
                                index.projection.projection_type.as_str(),
                            ))
                            .build(),
                    )
                    .build()
                    .map_err(|e| backend(e.into()))?,
            );
        }
        match request.send().await {
            Ok(_) => {}
            Err(e) if e.code() == Some("ResourceInUseException") => continue,
            Err(e) => return Err(backend(e.into())),
        }
        if let Some(attribute) = definition.ttl_attribute() {
            client
                .update_time_to_live()
                .table_name(name)
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .attribute_name(attribute)
                        .enabled(true)
                        .build()
                        .map_err(|e| backend(e.into()))?,
                )
                .send()
                .await
                .map_err(|e| backend(e.into()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_keep_point_in_time_recovery_deletion_protection_and_outlive_the_stack() {
        let template: serde_yaml::Value = serde_yaml::from_str(TEMPLATE).unwrap();
        for parameter in ["EnablePointInTimeRecovery", "EnableDeletionProtection"] {
            assert_eq!(
                template["Parameters"][parameter]["Default"], "true",
                "{parameter}"
            );
        }
        for table in ["DataTable", "AuthTable"] {
            let resource = &template["Resources"][table];
            assert_eq!(resource["DeletionPolicy"], "Retain", "{table}");
            assert_eq!(resource["UpdateReplacePolicy"], "Retain", "{table}");
            let properties = &resource["Properties"];
            let pitr =
                &properties["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"];
            assert!(
                format!("{pitr:?}").contains("EnablePointInTimeRecovery"),
                "{table}: {pitr:?}"
            );
            let protection = &properties["DeletionProtectionEnabled"];
            assert!(
                format!("{protection:?}").contains("EnableDeletionProtection"),
                "{table}"
            );
            assert_eq!(
                properties["SSESpecification"]["SSEEnabled"], true,
                "{table}"
            );
        }
    }

    /// The log outlives every stack and every parameter: nobody deploying can turn its
    /// protection off, as they can for the other tables of a test stack.
    #[test]
    fn the_access_log_table_is_always_protected_recoverable_and_retained() {
        let template: serde_yaml::Value = serde_yaml::from_str(TEMPLATE).unwrap();
        let resource = &template["Resources"]["AccessLogTable"];
        assert_eq!(resource["DeletionPolicy"], "Retain");
        assert_eq!(resource["UpdateReplacePolicy"], "Retain");
        let properties = &resource["Properties"];
        assert_eq!(
            properties["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"],
            true
        );
        assert_eq!(properties["DeletionProtectionEnabled"], true);
        assert_eq!(properties["SSESpecification"]["SSEEnabled"], true);
        let tables = table_definitions(TEMPLATE).unwrap();
        let log = tables
            .iter()
            .find(|t| t.logical_id == "AccessLogTable")
            .unwrap();
        assert_eq!(log.ttl_attribute(), Some("ttl"));
        assert!(log.index_names().is_empty());
    }

    #[test]
    fn the_template_declares_a_data_table_with_two_indexes_and_an_auth_table_with_ttl() {
        let tables = table_definitions(TEMPLATE).unwrap();
        let data = tables.iter().find(|t| t.logical_id == "DataTable").unwrap();
        let auth = tables.iter().find(|t| t.logical_id == "AuthTable").unwrap();
        assert_eq!(data.index_names(), ["gsi1", "gsi2"]);
        assert_eq!(auth.ttl_attribute(), Some("ttl"));
    }
}
