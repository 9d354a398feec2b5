//! Client scenarios, each on both stores.

use chrono::Duration;
use http::StatusCode;
use integration_tests::{
    Backend, TestApp, access_record_write, error_fields, on_both_stores, without_trace,
};
use serde_json::{Value, json};

use crate::demo::KARIN;
use crate::support::{ids, spawn_logged_in};

const CLIENT_FIELDS: [&str; 24] = [
    "id",
    "name",
    "phone",
    "city",
    "street",
    "country",
    "zipCode",
    "about",
    "primaryNumber",
    "portalId",
    "email",
    "nationalId",
    "acceptedTermsAt",
    "totalCalls",
    "lastCallAt",
    "callLengthInSeconds",
    "callsLast7Days",
    "isUnknown",
    "memory",
    "isInactive",
    "isDeleted",
    "language",
    "extECareDetails",
    "isCustomerService",
];

fn client(list: &Value, id: i64) -> Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("client {id} in {list}"))
        .clone()
}

async fn clients(app: &TestApp, token: &str) -> Value {
    let answer = app.get("/clients", Some(token)).await;
    assert_eq!(answer.status, StatusCode::OK);
    answer.json()
}

async fn the_list_holds_the_portals_live_clients_with_derived_call_figures(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    let list = clients(&app, &token).await;
    app.expect_requests(&[("GetItem", 1), ("Query", 1), ("TransactWriteItems", 1)]);
    // Client 9 is deleted; 6 to 8 belong to other portals.
    assert_eq!(ids(&list, "id"), [1, 2, 3, 4, 5]);
    let mut fields: Vec<&str> = list[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    fields.sort();
    let mut expected = CLIENT_FIELDS.to_vec();
    expected.sort();
    assert_eq!(fields, expected);

    // Call 1001 (4 min 30 s) counts; 1002 is a leg transferred from it and does not.
    let gunnel = client(&list, 1);
    assert_eq!(gunnel["totalCalls"], 1);
    assert_eq!(gunnel["callLengthInSeconds"], 270);
    assert_eq!(gunnel["lastCallAt"], "2026-11-20T08:15:00Z");
    assert_eq!(gunnel["callsLast7Days"], 1);
    assert_eq!(gunnel["nationalId"], "193804122384");
    let elsie = client(&list, 5);
    assert_eq!(elsie["totalCalls"], 1);
    assert_eq!(elsie["callLengthInSeconds"], 180);
    let bertil = client(&list, 2);
    assert_eq!(bertil["totalCalls"], 0);
    assert_eq!(bertil["lastCallAt"], Value::Null);

    // A week later the calls are no longer recent, and the totals stand.
    app.clock.advance(Duration::days(7));
    let token = app.login(KARIN).await;
    let later = clients(&app, &token).await;
    assert_eq!(client(&later, 1)["callsLast7Days"], 0);
    assert_eq!(client(&later, 5)["callsLast7Days"], 0);
    assert_eq!(client(&later, 1)["totalCalls"], 1);
}

/// Follows `Link: <...>; rel="next"` from the first page to the last.
async fn walk_pages(app: &TestApp, token: &str, first: &str) -> (Vec<i64>, usize) {
    let mut next = Some(first.to_string());
    let mut seen = Vec::new();
    let mut pages = 0;
    while let Some(path) = next.take() {
        let answer = app.get(&path, Some(token)).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        let page = ids(&answer.json(), "id");
        app.expect_requests(&[
            ("GetItem", 1),
            ("Query", 1),
            access_record_write(page.len()),
        ]);
        pages += 1;
        seen.extend(page);
        next = answer.headers.get("link").map(|link| {
            let link = link.to_str().unwrap();
            assert!(link.ends_with(">; rel=\"next\""), "{link}");
            link[1..link.find('>').unwrap()].to_string()
        });
    }
    (seen, pages)
}

async fn pagination_walks_the_whole_list_exactly_once(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    app.take_dynamo_requests();
    for limit in [1, 2, 3, 5, 6, 1000] {
        let (seen, pages) = walk_pages(&app, &token, &format!("/clients?limit={limit}")).await;
        assert_eq!(seen, [1, 2, 3, 4, 5], "limit {limit}");
        assert_eq!(pages, 5usize.div_ceil(limit).max(1), "limit {limit}");
    }
    let whole = clients(&app, &token).await;
    assert_eq!(ids(&whole, "id"), [1, 2, 3, 4, 5]);
    let rest = app.get("/clients?cursor=2", Some(&token)).await.json();
    assert_eq!(ids(&rest, "id"), [3, 4, 5]);
}

async fn bad_page_parameters_are_refused(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("limit=abc", "limit"),
        ("limit=-1", "limit"),
        ("limit=2&cursor=bm9wZQ", "cursor"),
        ("limit=2&cursor=%%%", "cursor"),
        ("cursor=-1", "cursor"),
        ("cursor=2147483648", "cursor"),
    ] {
        let answer = app.get(&format!("/clients?{query}"), Some(&token)).await;
        let problem = answer.problem(StatusCode::BAD_REQUEST);
        assert!(problem["errors"][field].is_array(), "{query}: {problem}");
    }
}

async fn a_patch_sets_the_given_fields_and_leaves_absent_and_null_ones(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = client(&clients(&app, &token).await, 1);
    app.take_dynamo_requests();
    let answer = app
        .patch_json(
            "/clients/1",
            Some(&token),
            json!({
                "name": null,
                "phone": "070-123 45 67",
                "city": "  Stockholm ",
                "language": "SV-se",
                "zipCode": ""
            }),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    // The patch, and the count of the clients this account opened this hour.
    app.expect_requests(&[("GetItem", 1), ("UpdateItem", 2), ("TransactWriteItems", 1)]);
    let updated = answer.json();
    assert_eq!(updated["phone"], "+46701234567");
    assert_eq!(updated["city"], "Stockholm");
    assert_eq!(updated["language"], "sv-SE");
    assert_eq!(
        updated["zipCode"],
        Value::Null,
        "an empty zip code clears it"
    );
    for unchanged in ["name", "street", "country", "primaryNumber", "memory"] {
        assert_eq!(updated[unchanged], before[unchanged], "{unchanged}");
    }
    assert_eq!(updated["totalCalls"], 1, "derived fields in the answer too");
    assert_eq!(client(&clients(&app, &token).await, 1), updated);

    let untouched = app.patch_json("/clients/1", Some(&token), json!({})).await;
    assert_eq!(untouched.status, StatusCode::OK);
    assert_eq!(untouched.json(), updated);
}

async fn a_patch_of_any_other_field_is_refused_and_changes_nothing(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = clients(&app, &token).await;
    for body in [
        json!({"portalId": 2}),
        json!({"isDeleted": true, "name": "X"}),
        json!({"nationalId": "193804122384"}),
        json!({"totalCalls": 9}),
        json!({"name": 5}),
        json!(["name"]),
    ] {
        let answer = app
            .patch_json("/clients/1", Some(&token), body.clone())
            .await;
        answer.problem(StatusCode::BAD_REQUEST);
    }
    assert_eq!(clients(&app, &token).await, before);
}

async fn invalid_values_are_reported_field_by_field(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let before = clients(&app, &token).await;
    let answer = app
        .patch_json(
            "/clients/1",
            Some(&token),
            json!({
                "name": "   ",
                "phone": "call me maybe",
                "language": "Swedish please",
                "zipCode": "1".repeat(21),
                "street": "Storgatan\u{0}1",
                "city": "ok"
            }),
        )
        .await;
    let problem = answer.problem(StatusCode::BAD_REQUEST);
    let fields = error_fields(&problem);
    assert_eq!(fields, ["language", "name", "phone", "street", "zipCode"]);
    assert_eq!(clients(&app, &token).await, before, "nothing was written");
}

async fn another_portals_client_a_deleted_one_and_a_missing_one_are_alike_not_found(
    backend: Backend,
) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let body = json!({"city": "Visby"});
    let missing = app
        .patch_json("/clients/99999", Some(&token), body.clone())
        .await;
    let missing = without_trace(missing.problem(StatusCode::NOT_FOUND));
    for id in [6, 9] {
        let answer = app
            .patch_json(&format!("/clients/{id}"), Some(&token), body.clone())
            .await;
        assert_eq!(
            without_trace(answer.problem(StatusCode::NOT_FOUND)),
            missing
        );
    }
    let ahmed = app.login("+46701000002").await;
    let theirs = clients(&app, &ahmed).await;
    assert_eq!(ids(&theirs, "id"), [6, 7]);
    assert_eq!(
        client(&theirs, 6)["city"],
        "Lidingö",
        "portal 2's client kept"
    );
}

async fn twenty_one_concurrent_patches_of_distinct_fields_all_persist(backend: Backend) {
    let (app, token) = spawn_logged_in(backend, KARIN).await;
    let fields = [
        ("name", "Namn"),
        ("phone", "+4670555"),
        ("city", "Stad"),
        ("street", "Gata"),
        ("country", "Land"),
        ("zipCode", "Zip"),
        ("language", "en"),
    ];
    let patches = (1..=3).flat_map(|id| {
        fields.iter().enumerate().map(move |(i, (field, value))| {
            let value = if *field == "phone" {
                format!("{value}{id}{i:03}")
            } else if *field == "language" {
                value.to_string()
            } else {
                format!("{value} {id}")
            };
            (id, field.to_string(), value)
        })
    });
    let requests = patches.clone().map(|(id, field, value)| {
        let app = &app;
        let token = &token;
        async move {
            let path = format!("/clients/{id}");
            app.patch_json(&path, Some(token), json!({ field: value }))
                .await
        }
    });
    for answer in futures::future::join_all(requests).await {
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    }
    let list = clients(&app, &token).await;
    for (id, field, value) in patches {
        assert_eq!(
            client(&list, id)[&field],
            value.as_str(),
            "client {id} {field}"
        );
    }
}

on_both_stores!(
    the_list_holds_the_portals_live_clients_with_derived_call_figures,
    pagination_walks_the_whole_list_exactly_once,
    bad_page_parameters_are_refused,
    a_patch_sets_the_given_fields_and_leaves_absent_and_null_ones,
    a_patch_of_any_other_field_is_refused_and_changes_nothing,
    invalid_values_are_reported_field_by_field,
    another_portals_client_a_deleted_one_and_a_missing_one_are_alike_not_found,
    twenty_one_concurrent_patches_of_distinct_fields_all_persist,
);
