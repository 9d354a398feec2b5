//! Budgets a stranger cannot spend for someone else, on both stores: an attacker's address
//! (127.0.0.2) hammers an integration's import and a staff member's login, while the
//! legitimate party comes from another address (127.0.0.3). The attacker's address is locked;
//! the integration and the staff member are not, and a pending code survives the hammering.
//! A stranger with 64 networks (32 IPv4 addresses, 32 IPv6 /64s, through `X-Forwarded-For`)
//! cannot stop a staff member logging in from a network she has logged in from before.

use http::StatusCode;
use integration_tests::{Backend, TestApp, TestResponse, on_both_stores, otp_in, spawn_app};
use serde_json::json;

use crate::demo::KARIN;

const ATTACKER: &str = "127.0.0.2";
const INTEGRATION: &str = "127.0.0.3";
const IMPORT: &str = "/portals/import-clients";
const REQUEST_OTP: &str = "/authentication/request-otp";

/// A secret shaped like a real one (43 base64url characters), but wrong.
const WRONG_SECRET: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

fn import(secret: &str) -> serde_json::Value {
    json!({"ssNs": ["19121212-1212"], "portalId": 1, "secret": secret})
}

/// A login code for Karin asked for from source address `ip`.
async fn karins_code_asked_from(app: &TestApp, ip: &str) -> TestResponse {
    app.post_json_from(ip, REQUEST_OTP, json!({"phoneNumber": KARIN}))
        .await
}

/// An import of one national id into portal 1 with `secret`, from source address `ip`.
async fn import_from(app: &TestApp, ip: &str, secret: &str) -> TestResponse {
    app.post_json_from(ip, IMPORT, import(secret)).await
}

fn sms_to(app: &TestApp, phone: &str) -> usize {
    app.api
        .outbox
        .messages()
        .iter()
        .filter(|m| m.to == phone)
        .count()
}

/// Item 3: ten anonymous wrong secrets used to lock portal 1's import for everyone, the right
/// secret included. Now only the address they came from is locked.
async fn wrong_import_secrets_lock_only_the_address_they_come_from(backend: Backend) {
    let app = spawn_app(backend).await;
    for _ in 0..10 {
        import_from(&app, ATTACKER, WRONG_SECRET)
            .await
            .problem(StatusCode::UNAUTHORIZED);
    }
    let locked = import_from(&app, ATTACKER, WRONG_SECRET).await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(locked.headers.contains_key("retry-after"));
    let right = app.api.import_secret(1);
    // The attacker's address stays locked even with the right secret.
    let still = import_from(&app, ATTACKER, &right).await;
    assert_eq!(still.status, StatusCode::TOO_MANY_REQUESTS);

    let imported = import_from(&app, INTEGRATION, &right).await;
    assert_eq!(imported.status, StatusCode::OK, "{}", imported.json());
}

/// An attack spread over many addresses meets the portal's own cap: 100 failures in 15
/// minutes from all addresses together lock the import for every address.
async fn a_spread_attack_meets_the_portals_cap(backend: Backend) {
    let app = spawn_app(backend).await;
    for address in 0..10 {
        let ip = format!("127.0.1.{address}");
        for _ in 0..10 {
            import_from(&app, &ip, WRONG_SECRET)
                .await
                .problem(StatusCode::UNAUTHORIZED);
        }
    }
    let right = app.api.import_secret(1);
    let refused = import_from(&app, INTEGRATION, &right).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    app.clock.advance(chrono::Duration::minutes(15));
    let later = import_from(&app, INTEGRATION, &right).await;
    assert_eq!(later.status, StatusCode::OK, "{}", later.json());
}

/// Item 4: five anonymous requests for a staff member's number used to give her 429 for an
/// hour and cancel her pending code. Now her code survives, and she can ask for another.
async fn login_codes_asked_from_another_address_neither_lock_nor_cancel(backend: Backend) {
    let app = spawn_app(backend).await;
    let mine = karins_code_asked_from(&app, INTEGRATION).await;
    assert_eq!(mine.status, StatusCode::ACCEPTED);
    let request_id = mine.json()["requestId"].as_str().unwrap().to_string();
    let code = app.last_code(KARIN);

    for _ in 0..5 {
        let hammer = karins_code_asked_from(&app, ATTACKER).await;
        assert_eq!(hammer.status, StatusCode::ACCEPTED);
    }
    let locked = karins_code_asked_from(&app, ATTACKER).await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        sms_to(&app, KARIN),
        6,
        "one code of hers, five of the attacker's"
    );

    // Her pending code still works.
    let session = app.validate(KARIN, &request_id, &code).await;
    assert_eq!(session.status, StatusCode::OK, "{}", session.json());

    // And she can still ask for a new one from her own address.
    let again = karins_code_asked_from(&app, INTEGRATION).await;
    assert_eq!(again.status, StatusCode::ACCEPTED);
    let message = app.api.outbox.messages().last().unwrap().message.clone();
    assert!(otp_in(&message).is_some());
}

/// A new code asked from the same address replaces that address's previous one.
async fn a_new_code_from_the_same_address_replaces_its_previous_one(backend: Backend) {
    let app = spawn_app(backend).await;
    let first = karins_code_asked_from(&app, INTEGRATION).await;
    let first_id = first.json()["requestId"].as_str().unwrap().to_string();
    let first_code = app.last_code(KARIN);
    let second = karins_code_asked_from(&app, INTEGRATION).await;
    let second_id = second.json()["requestId"].as_str().unwrap().to_string();
    let second_code = app.last_code(KARIN);
    app.validate(KARIN, &first_id, &first_code)
        .await
        .problem(StatusCode::UNAUTHORIZED);
    let session = app.validate(KARIN, &second_id, &second_code).await;
    assert_eq!(session.status, StatusCode::OK, "{}", session.json());
}

/// The hard cap: ten codes an hour to one number, from all addresses together (SMS cost, and
/// harassment of the number's owner).
async fn no_number_gets_more_than_ten_codes_an_hour(backend: Backend) {
    let app = spawn_app(backend).await;
    for address in 0..10 {
        let ip = format!("127.0.2.{address}");
        let sent = karins_code_asked_from(&app, &ip).await;
        assert_eq!(sent.status, StatusCode::ACCEPTED);
    }
    let capped = karins_code_asked_from(&app, INTEGRATION).await;
    assert_eq!(capped.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(sms_to(&app, KARIN), 10);
    app.clock.advance(chrono::Duration::minutes(61));
    let later = karins_code_asked_from(&app, INTEGRATION).await;
    assert_eq!(later.status, StatusCode::ACCEPTED);
}

/// The owner's own address, the TCP peer of her requests.
const OWNER: &str = "198.51.100.7";

/// The stranger's `index`th network (0..32 IPv4 addresses, 32..64 IPv6 /64s), with an
/// interface id that changes with `salt`: a new address inside the same /64 each time.
fn stranger(index: usize, salt: usize) -> String {
    if index < 32 {
        format!("203.0.113.{index}")
    } else {
        format!("2001:db8:0:{:x}:{:x}::{:x}", index - 32, salt, salt * 7 + 1)
    }
}

/// The owner logs in from `OWNER`; panics unless she gets a code and a session.
async fn owner_logs_in(app: &TestApp, minute: i64) {
    let issued = karins_code_asked_from(app, OWNER).await;
    assert_eq!(
        issued.status,
        StatusCode::ACCEPTED,
        "minute {minute}: {}",
        issued.json()
    );
    let request_id = issued.json()["requestId"].as_str().unwrap().to_string();
    let session = app
        .validate(KARIN, &request_id, &app.last_code(KARIN))
        .await;
    assert_eq!(
        session.status,
        StatusCode::OK,
        "minute {minute}: {}",
        session.json()
    );
}

/// Every simulated minute for two hours, each of a stranger's 64 networks asks for a code for
/// Karin's number (more than any budget allows), and then Karin, who logged in from her
/// network yesterday, logs in from it: every one of her 121 logins gets its code. The
/// stranger's codes meet the cap for networks she never logged in from: 10 an hour.
async fn a_stranger_with_64_networks_cannot_stop_the_owner_logging_in_every_minute(
    backend: Backend,
) {
    let app = spawn_app(backend).await;
    owner_logs_in(&app, -24 * 60).await;
    app.clock.advance(chrono::Duration::days(1));
    let before = sms_to(&app, KARIN);
    let (mut accepted, mut refused, mut owner) = (0, 0, 0);
    for minute in 0..=120 {
        for index in 0..64 {
            let answer = app
                .post_json_forwarded(
                    &stranger(index, minute as usize),
                    REQUEST_OTP,
                    json!({"phoneNumber": KARIN}),
                )
                .await;
            match answer.status {
                StatusCode::ACCEPTED => accepted += 1,
                StatusCode::TOO_MANY_REQUESTS => {
                    assert!(answer.headers.contains_key("retry-after"));
                    refused += 1;
                }
                other => panic!("minute {minute}: {other}"),
            }
        }
        owner_logs_in(&app, minute).await;
        owner += 1;
        app.clock.advance(chrono::Duration::minutes(1));
    }
    let sent = sms_to(&app, KARIN) - before;
    println!(
        "{backend:?}: stranger 202 {accepted}, 429 {refused}; SMS sent {sent}; owner logins {owner}"
    );
    assert_eq!(owner, 121);
    // The window slides: minutes 0, 60 and 120 each open ten more.
    assert_eq!((accepted, refused), (30, 64 * 121 - 30));
    assert_eq!(sent, owner + accepted);
}

/// Ten addresses of one IPv6 /64 are one network: five codes, then 429; another /64 still
/// gets its codes.
async fn a_stranger_spraying_one_slash_64_from_many_addresses_is_one_network(backend: Backend) {
    let app = spawn_app(backend).await;
    let mut answers = Vec::new();
    for host in 1..=10 {
        let address = format!("2001:db8:aa:bb:{host:x}::{host:x}");
        let answer = app
            .post_json_forwarded(&address, REQUEST_OTP, json!({"phoneNumber": KARIN}))
            .await;
        answers.push(answer.status.as_u16());
    }
    assert_eq!(answers, [202, 202, 202, 202, 202, 429, 429, 429, 429, 429]);
    let other = app
        .post_json_forwarded(
            "2001:db8:aa:bc::1",
            REQUEST_OTP,
            json!({"phoneNumber": KARIN}),
        )
        .await;
    assert_eq!(other.status, StatusCode::ACCEPTED);
}

/// A network the number logged in from keeps its own budget when strangers have spent the cap
/// for all other networks, and a code used to log in spends none of it.
async fn a_known_network_is_exempt_from_the_cap_and_its_used_codes_are_free(backend: Backend) {
    let app = spawn_app(backend).await;
    owner_logs_in(&app, 0).await;
    for host in 0..10 {
        let sent = app
            .post_json_forwarded(
                &format!("203.0.113.{host}"),
                REQUEST_OTP,
                json!({"phoneNumber": KARIN}),
            )
            .await;
        assert_eq!(sent.status, StatusCode::ACCEPTED);
    }
    let capped = karins_code_asked_from(&app, INTEGRATION).await;
    assert_eq!(capped.status, StatusCode::TOO_MANY_REQUESTS);
    for minute in 1..=10 {
        owner_logs_in(&app, minute).await;
    }
    // Codes she asks for and does not use still count: five, then her network's own 429.
    for _ in 0..5 {
        let unused = karins_code_asked_from(&app, OWNER).await;
        assert_eq!(unused.status, StatusCode::ACCEPTED);
    }
    let spent = karins_code_asked_from(&app, OWNER).await;
    assert_eq!(spent.status, StatusCode::TOO_MANY_REQUESTS);
    // Thirty days after her last login the network is a stranger's again.
    app.clock.advance(chrono::Duration::days(30));
    for host in 0..10 {
        app.post_json_forwarded(
            &format!("203.0.113.{host}"),
            REQUEST_OTP,
            json!({"phoneNumber": KARIN}),
        )
        .await;
    }
    let forgotten = karins_code_asked_from(&app, OWNER).await;
    assert_eq!(forgotten.status, StatusCode::TOO_MANY_REQUESTS);
}

on_both_stores!(
    a_stranger_with_64_networks_cannot_stop_the_owner_logging_in_every_minute,
    a_stranger_spraying_one_slash_64_from_many_addresses_is_one_network,
    a_known_network_is_exempt_from_the_cap_and_its_used_codes_are_free,
    wrong_import_secrets_lock_only_the_address_they_come_from,
    a_spread_attack_meets_the_portals_cap,
    login_codes_asked_from_another_address_neither_lock_nor_cancel,
    a_new_code_from_the_same_address_replaces_its_previous_one,
    no_number_gets_more_than_ten_codes_an_hour,
);
