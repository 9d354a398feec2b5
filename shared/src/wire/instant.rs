//! Instants: RFC 3339 date-times within the years the service accepts.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{KnownFormat, Schema, SchemaFormat};

use super::string_schema;

/// The first instant the service accepts: nothing it stores (a call, a questionnaire, an
/// access record) is older than the service.
pub const EARLIEST: &str = "2000-01-01T00:00:00Z";

/// The first instant the service no longer accepts. Every accepted instant is written
/// with a four-digit year, so the indexes that sort timestamps as text sort them in time.
pub const END: &str = "2200-01-01T00:00:00Z";

/// An RFC 3339 date-time from `EARLIEST` up to (not including) `END`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(DateTime<Utc>);

impl Instant {
    pub fn parse(value: &str) -> Result<Self, String> {
        let out_of_range = || format!("must be an RFC 3339 date-time from {EARLIEST} up to {END}");
        let parsed = DateTime::parse_from_rfc3339(value.trim())
            .map_err(|_| out_of_range())?
            .with_timezone(&Utc);
        let earliest: DateTime<Utc> = EARLIEST.parse().expect("a valid constant");
        let end: DateTime<Utc> = END.parse().expect("a valid constant");
        if parsed < earliest || parsed >= end {
            return Err(out_of_range());
        }
        Ok(Self(parsed))
    }

    pub fn get(self) -> DateTime<Utc> {
        self.0
    }
}

impl From<Instant> for DateTime<Utc> {
    fn from(instant: Instant) -> Self {
        instant.0
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Cow::<'de, str>::deserialize(deserializer)?;
        Self::parse(&value).map_err(serde::de::Error::custom)
    }
}

impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl utoipa::PartialSchema for Instant {
    fn schema() -> RefOr<Schema> {
        RefOr::T(string_schema(
            SchemaFormat::KnownFormat(KnownFormat::DateTime),
            None,
            None,
        ))
    }
}

impl utoipa::ToSchema for Instant {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Instant")
    }
}
