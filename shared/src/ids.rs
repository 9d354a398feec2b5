//! Typed ids for store signatures and domain types, so that a portal id cannot be passed where a
//! client id is meant (`fix_target(organisation, call, client, now)` takes three ids). The wire
//! shapes keep the interface's plain integers; handlers wrap an id where it enters a store call.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug,
            Clone,
            Copy,
            Default,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub i32);

        impl $name {
            /// The id as the wire shapes and keys carry it.
            pub const fn get(self) -> i32 {
                self.0
            }
        }

        /// A record's plain field compared with the id, where a record meets a typed id.
        impl PartialEq<i32> for $name {
            fn eq(&self, other: &i32) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<$name> for i32 {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// A portal: one care unit, the tenant of accounts, clients and calls.
    PortalId
);
id!(
    /// An organisation: the portals of one care provider.
    OrganisationId
);
id!(
    /// A staff account.
    AccountId
);
id!(
    /// A client of a portal.
    ClientId
);
id!(
    /// A phone call.
    CallId
);
id!(
    /// A contact detail of a portal.
    ContactDetailId
);
id!(
    /// A questionnaire.
    QuestionnaireId
);
id!(
    /// A questionnaire's client entry (one questionnaire call to one client).
    EntryId
);
id!(
    /// An alert: an entry's alert takes its entry's id, a call's alert draws one from the same
    /// sequence.
    AlertId
);
