//! Store traits, one per consumer, with a DynamoDB and an in-memory implementation that keep the
//! same semantics (conditional writes, all-or-nothing transactions, expiry checked on read).

use std::sync::Arc;

pub mod access_log;
pub mod alerts;
pub mod auth;
pub mod clients;
pub mod contact_details;
pub mod dynamo;
pub mod ingest;
pub mod limits;
pub mod live;
pub mod memory;
pub mod optimistic;
pub mod organisations;
pub mod phone_calls;
pub mod portals;
pub mod questionnaires;
pub mod reading;
pub mod scheduler;
pub mod schema;
pub mod seed;

pub use access_log::{AccessLogReader, AccessLogWriter};
pub use alerts::{AlertFilter, AlertPage, AlertStore, AlertsRequest, EscalationStore, StoredAlert};
pub use auth::{
    AuthStore, CodeSend, OtpLogin, OtpRequest, OtpSave, SendLog, Session, SessionReader,
    StaffAccount,
};
pub use clients::{
    ClientChanges, ClientField, ClientPage, ClientPageRequest, ClientStore, ClientUpdate,
};
pub use contact_details::{
    ContactDetailChanges, ContactDetailEdit, ContactDetailStore, ContactDetailUpdate,
};
pub use ingest::{
    AlertWrite, Analysis, AnalysisHold, CallAlert, Conversation, DeliveryKey, DeliveryState,
    EntryCompletion, EntryRef, GivenAnswer, HeldAnalysis, IngestStore, NewCall, NewRequest,
    NumberedCall, OutcomeReport, RecordedAnalysis,
};
pub use live::LiveCallStore;
pub use organisations::{FixLookup, FixRequest, FixTarget, OrganisationStore};
pub use phone_calls::PhoneCallReader;
pub use portals::{ImportContext, ImportGuard, ImportGuardSave, Imported, PortalStore};
pub use questionnaires::{
    AddQuestionOutcome, EntriesStart, NewEntry, NewQuestion, Owner, QuestionAdd, QuestionnaireRead,
    QuestionnaireStore, StartOutcome,
};
pub use reading::{ReadingWatch, UnusualReadingStore};
pub use scheduler::{CallTargets, Claim, DueEntry, PendingAttempt, SchedulerStore};
pub use seed::SeedWriter;

/// Every capability in one store: what `local-api` and a Lambda's start-up hold, before each
/// function takes the narrow traits it uses.
pub trait Store:
    AccessLogReader
    + AlertStore
    + EscalationStore
    + AuthStore
    + PhoneCallReader
    + ClientStore
    + PortalStore
    + ContactDetailStore
    + QuestionnaireStore
    + SchedulerStore
    + OrganisationStore
    + IngestStore
    + LiveCallStore
    + ReadingWatch
    + UnusualReadingStore
    + SeedWriter
{
}

// The two stores, named rather than every type with the capabilities (a blanket impl would
// list them all a second time).
impl Store for dynamo::DynamoStore {}
impl Store for memory::MemoryStore {}

/// A store seen through one capability. A Lambda holds its concrete `DynamoStore` and narrows
/// it to the traits its handlers use, so that the binary links only those traits' methods:
/// narrowing a `dyn Store` would carry the vtable of every capability, and with it the code of
/// every function (docs/performance.md, "Sizes"). `local-api` and the tests, which
/// choose their store at run time, narrow a `dyn Store` instead.
pub trait Narrow<T: ?Sized> {
    fn narrow(self: Arc<Self>) -> Arc<T>;
}

macro_rules! narrowing {
    ($($capability:ident),* $(,)?) => {$(
        impl<S: $capability> Narrow<dyn $capability> for S {
            fn narrow(self: Arc<Self>) -> Arc<dyn $capability> {
                self
            }
        }
        impl Narrow<dyn $capability> for dyn Store {
            fn narrow(self: Arc<Self>) -> Arc<dyn $capability> {
                self
            }
        }
    )*};
}

narrowing!(
    AccessLogWriter,
    AccessLogReader,
    AlertStore,
    EscalationStore,
    SessionReader,
    AuthStore,
    PhoneCallReader,
    ClientStore,
    PortalStore,
    ContactDetailStore,
    QuestionnaireStore,
    SchedulerStore,
    OrganisationStore,
    IngestStore,
    LiveCallStore,
    ReadingWatch,
    UnusualReadingStore,
    SeedWriter,
);

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Which page of a list ordered by id to read: the items with an id above `after`, at most
/// `limit` of them (all when `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest<Id> {
    pub after: Option<Id>,
    pub limit: Option<usize>,
}

// Not derived: a derived `Default` would ask for `Id: Default`, and no id has a default.
impl<Id> Default for PageRequest<Id> {
    fn default() -> Self {
        Self {
            after: None,
            limit: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A conditional write found the item in another state than expected.
    #[error("conditional write failed")]
    ConditionFailed,
    #[error("request throttled")]
    Throttled(#[source] BoxError),
    #[error("store unavailable")]
    Unavailable(#[source] BoxError),
    #[error("stored item is malformed: {0}")]
    Corrupt(String),
    #[error("store request failed")]
    Backend(#[source] BoxError),
    /// Every round of a read-then-conditional-write lost to another writer
    /// (`optimistic::retry`); the same request very likely passes when sent again.
    #[error("{0} kept changing")]
    KeptChanging(&'static str),
}

pub type StoreResult<T> = Result<T, StoreError>;
