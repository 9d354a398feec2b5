//! A portal's contact details.

use crate::ids::{ContactDetailId, PortalId};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use crate::records::ContactDetail;
use crate::store::dynamo::items::{from_item, key, n, s};
use crate::store::dynamo::operations::updated_item;
use crate::store::dynamo::{DynamoStore, keys};
use crate::store::{ContactDetailEdit, ContactDetailStore, ContactDetailUpdate, StoreResult};

#[async_trait]
impl ContactDetailStore for DynamoStore {
    async fn contact_details(&self, portal_id: PortalId) -> StoreResult<Vec<ContactDetail>> {
        let portal_id = portal_id.get();
        self.records_with_prefix(keys::portal(portal_id), "CONTACT#")
            .await
    }

    async fn contact_detail(
        &self,
        portal_id: PortalId,
        id: ContactDetailId,
    ) -> StoreResult<Option<ContactDetail>> {
        self.get_data(keys::portal(portal_id.get()), &keys::contact(id.get()))
            .await?
            .map(from_item)
            .transpose()
    }

    async fn update_contact_detail(
        &self,
        edit: ContactDetailEdit<'_>,
    ) -> StoreResult<Option<ContactDetailUpdate>> {
        let changes = edit.changes;
        let text = |value: &Option<String>| value.clone().map_or(AttributeValue::Null(true), s);
        let write = self
            .client
            .update_item()
            .table_name(&self.tables.data)
            .set_key(Some(key(
                keys::portal(edit.portal_id.get()),
                Some(&keys::contact(edit.id.get())),
            )))
            .update_expression(
                "SET #name = :name, contactNumber = :number, contactEmail = :email, \
                 contactBetweenStart = :start, contactBetweenEnd = :end, priority = :priority, \
                 isActive = :active",
            )
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#name", "name")
            .expression_attribute_values(":name", s(changes.name.clone()))
            .expression_attribute_values(":number", text(&changes.contact_number))
            .expression_attribute_values(":email", text(&changes.contact_email))
            .expression_attribute_values(":start", text(&changes.contact_between_start))
            .expression_attribute_values(":end", text(&changes.contact_between_end))
            .expression_attribute_values(":priority", n(changes.priority))
            .expression_attribute_values(":active", AttributeValue::Bool(changes.is_active))
            // The item as it was: the detail after the write is that with the changes applied.
            .return_values(ReturnValue::AllOld);
        updated_item(write)
            .await?
            .map(|item| {
                let before: ContactDetail = from_item(item)?;
                let after = changes.applied(before.clone());
                Ok(ContactDetailUpdate { before, after })
            })
            .transpose()
    }
}
