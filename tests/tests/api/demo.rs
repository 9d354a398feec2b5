//! The fixtures' people and numbers that the scenarios log in, call and text with.

// The demo fixture (`local_api::DEMO_FIXTURE`): organisation 1 with portals 1 and 2,
// organisation 2 with portal 3.

/// Admin of portal 1.
pub const KARIN: &str = "+46701000001";
/// Admin of portal 2 (Lidingö).
pub const AHMED: &str = "+46701000002";
/// Admin of portal 3, of organisation 2.
pub const SARA: &str = "+46701000003";
/// Staff member of portal 1.
pub const EMIL: &str = "+46701000004";
/// A number no account, client or contact has.
pub const NOBODY: &str = "+46709999999";
/// Portal 1's own line, that its clients call.
pub const PORTAL_LINE: &str = "+4687001000";
/// Portal 1's contacts: 301 (day, 07-16), 302 (evening, 16-22), 303 (night, 22-07).
pub const DAY: &str = "+4687001050";
pub const EVENING: &str = "+4687001060";
pub const NIGHT: &str = "+4687001070";
/// Portal 1's client 1, Gunnel (one open request, one answered).
pub const GUNNEL: &str = "+46731110001";
/// Portal 1's client 3, Margareta Lindqvist, who has no calls.
pub const MARGARETA: &str = "+46731110003";
pub const CLIENT_3: &str = MARGARETA;
/// Portal 2's client Sven-Olof.
pub const SVEN_OLOF: &str = "+46731110006";
/// Edvin Holm, a deleted client of portal 1.
pub const EDVIN: &str = "+46731110009";

// The evaluation fixture: staff of portals 11 and 12 (both organisation 5) and of portal 21
// (organisation 9).

pub const NORR: &str = "+46700000011";
pub const SYD: &str = "+46700000012";
pub const NORD: &str = "+46700000021";
