//! Tenant isolation, on both stores: every account tries, 1,000 times in a seeded random
//! order, to read, update, fix, add questions to, start questionnaires for and import into
//! records of other portals and organisations by id. None succeeds, nothing changes, and every
//! answer is the answer the same request gets for an id that exists nowhere (but setting the
//! primary number of a client of another portal of the organisation, which that client's
//! suggestion shows exists: 403).

use std::collections::HashMap;

use http::{Method, StatusCode};
use integration_tests::{
    Backend, TestApp, TestResponse, add_questionnaire_copy, on_both_stores, spawn_app_with,
    without_trace,
};
use local_api::DEMO_FIXTURE;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

const ATTEMPTS_PER_ACCOUNT: usize = 1_000;

/// An account and what is its own and what is another tenant's.
struct Tenant {
    phone: &'static str,
    portal: i64,
    /// Its own unknown call and own client, the legitimate half of a cross-tenant fix.
    own_call: i64,
    own_client: i64,
    /// Records of other portals, reachable by id through no endpoint for this account.
    foreign_calls: Vec<i64>,
    foreign_clients: Vec<i64>,
    foreign_contacts: Vec<i64>,
    foreign_portals: Vec<i64>,
    /// Clients outside the account's organisation (fixing links a call to a client of any
    /// portal of the organisation).
    other_organisation_clients: Vec<i64>,
    /// Clients of the organisation's other portals: a fix may link to them, but never set
    /// their primary number.
    sibling_portal_clients: Vec<i64>,
    /// Questionnaires of other organisations.
    foreign_questionnaires: Vec<i64>,
}

/// The demo fixture (organisation 1: portals 1 and 2; organisation 2: portal 3) plus a call
/// with a request, a contact detail and an unknown call in portal 3, so every tenant has
/// records of each kind for the others to aim at.
fn three_tenant_fixture() -> String {
    let mut fixture: Value = serde_json::from_str(DEMO_FIXTURE).unwrap();
    // A copy of the demo's fifth call in portal 3, as call `id` of `client`, its lines from
    // `first_line`.
    let copy = |id: i64, client: i64, first_line: usize| {
        let mut call = fixture["phoneCalls"][4].clone();
        call["id"] = json!(id);
        call["portalId"] = json!(3);
        call["clientId"] = json!(client);
        call["uuid"] = json!(format!("c0ffee00-0000-4000-8000-00000000{id:04}"));
        call["conversationUuid"] = json!(format!("conv-{id}"));
        for (i, line) in call["transcript"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            line["id"] = json!(first_line + i);
            line["phoneCallId"] = json!(id);
        }
        call
    };
    let call = copy(3001, 8, 6001);
    let mut unknown = copy(3002, 0, 6101);
    unknown["isUnknown"] = json!(true);
    let mut request = fixture["clientRequests"][3].clone();
    request["id"] = json!(705);
    request["portalId"] = json!(3);
    request["clientId"] = json!(8);
    request["phoneCallId"] = json!(3001);
    request["phoneCallTranscriptLineId"] = json!(6002);
    let mut contact = fixture["contactDetails"][3].clone();
    contact["id"] = json!(305);
    contact["portalId"] = json!(3);
    fixture["phoneCalls"]
        .as_array_mut()
        .unwrap()
        .extend([call, unknown]);
    fixture["clientRequests"]
        .as_array_mut()
        .unwrap()
        .push(request);
    fixture["contactDetails"]
        .as_array_mut()
        .unwrap()
        .push(contact);
    // Organisation 2's own questionnaire: a copy of 11 without entries or answers.
    add_questionnaire_copy(&mut fixture, 13, Some(2), 31);
    fixture.to_string()
}

fn tenants() -> Vec<Tenant> {
    let calls = [
        (1, vec![1001, 1002, 1003, 1004]),
        (2, vec![2001]),
        (3, vec![3001, 3002]),
    ];
    let clients = [(1, vec![1, 2, 3, 4, 5, 9]), (2, vec![6, 7]), (3, vec![8])];
    let contacts = [(1, vec![301, 302, 303]), (2, vec![304]), (3, vec![305])];
    let organisation = |portal: i64| if portal == 3 { 2 } else { 1 };
    let others = |table: &[(i64, Vec<i64>)], keep: &dyn Fn(i64) -> bool| -> Vec<i64> {
        table
            .iter()
            .filter(|(portal, _)| keep(*portal))
            .flat_map(|(_, ids)| ids.clone())
            .collect()
    };
    [
        ("+46701000001", 1, 1004, 1),
        ("+46701000002", 2, 2001, 6),
        ("+46701000003", 3, 3002, 8),
    ]
    .into_iter()
    .map(|(phone, portal, own_call, own_client)| Tenant {
        phone,
        portal,
        own_call,
        own_client,
        foreign_calls: others(&calls, &|p| p != portal),
        foreign_clients: others(&clients, &|p| p != portal),
        foreign_contacts: others(&contacts, &|p| p != portal),
        foreign_portals: (1..=3).filter(|p| *p != portal).collect(),
        other_organisation_clients: others(&clients, &|p| organisation(p) != organisation(portal)),
        // Client 9 is deleted: a fix cannot link to it at all.
        sibling_portal_clients: others(&clients, &|p| {
            p != portal && organisation(p) == organisation(portal)
        })
        .into_iter()
        .filter(|client| *client != 9)
        .collect(),
        foreign_questionnaires: if organisation(portal) == 1 {
            vec![13]
        } else {
            vec![11]
        },
    })
    .collect()
}

/// One cross-tenant request, as a function of the id it aims at, so the same request can be
/// sent again with an id no record has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Attempt {
    ReadCall,
    ReadCallRequests,
    PatchClient,
    ReadContact,
    PutContact,
    ReadPortal,
    FixForeignCall,
    FixWithForeignClient,
    FixSettingSiblingPrimaryNumber,
    StartForForeignClient,
    StartForeignQuestionnaire,
    AddQuestionToForeignQuestionnaire,
    ImportIntoForeignPortal,
}

const ATTEMPTS: [Attempt; 13] = [
    Attempt::ReadCall,
    Attempt::ReadCallRequests,
    Attempt::PatchClient,
    Attempt::ReadContact,
    Attempt::PutContact,
    Attempt::ReadPortal,
    Attempt::FixForeignCall,
    Attempt::FixWithForeignClient,
    Attempt::FixSettingSiblingPrimaryNumber,
    Attempt::StartForForeignClient,
    Attempt::StartForeignQuestionnaire,
    Attempt::AddQuestionToForeignQuestionnaire,
    Attempt::ImportIntoForeignPortal,
];

/// An id that no record of any kind has, nor the two above it.
const MISSING: i64 = 424_242;

impl Attempt {
    fn targets(self, tenant: &Tenant) -> &[i64] {
        match self {
            Self::ReadCall | Self::ReadCallRequests => &tenant.foreign_calls,
            Self::PatchClient | Self::StartForForeignClient => &tenant.foreign_clients,
            Self::ReadContact | Self::PutContact => &tenant.foreign_contacts,
            Self::ReadPortal | Self::ImportIntoForeignPortal => &tenant.foreign_portals,
            // Fixing takes only a call of the caller's own portal.
            Self::FixForeignCall => &tenant.foreign_calls,
            Self::FixWithForeignClient => &tenant.other_organisation_clients,
            Self::FixSettingSiblingPrimaryNumber => &tenant.sibling_portal_clients,
            Self::StartForeignQuestionnaire | Self::AddQuestionToForeignQuestionnaire => {
                &tenant.foreign_questionnaires
            }
        }
    }

    async fn send(self, app: &TestApp, tenant: &Tenant, token: &str, id: i64) -> TestResponse {
        let token = Some(token);
        match self {
            Self::ReadCall => app.get(&format!("/phone-calls/{id}"), token).await,
            Self::ReadCallRequests => app.get(&format!("/phone-calls/{id}/requests"), token).await,
            Self::PatchClient => {
                let body = json!({ "city": "Elsewhere", "note": "taken over" });
                app.patch_json(&format!("/clients/{id}"), token, body).await
            }
            Self::ReadContact => app.get(&format!("/contact-details/{id}"), token).await,
            Self::PutContact => {
                let body = json!({
                    "name": "Taken over", "contactNumber": "+4687009999", "contactEmail": null,
                    "contactBetweenStart": null, "contactBetweenEnd": null,
                    "priority": 1, "isActive": false
                });
                app.put_json(&format!("/contact-details/{id}"), token, body)
                    .await
            }
            Self::ReadPortal => app.get(&format!("/portals/{id}"), token).await,
            Self::FixForeignCall => {
                let body = json!({ "phoneCallId": id, "clientId": tenant.own_client });
                app.post_json("/organisations/fix-unknown-client", token, body)
                    .await
            }
            Self::FixWithForeignClient => {
                let body = json!({ "phoneCallId": tenant.own_call, "clientId": id });
                app.post_json("/organisations/fix-unknown-client", token, body)
                    .await
            }
            Self::FixSettingSiblingPrimaryNumber => {
                let body = json!({
                    "phoneCallId": tenant.own_call, "clientId": id,
                    "primaryNumber": "+46709990000"
                });
                app.post_json("/organisations/fix-unknown-client", token, body)
                    .await
            }
            Self::StartForeignQuestionnaire => {
                let body = json!([{
                    "clientId": tenant.own_client, "questionnaireId": id,
                    "startDate": "2026-11-23T09:00:00Z",
                    "interval": 2, "retries": 3, "intervalBackOffMultiplier": 1.5
                }]);
                let path = format!("/questionnaires/{id}/start-for-clients");
                app.send_json(Method::POST, &path, token, body).await
            }
            Self::AddQuestionToForeignQuestionnaire => {
                let body = json!({"position": 1, "prompt": "Taken over?", "type": "text"});
                app.post_json(&format!("/questionnaires/{id}/questions"), token, body)
                    .await
            }
            Self::StartForForeignClient => {
                let body = json!([{
                    "clientId": id, "questionnaireId": 11, "startDate": "2026-11-23T09:00:00Z",
                    "interval": 2, "retries": 3, "intervalBackOffMultiplier": 1.5
                }]);
                let path = "/questionnaires/11/start-for-clients";
                app.send_json(Method::POST, path, token, body).await
            }
            Self::ImportIntoForeignPortal => {
                let body = json!({
                    "ssNs": ["19121212-1212"],
                    "portalId": id,
                    "secret": app.api.import_secret(tenant.portal as i32),
                });
                app.post_json("/portals/import-clients", None, body).await
            }
        }
    }
}

/// What an answer shows a caller: status, content type, and the problem without its trace id.
/// The import's rate-limit answer names the seconds left, which differ by portal; its members
/// but `detail` are compared.
fn visible(answer: &TestResponse) -> (StatusCode, String, Value) {
    let mut body = answer.json();
    let object = body.as_object_mut().expect("a problem object");
    object.remove("traceId");
    if answer.status == StatusCode::TOO_MANY_REQUESTS {
        assert!(answer.headers.contains_key("retry-after"));
        object.remove("detail");
    }
    (answer.status, answer.content_type().to_string(), body)
}

/// Everything each tenant can see through the API, to compare before and after.
async fn every_view(app: &TestApp, tokens: &[String], tenants: &[Tenant]) -> Vec<Value> {
    let mut views = Vec::new();
    for (tenant, token) in tenants.iter().zip(tokens) {
        let token = Some(token.as_str());
        // Questionnaire 11 is organisation 1's and 13 organisation 2's: the other sees a 404 problem, whose
        // trace id differs per request.
        for path in [
            "/clients",
            "/contact-details",
            "/questionnaires",
            "/questionnaires/11",
            "/questionnaires/13",
        ] {
            views.push(without_trace(app.get(path, token).await.json()));
        }
        views.push(
            app.get(&format!("/portals/{}", tenant.portal), token)
                .await
                .json(),
        );
        let own_calls = [1001, 1002, 1003, 1004, 2001, 3001, 3002]
            .into_iter()
            .filter(|call| !tenant.foreign_calls.contains(call));
        for call in own_calls {
            views.push(app.get(&format!("/phone-calls/{call}"), token).await.json());
            views.push(
                app.get(&format!("/phone-calls/{call}/requests"), token)
                    .await
                    .json(),
            );
        }
    }
    views
}

async fn no_account_reaches_another_tenants_records_by_id(backend: Backend) {
    let app = spawn_app_with(backend, &three_tenant_fixture()).await;
    let tenants = tenants();
    let mut tokens = Vec::new();
    for tenant in &tenants {
        tokens.push(app.login(tenant.phone).await);
    }
    let before = every_view(&app, &tokens, &tenants).await;

    // The answer for an id that exists nowhere, per tenant and attempt; the import's, per
    // status, since its failures are counted towards a rate limit.
    let mut missing: HashMap<(usize, Attempt, StatusCode), (StatusCode, String, Value)> =
        HashMap::new();
    for (t, tenant) in tenants.iter().enumerate() {
        for attempt in ATTEMPTS {
            let rounds = if attempt == Attempt::ImportIntoForeignPortal {
                11
            } else {
                1
            };
            for _ in 0..rounds {
                // One missing id per tenant: import failures count per portal id.
                let id = MISSING + t as i64;
                let answer = attempt.send(&app, tenant, &tokens[t], id).await;
                let seen = visible(&answer);
                missing.entry((t, attempt, seen.0)).or_insert(seen);
            }
        }
    }

    let mut rng = StdRng::seed_from_u64(20_261_121);
    let mut tally: HashMap<Attempt, usize> = HashMap::new();
    for (t, tenant) in tenants.iter().enumerate() {
        for _ in 0..ATTEMPTS_PER_ACCOUNT {
            // Organisation 2 has one portal: no sibling portal's client to aim at.
            let possible: Vec<Attempt> = ATTEMPTS
                .into_iter()
                .filter(|attempt| !attempt.targets(tenant).is_empty())
                .collect();
            let attempt = *possible.choose(&mut rng).unwrap();
            let id = *attempt.targets(tenant).choose(&mut rng).unwrap();
            let answer = attempt.send(&app, tenant, &tokens[t], id).await;
            assert!(
                answer.status.is_client_error(),
                "{attempt:?} of {id} by portal {} succeeded: {}",
                tenant.portal,
                String::from_utf8_lossy(&answer.body)
            );
            let seen = visible(&answer);
            if attempt == Attempt::FixSettingSiblingPrimaryNumber {
                assert_eq!(seen.0, StatusCode::FORBIDDEN, "{id}: {seen:?}");
                *tally.entry(attempt).or_default() += 1;
                continue;
            }
            let expected = missing.get(&(t, attempt, seen.0)).unwrap_or_else(|| {
                panic!("{attempt:?} of {id}: {seen:?}, never the answer for a missing id")
            });
            assert_eq!(
                &seen, expected,
                "{attempt:?} of {id} by portal {}",
                tenant.portal
            );
            *tally.entry(attempt).or_default() += 1;
        }
    }
    assert_eq!(tally.values().sum::<usize>(), 3 * ATTEMPTS_PER_ACCOUNT);
    // The random draw left no kind of attempt out.
    assert_eq!(tally.len(), ATTEMPTS.len(), "{tally:?}");

    assert_eq!(every_view(&app, &tokens, &tenants).await, before);
}

on_both_stores!(no_account_reaches_another_tenants_records_by_id);
