//! Reading the access log: a client's extract across the organisation's portals, the portal's
//! log filtered and reviewed by its admins, and a thousand cross-portal attempts that read
//! nothing.

use super::*;
use crate::support::{each, spawn_logged_in, texts};

/// A client's extract: every access from every portal of the organisation, newest first,
/// page by page; another portal's admin or organisation sees a missing client; staff 403.
async fn a_clients_extract_lists_every_access_newest_first_in_pages(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    let ahmed = app.login(AHMED).await;
    let sara = app.login(SARA).await;
    let emil = app.login(EMIL).await;
    app.clock.advance(TimeDelta::seconds(1));
    app.get("/phone-calls/1001", Some(&emil)).await;
    app.clock.advance(TimeDelta::seconds(1));
    // Ahmed, in portal 2, is shown client 1 among the organisation's candidates.
    let suggestion = app
        .post_json(
            "/organisations/suggest-unknown-client",
            Some(&ahmed),
            json!({"summary": "Gunnel Andersson ringde.", "fromNumber": "+46731110001"}),
        )
        .await;
    assert!(suggestion.json().to_string().contains("\"clientId\":1"));
    app.clock.advance(TimeDelta::seconds(1));
    app.get("/clients", Some(&karin)).await;
    app.clock.advance(TimeDelta::seconds(1));

    let extract = app.get("/access-log/clients/1", Some(&karin)).await;
    assert_eq!(extract.status, StatusCode::OK);
    let entries = extract.json();
    let summary: Vec<(i64, String, String)> = each(&entries, |entry| {
        (
            entry["portalId"].as_i64().unwrap(),
            entry["action"].as_str().unwrap().to_string(),
            entry["accessor"]["name"].as_str().unwrap().to_string(),
        )
    });
    assert_eq!(
        summary,
        [
            (1, "clients.list".to_string(), "Karin Nyström".to_string()),
            (2, "client.suggest".into(), "Ahmed Hassan".into()),
            (1, "call.read".into(), "Emil Sandberg".into()),
        ]
    );
    assert!(entries[0]["at"].as_str() > entries[2]["at"].as_str());

    // Pages of one, following Link headers, give the same entries (plus the extract itself).
    app.clock.advance(TimeDelta::seconds(1));
    let mut paged = Vec::new();
    let mut next = Some("/access-log/clients/1?limit=1".to_string());
    while let Some(path) = next {
        let page = app.get(&path, Some(&karin)).await;
        assert_eq!(page.status, StatusCode::OK);
        paged.extend(page.json().as_array().unwrap().clone());
        next = page.headers.get("link").map(|link| {
            let link = link.to_str().unwrap();
            link[1..link.find('>').unwrap()].to_string()
        });
        app.clock.advance(TimeDelta::seconds(1));
    }
    assert_eq!(paged.len(), 4, "the first extract, then the three accesses");
    assert_eq!(paged[0]["action"], "access-log.client.read");
    assert_eq!(paged[1..], entries.as_array().unwrap()[..]);

    // Ahmed's and Sara's: a missing client, as a missing id is.
    let missing = app.get("/access-log/clients/999", Some(&ahmed)).await;
    for token in [&ahmed, &sara] {
        let other = app.get("/access-log/clients/1", Some(token)).await;
        assert_eq!(
            without_trace(other.problem(StatusCode::NOT_FOUND)),
            without_trace(missing.problem(StatusCode::NOT_FOUND))
        );
    }
    assert_eq!(
        app.get("/access-log/clients/1?cursor=bad", Some(&karin))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    // A cursor typed by hand is a position like any other: one before `from` pages nothing.
    let early = app
        .get(
            "/access-log?from=2026-01-01T00:00:00Z&cursor=2025-01-01T00:00:00.000000Z%23x%230",
            Some(&karin),
        )
        .await;
    assert_eq!(early.status, StatusCode::OK);
    assert_eq!(early.json(), json!([]));
    // Another organisation's admin filtering her own log by client 1 puts nothing into
    // client 1's extract: only a client of the caller's portal is recorded.
    let before = app.get("/access-log/clients/1", Some(&karin)).await.json();
    let filtered = app.get("/access-log?clientId=1", Some(&sara)).await;
    assert_eq!(filtered.status, StatusCode::OK);
    assert_eq!(filtered.json(), json!([]));
    let after = app.get("/access-log/clients/1", Some(&karin)).await.json();
    assert_eq!(
        after.as_array().unwrap().len(),
        before.as_array().unwrap().len() + 1
    );
    assert_eq!(
        after[0]["action"], "access-log.client.read",
        "Karin's read of it, only"
    );
    assert!(
        after
            .as_array()
            .unwrap()
            .iter()
            .all(|entry| entry["portalId"] != 3)
    );
}

/// The portal's log by account, client and time, in pages, and reviews that record their
/// sample, reviewer and conclusion.
async fn admins_filter_the_portal_log_and_record_reviews_of_it(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    let emil = app.login(EMIL).await;
    let first = start_time() + TimeDelta::minutes(1);
    app.clock.set(first);
    app.get("/phone-calls/1001", Some(&emil)).await;
    app.clock.advance(TimeDelta::minutes(1));
    app.get("/phone-calls/1003", Some(&karin)).await;
    app.clock.advance(TimeDelta::minutes(1));
    app.get("/clients", Some(&emil)).await;
    app.clock.advance(TimeDelta::minutes(1));

    let list = |query: &str| format!("/access-log?{query}");
    let emils = app.get(&list("accountId=4"), Some(&karin)).await.json();
    assert_eq!(texts(&emils, "action"), ["clients.list", "call.read"]);
    let client_5 = app.get(&list("clientId=5"), Some(&karin)).await.json();
    assert_eq!(texts(&client_5, "action"), ["clients.list", "call.read"]);
    assert!(
        client_5
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["clientIds"] == json!([5]))
    );
    let window = format!(
        "from={}&to={}",
        (first + TimeDelta::seconds(30)).to_rfc3339(),
        (first + TimeDelta::seconds(90)).to_rfc3339()
    )
    .replace('+', "%2B");
    let middle = app.get(&list(&window), Some(&karin)).await.json();
    assert_eq!(middle.as_array().unwrap().len(), 1, "{middle}");
    assert_eq!(middle[0]["callIds"], json!([1003]));

    let page = app.get(&list("accountId=4&limit=1"), Some(&karin)).await;
    let link = page.headers["link"].to_str().unwrap().to_string();
    assert!(link.contains("accountId=4"), "{link}");
    let next = app
        .get(&link[1..link.find('>').unwrap()], Some(&karin))
        .await
        .json();
    assert_eq!(next[0]["action"], "call.read");

    for bad in [
        "from=yesterday",
        "accountId=0",
        "limit=0",
        "to=2020-01-01T00:00:00Z&from=2021-01-01T00:00:00Z",
        "unknown=1",
    ] {
        let answer = app.get(&list(bad), Some(&karin)).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    assert_eq!(
        app.get("/access-log", Some(&emil)).await.status,
        StatusCode::FORBIDDEN
    );

    let review = app
        .post_json(
            "/access-log/reviews",
            Some(&karin),
            json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2,
                   "conclusion": "All sampled accesses were part of care."}),
        )
        .await;
    assert_eq!(review.status, StatusCode::CREATED, "{}", review.json());
    let review = review.json();
    assert_eq!(review["sampleSize"], 2);
    assert_eq!(review["drawn"].as_array().unwrap().len(), 2);
    assert_eq!(review["records"].as_array().unwrap().len(), 2);
    assert_eq!(review["reviewer"]["name"], "Karin Nyström");
    let population = review["population"].as_u64().unwrap();
    assert!(population >= 3, "{review}");
    for record in review["records"].as_array().unwrap() {
        assert!(review["drawn"].as_array().unwrap().contains(&record["id"]));
    }
    let reviews = app.get("/access-log/reviews", Some(&karin)).await.json();
    assert_eq!(reviews.as_array().unwrap().len(), 1);
    assert_eq!(reviews[0]["id"], review["id"]);
    assert_eq!(reviews[0]["drawn"], review["drawn"]);
    for bad in [
        json!({"from": start_time(), "to": start_time(), "sampleSize": 2, "conclusion": "x"}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 0, "conclusion": "x"}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2, "conclusion": " "}),
        json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2}),
    ] {
        let answer = app
            .post_json("/access-log/reviews", Some(&karin), bad.clone())
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let staff = app
        .post_json(
            "/access-log/reviews",
            Some(&emil),
            json!({"from": start_time(), "to": app.clock.now(), "sampleSize": 2, "conclusion": "x"}),
        )
        .await;
    assert_eq!(staff.status, StatusCode::FORBIDDEN);
    assert_eq!(
        app.get("/access-log/reviews", Some(&karin))
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        1,
        "refused reviews are not recorded"
    );
}

/// 1,000 attempts by other portals' admins, another organisation's admin and portal 1's
/// staff to read portal 1's log through every log route, with forged cursors and filters:
/// none returns anything of portal 1.
async fn a_thousand_cross_portal_attempts_on_the_log_routes_read_nothing(backend: Backend) {
    let (app, karin) = spawn_logged_in(backend, KARIN).await;
    app.get("/phone-calls/1001", Some(&karin)).await;
    app.get("/clients", Some(&karin)).await;
    let review = app
        .post_json(
            "/access-log/reviews",
            Some(&karin),
            json!({"from": start_time(), "to": start_time() + TimeDelta::hours(1),
                   "sampleSize": 1, "conclusion": "Portal 1's own review."}),
        )
        .await;
    assert_eq!(review.status, StatusCode::CREATED);
    let portal_1_ids: Vec<String> = app
        .access_records(&[1])
        .await
        .into_iter()
        .map(|record| record.id)
        .collect();
    let tokens = [
        (app.login(AHMED).await, 2),
        (app.login(SARA).await, 3),
        (app.login(EMIL).await, 1),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let mut through = Vec::new();
    let attempts = 1000;
    for _ in 0..attempts {
        let (token, portal) = &tokens[rng.random_range(0..tokens.len())];
        let client = [1, 2, 3, 4, 5, 9][rng.random_range(0..6)];
        let forged = portal_1_ids[rng.random_range(0..portal_1_ids.len())]
            .replace('#', "%23")
            .replace('=', "%3D");
        let path = match rng.random_range(0..6) {
            0 => format!("/access-log/clients/{client}"),
            1 => format!("/access-log/clients/{client}?limit=1&cursor={forged}"),
            2 => format!("/access-log?clientId={client}"),
            3 => "/access-log?accountId=1".to_string(),
            4 => format!("/access-log?limit=5&cursor={forged}"),
            _ => "/access-log/reviews".to_string(),
        };
        let answer = app.get(&path, Some(token)).await;
        let body = String::from_utf8_lossy(&answer.body).to_string();
        let leaked = match answer.status.as_u16() {
            403 | 404 => false,
            200 => answer
                .json()
                .as_array()
                .unwrap()
                .iter()
                .any(|item| item["portalId"] != *portal || body.contains("Karin")),
            other => panic!("{path}: {other} {body}"),
        };
        if leaked || (*portal == 1 && answer.status != StatusCode::FORBIDDEN) {
            through.push(path);
        }
    }
    assert_eq!(
        through,
        Vec::<String>::new(),
        "{} of {attempts}",
        through.len()
    );
}

on_both_stores!(
    a_clients_extract_lists_every_access_newest_first_in_pages,
    admins_filter_the_portal_log_and_record_reviews_of_it,
    a_thousand_cross_portal_attempts_on_the_log_routes_read_nothing,
);
