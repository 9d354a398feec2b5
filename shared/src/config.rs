//! Configuration read once from the environment at cold start and passed in explicitly.

use chrono::Duration;

use crate::phone::DefaultRegion;

#[derive(Debug, thiserror::Error)]
#[error("configuration variable {name}: {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: String,
}

/// Names of the DynamoDB tables (`DATA_TABLE`, `AUTH_TABLE`, `ACCESS_LOG_TABLE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tables {
    pub data: String,
    pub auth: String,
    pub access_log: String,
}

/// Session and OTP rules of DESIGN.md section 4; tests shorten nothing, they move the clock.
#[derive(Debug, Clone)]
pub struct AuthRules {
    pub otp_lifetime: Duration,
    pub otp_max_attempts: u32,
    /// Codes sent to one number per hour and not yet used to log in: 5 per source network
    /// (an IPv4 address or an IPv6 /64: what one of a stranger's networks can spend of
    /// somebody's logins), 10 from all networks the number has not logged in from (the cap on
    /// SMS cost and on harassment of the number's owner by strangers).
    pub otp_sends: crate::domain::SourcedBudget,
    /// How long a network stays known to a number after a login from it: exempt from the
    /// cap for all networks, so strangers cannot spend its logins.
    pub otp_known_for: Duration,
    pub session_absolute: Duration,
    pub session_idle: Duration,
    /// A session's `lastSeenAt` is written at most this often, so most requests cost one read.
    pub session_touch_interval: Duration,
    /// How many clients an account may open in a period (`UnusualReadingClients`,
    /// `UnusualReadingMinutes`).
    pub reading: crate::store::reading::ReadingRules,
}

impl Default for AuthRules {
    fn default() -> Self {
        Self {
            otp_lifetime: Duration::minutes(10),
            otp_max_attempts: 5,
            otp_sends: crate::domain::SourcedBudget {
                per_source: 5,
                total: 10,
                window: Duration::hours(1),
            },
            otp_known_for: Duration::days(30),
            session_absolute: Duration::hours(12),
            session_idle: Duration::hours(2),
            session_touch_interval: Duration::seconds(60),
            reading: Default::default(),
        }
    }
}

/// Everything a function reads from its environment.
#[derive(Debug, Clone)]
pub struct Config {
    pub tables: Tables,
    pub region: DefaultRegion,
    /// Where the phone metadata is loaded (`PHONE_METADATA_LOAD`); unset, each function's own
    /// choice.
    pub phone_load: Option<crate::phone::MetadataLoad>,
    /// The zone portals' contact windows are written in (`PORTAL_TIME_ZONE`).
    pub time_zone: crate::zone::Zone,
    pub auth: AuthRules,
}

impl Config {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Same as `from_env` over any lookup, so tests never touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        Self::parse(lookup, None)
    }

    /// `local-api`'s settings: the same variables, with the tables (used with `--dynamodb`)
    /// named `call-handling-data` and `call-handling-auth` unless set.
    pub fn for_local(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        Self::parse(
            lookup,
            Some(Tables {
                data: "call-handling-data".into(),
                auth: "call-handling-auth".into(),
                access_log: "call-handling-access-log".into(),
            }),
        )
    }

    fn parse(
        lookup: impl Fn(&str) -> Option<String>,
        default_tables: Option<Tables>,
    ) -> Result<Self, ConfigError> {
        let required = |name: &'static str, default: Option<&String>| {
            lookup(name)
                .filter(|v| !v.is_empty())
                .or_else(|| default.cloned())
                .ok_or(ConfigError {
                    name,
                    problem: "is not set".into(),
                })
        };
        let region = match lookup("PHONE_DEFAULT_REGION") {
            Some(code) if !code.is_empty() => code.parse().map_err(|problem| ConfigError {
                name: "PHONE_DEFAULT_REGION",
                problem,
            })?,
            _ => DefaultRegion::default(),
        };
        let phone_load = match lookup("PHONE_METADATA_LOAD") {
            Some(load) if !load.is_empty() => {
                Some(load.parse().map_err(|problem| ConfigError {
                    name: "PHONE_METADATA_LOAD",
                    problem,
                })?)
            }
            _ => None,
        };
        let time_zone = time_zone(lookup("PORTAL_TIME_ZONE").as_deref())?;
        Ok(Self {
            tables: Tables {
                data: required("DATA_TABLE", default_tables.as_ref().map(|t| &t.data))?,
                auth: required("AUTH_TABLE", default_tables.as_ref().map(|t| &t.auth))?,
                access_log: required(
                    "ACCESS_LOG_TABLE",
                    default_tables.as_ref().map(|t| &t.access_log),
                )?,
            },
            region,
            phone_load,
            time_zone,
            auth: AuthRules {
                reading: reading_rules(&lookup)?,
                ..AuthRules::default()
            },
        })
    }
}

/// `UNUSUAL_READING_CLIENTS` and `UNUSUAL_READING_MINUTES`, each a whole number from 1;
/// the defaults when unset.
fn reading_rules(
    lookup: &impl Fn(&str) -> Option<String>,
) -> Result<crate::store::reading::ReadingRules, ConfigError> {
    let whole = |name: &'static str| -> Result<Option<u32>, ConfigError> {
        match lookup(name).filter(|value| !value.trim().is_empty()) {
            None => Ok(None),
            Some(value) => value
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|value| *value >= 1)
                .map(Some)
                .ok_or(ConfigError {
                    name,
                    problem: format!("must be a whole number from 1, not {value:?}"),
                }),
        }
    };
    let defaults = crate::store::reading::ReadingRules::default();
    Ok(crate::store::reading::ReadingRules {
        clients: whole("UNUSUAL_READING_CLIENTS")?.map_or(defaults.clients, |n| n as usize),
        period: whole("UNUSUAL_READING_MINUTES")?
            .map_or(defaults.period, |n| Duration::minutes(i64::from(n))),
    })
}

/// The IANA zone named by `PORTAL_TIME_ZONE`, `Europe/Stockholm` when unset.
pub fn time_zone(name: Option<&str>) -> Result<crate::zone::Zone, ConfigError> {
    match name.map(str::trim).filter(|name| !name.is_empty()) {
        None => Ok(crate::zone::Zone::stockholm()),
        Some(name) => crate::zone::Zone::named(name).map_err(|problem| ConfigError {
            name: "PORTAL_TIME_ZONE",
            problem,
        }),
    }
}

/// A secret given in the environment for local use (`OTP_HASH_KEY`, `IMPORT_SECRET`), or, in
/// AWS, the ARN of a Secrets Manager secret holding it (`OTP_HASH_KEY_SECRET_ARN`).
pub fn secret_source(
    lookup: impl Fn(&str) -> Option<String>,
    plain: &'static str,
    arn: &'static str,
) -> Result<SecretSource, ConfigError> {
    match (
        lookup(plain).filter(|v| !v.is_empty()),
        lookup(arn).filter(|v| !v.is_empty()),
    ) {
        (Some(value), _) => Ok(SecretSource::Plain(value)),
        (None, Some(arn)) => Ok(SecretSource::SecretsManager(arn)),
        (None, None) => Err(ConfigError {
            name: plain,
            problem: format!("neither {plain} nor {arn} is set"),
        }),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretSource {
    Plain(String),
    SecretsManager(String),
}

impl SecretSource {
    /// Resolves the secret once, at cold start.
    pub async fn resolve(
        &self,
        sdk: &aws_config::SdkConfig,
    ) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
        match self {
            Self::Plain(value) => Ok(value.clone()),
            Self::SecretsManager(arn) => {
                let client = aws_sdk_secretsmanager::Client::new(sdk);
                let out = client.get_secret_value().secret_id(arn).send().await?;
                out.secret_string
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| "secret has no string value".into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_table_names_are_reported_by_name() {
        let error = Config::from_lookup(|_| None).unwrap_err();
        assert_eq!(error.name, "DATA_TABLE");
    }

    #[test]
    fn local_api_names_its_tables_unless_they_are_set() {
        let local = Config::for_local(|_| None).unwrap();
        assert_eq!(local.tables.data, "call-handling-data");
        assert_eq!(local.tables.auth, "call-handling-auth");
        assert_eq!(local.tables.access_log, "call-handling-access-log");
        let named =
            Config::for_local(|name| (name == "DATA_TABLE").then(|| "mine".into())).unwrap();
        assert_eq!(named.tables.data, "mine");
    }

    #[test]
    fn region_defaults_to_sweden_and_can_be_changed() {
        let base = |name: &str| match name {
            "DATA_TABLE" => Some("d".to_string()),
            "AUTH_TABLE" => Some("a".to_string()),
            "ACCESS_LOG_TABLE" => Some("l".to_string()),
            _ => None,
        };
        assert_eq!(
            Config::from_lookup(base).unwrap().region,
            DefaultRegion::default()
        );
        let gb = Config::from_lookup(|n| {
            if n == "PHONE_DEFAULT_REGION" {
                Some("gb".into())
            } else {
                base(n)
            }
        })
        .unwrap();
        assert_eq!(gb.region.0, phonenumber::country::Id::GB);
    }

    #[test]
    fn the_phone_metadata_loads_where_the_function_chooses_unless_told_where() {
        let base = |name: &str| match name {
            "DATA_TABLE" | "AUTH_TABLE" | "ACCESS_LOG_TABLE" => Some("t".to_string()),
            _ => None,
        };
        let load = |value: &str| {
            let value = value.to_string();
            Config::from_lookup(move |n| {
                if n == "PHONE_METADATA_LOAD" {
                    Some(value.clone())
                } else {
                    base(n)
                }
            })
        };
        use crate::phone::MetadataLoad;
        assert_eq!(Config::from_lookup(base).unwrap().phone_load, None);
        assert_eq!(load("init").unwrap().phone_load, Some(MetadataLoad::Init));
        assert_eq!(
            load("first-use").unwrap().phone_load,
            Some(MetadataLoad::FirstUse)
        );
        assert_eq!(
            load("background").unwrap().phone_load,
            Some(MetadataLoad::Background)
        );
        let refused = load("later").unwrap_err();
        assert_eq!(refused.name, "PHONE_METADATA_LOAD");
    }

    #[test]
    fn the_portal_time_zone_defaults_to_stockholm_and_must_exist() {
        assert_eq!(time_zone(None).unwrap(), crate::zone::Zone::stockholm());
        assert_eq!(
            time_zone(Some("Europe/London")).unwrap(),
            crate::zone::Zone::named("Europe/London").unwrap()
        );
        assert_eq!(
            time_zone(Some("Mars/Olympus")).unwrap_err().name,
            "PORTAL_TIME_ZONE"
        );
    }
}
