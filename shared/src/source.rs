//! The network a request came from, as the budgets a stranger could spend for somebody else
//! count it: one IPv4 address, or one IPv6 /64.
//!
//! An IPv6 customer is routed a /64 (usually more), so counting full IPv6 addresses would give
//! one stranger 2^64 budgets; a /64 is what one subscriber can be told apart by.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A request's source network: parsed once from the source address at the edge, compared and
/// stored (as its text) by the budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceNetwork {
    V4(Ipv4Addr),
    /// The first 64 bits of the address; the rest are zero.
    V6(Ipv6Addr),
    /// Neither API Gateway nor the TCP peer gave an address: every such request shares one
    /// budget.
    Unknown,
}

impl SourceNetwork {
    /// The network of `address`; an IPv4-mapped IPv6 address is its IPv4 address.
    pub fn of(address: IpAddr) -> Self {
        match address {
            IpAddr::V4(v4) => Self::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self::V4(v4),
                None => Self::V6(Ipv6Addr::from(
                    u128::from(v6) & 0xffff_ffff_ffff_ffff_0000_0000_0000_0000,
                )),
            },
        }
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Unknown)
    }
}

impl fmt::Display for SourceNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::V4(v4) => write!(f, "{v4}"),
            Self::V6(v6) => write!(f, "{v6}/64"),
            Self::Unknown => f.write_str("unknown"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("not a source network: {0:?}")]
pub struct NotANetwork(String);

impl FromStr for SourceNetwork {
    type Err = NotANetwork;

    /// The stored text, and also a full address: logs written before budgets were kept per
    /// network hold addresses, which read as their networks.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "unknown" {
            return Ok(Self::Unknown);
        }
        let address = text.strip_suffix("/64").unwrap_or(text);
        address
            .parse::<IpAddr>()
            .map(Self::of)
            .map_err(|_| NotANetwork(text.to_string()))
    }
}

impl Serialize for SourceNetwork {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SourceNetwork {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn network(text: &str) -> SourceNetwork {
        SourceNetwork::of(text.parse().unwrap())
    }

    #[test]
    fn every_address_of_one_slash_64_is_one_network() {
        assert_eq!(
            network("2001:db8:1:2:aaaa:bbbb:cccc:dddd"),
            network("2001:db8:1:2::1")
        );
        assert_ne!(network("2001:db8:1:2::1"), network("2001:db8:1:3::1"));
        assert_eq!(network("2001:db8:1:2::7").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn an_ipv4_address_is_its_own_network_however_it_is_written() {
        assert_eq!(network("::ffff:192.0.2.7"), network("192.0.2.7"));
        assert_ne!(network("192.0.2.7"), network("192.0.2.8"));
    }

    #[test]
    fn the_stored_text_reads_back_as_the_same_network() {
        for text in ["192.0.2.7", "2001:db8:1:2::/64", "unknown"] {
            let parsed: SourceNetwork = text.parse().unwrap();
            assert_eq!(parsed.to_string(), text);
        }
        let legacy: SourceNetwork = "2001:db8:1:2::99".parse().unwrap();
        assert_eq!(legacy, network("2001:db8:1:2::1"));
        assert!("not an address".parse::<SourceNetwork>().is_err());
    }
}
