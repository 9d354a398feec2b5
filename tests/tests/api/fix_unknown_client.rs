//! Fixing unknown callers, each scenario on both stores: linking a call (and its client
//! requests) to a client of the caller's organisation, moving the client statistics with it,
//! and writing nothing when any part of the fix cannot be made.

use http::StatusCode;
use integration_tests::{Backend, TestApp, error_fields, on_both_stores, spawn_app_with};
use serde_json::{Value, json};
use shared::clock::Clock;
use shared::fixture::Seed;
use shared::ids::{CallId, ClientId, OrganisationId, PortalId};
use shared::records::Client;
use shared::store::{FixLookup, FixRequest, FixTarget, StoreError};

use crate::demo::{NORD, NORR, SYD};
use crate::support::each;

const FIX: &str = "/organisations/fix-unknown-client";

/// Organisation 5 runs portals 11 and 12, organisation 9 portal 21.
/// - 7001: unknown caller at portal 11, two client requests.
/// - 7002 and 7004: calls of client 501 (portal 11); 7004 is the later one.
/// - 7003: unknown caller at portal 21.
/// - 7005: a nurse's leg connected to 7002, caller unknown.
/// - 503 is a deleted client of portal 11; 901 a client of organisation 9.
fn fixture() -> String {
    let call = |id: i32, portal: i32, client: i32, start: &str, end: &str| {
        json!({
            "id": id, "startDate": start, "endDate": end, "fromNumber": "+46701234567",
            "toNumber": "+4618100100", "summary": "A caller asked about tomorrow's visit.",
            "clientId": client, "isUnknown": client == 0, "portalId": portal
        })
    };
    let request = |id: i32, call: i32| {
        json!({
            "id": id, "createdAt": "2026-11-10T08:01:00Z", "request": "Call back please.",
            "clientId": 0, "portalId": 11, "phoneCallId": call, "status": "open"
        })
    };
    let client = |id: i32, portal: i32, name: &str, deleted: bool| {
        json!({
            "id": id, "name": name, "phone": format!("+4670555{id:04}"), "portalId": portal,
            "isDeleted": deleted, "language": "sv"
        })
    };
    let mut leg = call(7005, 11, 0, "2026-11-10T08:01:00Z", "2026-11-10T08:02:00Z");
    leg["connectedTo"] = json!(7002);
    json!({
        "portals": [
            {"id": 11, "name": "Hemtjänst Norr", "organisationId": 5},
            {"id": 12, "name": "Hemtjänst Syd", "organisationId": 5},
            {"id": 21, "name": "Omsorg Nord", "organisationId": 9}
        ],
        "accounts": [
            {"id": 111, "name": "Staff Norr", "phoneNumber": NORR, "portalId": 11},
            {"id": 112, "name": "Staff Syd", "phoneNumber": SYD, "portalId": 12},
            {"id": 121, "name": "Staff Nord", "phoneNumber": NORD, "portalId": 21}
        ],
        "clients": [
            client(501, 11, "Olof Forsberg", false),
            client(502, 12, "Karin Lund", false),
            client(503, 11, "Britt Viklund", true),
            client(901, 21, "Jan Åberg", false)
        ],
        "phoneCalls": [
            call(7001, 11, 0, "2026-11-18T08:00:00Z", "2026-11-18T08:05:00Z"),
            call(7002, 11, 501, "2026-11-10T08:00:00Z", "2026-11-10T08:02:00Z"),
            call(7003, 21, 0, "2026-11-19T08:00:00Z", "2026-11-19T08:01:00Z"),
            call(7004, 11, 501, "2026-11-19T10:00:00Z", "2026-11-19T10:10:00Z"),
            leg
        ],
        "clientRequests": [request(801, 7001), request(802, 7001)]
    })
    .to_string()
}

async fn spawn(backend: Backend) -> TestApp {
    spawn_app_with(backend, &fixture()).await
}

/// The call statistics of a listed client: total, last call, total seconds.
fn stats(client: &Value) -> (i64, Value, i64) {
    (
        client["totalCalls"].as_i64().unwrap(),
        client["lastCallAt"].clone(),
        client["callLengthInSeconds"].as_i64().unwrap(),
    )
}

async fn requests_of(app: &TestApp, token: &str, call: i32) -> Vec<(i64, i64)> {
    let answer = app
        .get(&format!("/phone-calls/{call}/requests"), Some(token))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    each(&answer.json(), |r| {
        (
            r["clientId"].as_i64().unwrap(),
            r["portalId"].as_i64().unwrap(),
        )
    })
}

async fn fixing_an_unknown_call_links_it_its_requests_and_its_statistics(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let syd = app.login(SYD).await;
    app.take_dynamo_requests();
    let answer = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7001, "clientId": 502}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    // Session and portal; the organisation's portals and the call with its requests; the
    // client looked up in each portal; one transaction; the access record; the count of the
    // clients this account opened this hour.
    app.expect_requests(&[
        ("GetItem", 2),
        ("Query", 2),
        ("BatchGetItem", 1),
        ("TransactWriteItems", 2),
        ("UpdateItem", 1),
    ]);
    let call = answer.json();
    assert_eq!(call["id"], 7001);
    assert_eq!(call["clientId"], 502);
    assert_eq!(call["portalId"], 12);
    assert_eq!(call["isUnknown"], false);
    assert_eq!(call["summary"], "A caller asked about tomorrow's visit.");

    // The call now belongs to portal 12: its staff read it, portal 11's no longer can.
    let thread = app.get("/phone-calls/7001", Some(&syd)).await.json();
    assert_eq!(thread[0]["clientId"], 502);
    assert_eq!(thread[0]["isUnknown"], false);
    app.get("/phone-calls/7001", Some(&norr))
        .await
        .problem(StatusCode::NOT_FOUND);
    assert_eq!(requests_of(&app, &syd, 7001).await, [(502, 12), (502, 12)]);

    let karin = app.listed_client(&syd, 502).await;
    assert_eq!(
        stats(&karin),
        (1, json!("2026-11-18T08:00:00Z"), 300),
        "{karin}"
    );
    assert_eq!(karin["callsLast7Days"], 1);
    assert_eq!(karin["primaryNumber"], Value::Null, "not given, not set");
}

/// Staff of portal 11 try to set the primary number (the number the scheduler dials) of a
/// client of portal 12 through a fix: 403, and nothing changes. The same fix without the
/// number, and a number for a client of their own portal, go through.
async fn a_primary_number_is_set_only_on_a_client_of_the_callers_own_portal(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let syd = app.login(SYD).await;
    let before = app.snapshot().await;
    let refused = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7001, "clientId": 502, "primaryNumber": "070-123 45 67"}),
        )
        .await
        .problem(StatusCode::FORBIDDEN);
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("primaryNumber"),
        "{refused}"
    );
    assert_eq!(app.snapshot().await, before, "a refused fix writes nothing");
    assert_eq!(
        app.listed_client(&syd, 502).await["primaryNumber"],
        Value::Null
    );

    let own = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7001, "clientId": 501, "primaryNumber": "070-123 45 67"}),
        )
        .await;
    assert_eq!(own.status, StatusCode::OK, "{}", own.json());
    assert_eq!(
        app.listed_client(&norr, 501).await["primaryNumber"],
        "+46701234567"
    );
}

/// Staff of portal 12 (same organisation) try to take portal 11's unknown call: 404, as for a
/// call that does not exist, and the call stays where it was.
async fn another_portals_call_cannot_be_fixed_even_inside_the_organisation(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let syd = app.login(SYD).await;
    let before = app.snapshot().await;
    let missing = app
        .post_json(
            FIX,
            Some(&syd),
            json!({"phoneCallId": 99999, "clientId": 502}),
        )
        .await
        .problem(StatusCode::NOT_FOUND);
    let taken = app
        .post_json(
            FIX,
            Some(&syd),
            json!({"phoneCallId": 7001, "clientId": 502}),
        )
        .await
        .problem(StatusCode::NOT_FOUND);
    assert_eq!(
        integration_tests::without_trace(taken),
        integration_tests::without_trace(missing),
        "another portal's call looks like no call"
    );
    assert_eq!(app.snapshot().await, before);
    let call = app.get("/phone-calls/7001", Some(&norr)).await.json();
    assert_eq!(call[0]["portalId"], 11);
    assert_eq!(call[0]["isUnknown"], true);
}

async fn refixing_moves_the_call_and_its_statistics_to_the_other_client(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let syd = app.login(SYD).await;
    let olof_before = app.listed_client(&norr, 501).await;
    assert_eq!(stats(&olof_before), (2, json!("2026-11-19T10:00:00Z"), 720));

    // 7004 was Karin calling from Olof's phone: it moves, with its ten minutes.
    let moved = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7004, "clientId": 502}),
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.json());
    let olof = app.listed_client(&norr, 501).await;
    assert_eq!(stats(&olof), (1, json!("2026-11-10T08:00:00Z"), 120));
    assert_eq!(olof["callsLast7Days"], 0);
    let karin = app.listed_client(&syd, 502).await;
    assert_eq!(stats(&karin), (1, json!("2026-11-19T10:00:00Z"), 600));
    assert_eq!(karin["primaryNumber"], Value::Null, "not given, not set");

    // Portal 12 staff move it back: both clients are as they were.
    let back = app
        .post_json(
            FIX,
            Some(&syd),
            json!({"phoneCallId": 7004, "clientId": 501}),
        )
        .await;
    assert_eq!(back.status, StatusCode::OK, "{}", back.json());
    assert_eq!(back.json()["portalId"], 11);
    assert_eq!(app.listed_client(&norr, 501).await, olof_before);
    assert_eq!(
        stats(&app.listed_client(&syd, 502).await),
        (0, Value::Null, 0)
    );

    // Fixing a call to the client it already has changes nothing, however often.
    for _ in 0..2 {
        let same = app
            .post_json(
                FIX,
                Some(&norr),
                json!({"phoneCallId": 7004, "clientId": 501}),
            )
            .await;
        assert_eq!(same.status, StatusCode::OK);
    }
    assert_eq!(app.listed_client(&norr, 501).await, olof_before);

    // A leg connected to another call is linked, but the conversation was counted once.
    let leg = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7005, "clientId": 501}),
        )
        .await;
    assert_eq!(leg.status, StatusCode::OK, "{}", leg.json());
    assert_eq!(leg.json()["isUnknown"], false);
    assert_eq!(app.listed_client(&norr, 501).await, olof_before);
}

async fn another_organisations_calls_and_clients_answer_404_and_stay_as_they_were(
    backend: Backend,
) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let nord = app.login(NORD).await;
    let missing_call = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 99999, "clientId": 501}),
        )
        .await
        .problem(StatusCode::NOT_FOUND);
    for (body, same_as) in [
        // Organisation 9's call, organisation 5's client.
        (json!({"phoneCallId": 7003, "clientId": 501}), &missing_call),
        // Organisation 5's call, organisation 9's client.
        (json!({"phoneCallId": 7001, "clientId": 901}), &Value::Null),
        // A deleted client, and one that does not exist.
        (json!({"phoneCallId": 7001, "clientId": 503}), &Value::Null),
        (
            json!({"phoneCallId": 7001, "clientId": 99999}),
            &Value::Null,
        ),
    ] {
        let problem = app
            .post_json(FIX, Some(&norr), body.clone())
            .await
            .problem(StatusCode::NOT_FOUND);
        if !same_as.is_null() {
            assert_eq!(
                integration_tests::without_trace(problem),
                integration_tests::without_trace(same_as.clone()),
                "another organisation's call looks like no call"
            );
        }
    }
    // Organisation 9 cannot take organisation 5's call either.
    app.post_json(
        FIX,
        Some(&nord),
        json!({"phoneCallId": 7001, "clientId": 901}),
    )
    .await
    .problem(StatusCode::NOT_FOUND);

    let unknown = app.get("/phone-calls/7001", Some(&norr)).await.json();
    assert_eq!(unknown[0]["isUnknown"], true);
    assert_eq!(unknown[0]["clientId"], 0);
    let theirs = app.get("/phone-calls/7003", Some(&nord)).await.json();
    assert_eq!(theirs[0]["isUnknown"], true);
    assert_eq!(stats(&app.listed_client(&nord, 901).await).0, 0);
}

async fn a_fix_that_fails_a_condition_writes_nothing_at_all(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let store = app.api.services.store.clone();
    let now = app.clock.now();
    let olof_before = app.listed_client(&norr, 501).await;

    // Read a fix of Olof's call 7004 to Karin, then Karin is deleted before it is written.
    let FixLookup::Found(target) = store.fix_target(fix(5, 7004, 502), now).await.unwrap() else {
        panic!("call and client are there");
    };
    assert_eq!(target.previous_client, Some((PortalId(11), ClientId(501))));
    let deleted = Client {
        is_deleted: true,
        ..target.client.clone()
    };
    store
        .write_seed(&Seed {
            clients: vec![deleted],
            ..Seed::default()
        })
        .await
        .unwrap();
    let failed = store.fix_call(&target, Some("+46701234567")).await;
    assert!(
        matches!(failed, Err(StoreError::ConditionFailed)),
        "{failed:?}"
    );
    // The call, Olof's statistics and the requests are untouched, though their own
    // conditions held.
    let call = app.get("/phone-calls/7004", Some(&norr)).await.json();
    assert_eq!(
        (call[0]["clientId"].clone(), call[0]["portalId"].clone()),
        (json!(501), json!(11))
    );
    assert_eq!(app.listed_client(&norr, 501).await, olof_before);

    // A fix read before another fix of the same call is refused whole as well.
    let FixLookup::Found(stale) = store.fix_target(fix(5, 7001, 501), now).await.unwrap() else {
        panic!("call and client are there");
    };
    let first = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7001, "clientId": 501}),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK);
    let again = FixTarget {
        previous_client: None,
        ..*stale
    };
    assert!(matches!(
        store.fix_call(&again, Some("+46709999999")).await,
        Err(StoreError::ConditionFailed)
    ));
    let olof = app.listed_client(&norr, 501).await;
    assert_eq!(olof["totalCalls"], 3, "counted once: {olof}");
    assert_eq!(olof["primaryNumber"], Value::Null, "{olof}");
    assert_eq!(requests_of(&app, &norr, 7001).await, [(501, 11), (501, 11)]);
}

/// Ten rounds, each fixing call 7001 onto a client while a PATCH of that same client runs:
/// the fix's number, the PATCH's fields and the call's statistics all land.
async fn a_fix_and_a_concurrent_patch_of_its_client_both_persist(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    // Fixing takes a call of the caller's own portal and sets a primary number only on a
    // client of it, so every round fixes portal 11's call onto portal 11's client.
    for round in 0..10 {
        let (client, token) = (501, &norr);
        let number = format!("+46701110{round:03}");
        let city = format!("Stad {round}");
        let fix = app.post_json(
            FIX,
            Some(&norr),
            json!({ "phoneCallId": 7001, "clientId": client, "primaryNumber": number }),
        );
        let path = format!("/clients/{client}");
        let patch = app.patch_json(
            &path,
            Some(token),
            json!({ "city": city, "zipCode": format!("{round:05}") }),
        );
        let (fixed, patched) = futures::join!(fix, patch);
        assert_eq!(fixed.status, StatusCode::OK, "{}", fixed.json());
        assert_eq!(patched.status, StatusCode::OK, "{}", patched.json());
        let listed = app.listed_client(token, client).await;
        assert_eq!(listed["primaryNumber"], number, "round {round}");
        assert_eq!(listed["city"], city, "round {round}");
        assert_eq!(listed["zipCode"], format!("{round:05}"), "round {round}");
        // Olof has his own two calls; the unknown call is counted on whoever holds it now.
        let own_calls = if client == 501 { 2 } else { 0 };
        assert_eq!(stats(&listed).0, own_calls + 1, "round {round}");
    }
}

async fn fix_requests_are_validated_field_by_field(backend: Backend) {
    let (app, norr) = spawn(backend).await.logged_in(NORR).await;
    let problem = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 0, "primaryNumber": "not a number"}),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert_eq!(
        error_fields(&problem),
        ["clientId", "phoneCallId", "primaryNumber"]
    );
    let problem = app
        .post_json(
            FIX,
            Some(&norr),
            json!({"phoneCallId": 7001, "clientId": 501, "portalId": 12}),
        )
        .await
        .problem(StatusCode::BAD_REQUEST);
    assert_eq!(error_fields(&problem), ["portalId"], "no mass assignment");
    app.post_json(
        FIX,
        Some(&norr),
        json!({"phoneCallId": -3, "clientId": 2147483648_i64}),
    )
    .await
    .problem(StatusCode::BAD_REQUEST);
    app.post_json(FIX, None, json!({"phoneCallId": 7001, "clientId": 501}))
        .await
        .problem(StatusCode::UNAUTHORIZED);
    let unknown = app.get("/phone-calls/7001", Some(&norr)).await.json();
    assert_eq!(unknown[0]["isUnknown"], true);
}

on_both_stores!(
    fixing_an_unknown_call_links_it_its_requests_and_its_statistics,
    refixing_moves_the_call_and_its_statistics_to_the_other_client,
    another_organisations_calls_and_clients_answer_404_and_stay_as_they_were,
    a_fix_that_fails_a_condition_writes_nothing_at_all,
    a_fix_and_a_concurrent_patch_of_its_client_both_persist,
    a_primary_number_is_set_only_on_a_client_of_the_callers_own_portal,
    another_portals_call_cannot_be_fixed_even_inside_the_organisation,
    fix_requests_are_validated_field_by_field,
);

/// A fix of call `call_id` to client `client_id` within organisation `organisation_id`.
fn fix(organisation_id: i32, call_id: i32, client_id: i32) -> FixRequest {
    FixRequest {
        organisation_id: OrganisationId(organisation_id),
        call_id: CallId(call_id),
        client_id: ClientId(client_id),
    }
}
