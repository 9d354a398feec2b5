//! The store contract itself, on both stores: what a fixture writes reads back identically, and
//! the edge semantics the API relies on hold on DynamoDB and in memory alike.

use std::sync::Arc;

use chrono::Duration;
use integration_tests::{dynamo_client, fresh_tables, start_time};
use local_api::DEMO_FIXTURE;
use shared::fixture::Seed;
use shared::ids::{AccountId, CallId, OrganisationId, PortalId};
use shared::records::PhoneCall;
use shared::records::Role;
use shared::store::Store;
use shared::store::dynamo::DynamoStore;
use shared::store::memory::MemoryStore;
use shared::store::{OtpLogin, OtpSave, Session, StoreError};

async fn both_stores() -> [(&'static str, Arc<dyn Store>); 2] {
    let client = dynamo_client();
    let tables = fresh_tables(&client).await;
    [
        ("memory", Arc::new(MemoryStore::new())),
        ("dynamodb", Arc::new(DynamoStore::new(client, tables))),
    ]
}

fn session(hash: &str, account_id: i32) -> Session {
    Session {
        token_hash: hash.into(),
        account_id: AccountId(account_id),
        account_name: format!("Account {account_id}"),
        portal_id: PortalId(1),
        organisation_id: OrganisationId(1),
        role: Role::Staff,
        created_at: start_time(),
        last_seen_at: start_time(),
        expires_at: start_time() + Duration::hours(12),
    }
}

#[tokio::test]
async fn every_seeded_call_and_request_reads_back_the_same_from_both_stores() {
    let seed = Seed::parse(DEMO_FIXTURE, Default::default()).unwrap();
    let mut answers: Vec<Vec<Option<Vec<PhoneCall>>>> = Vec::new();
    for (name, store) in both_stores().await {
        store.write_seed(&seed).await.unwrap();
        let mut calls = Vec::new();
        for call in &seed.phone_calls {
            let thread = store.call_with_connected(CallId(call.id)).await.unwrap();
            let root = &thread.as_ref().expect("seeded call is found")[0];
            assert_eq!(root.id, call.id, "{name}");
            let mut expected = call.clone();
            if let Some(lines) = expected.transcript.as_mut() {
                lines.sort_by_key(|l| (l.created_at, l.id));
            }
            assert_eq!(
                root, &expected,
                "{name}: call {} reads back as written",
                call.id
            );
            let (bare, requests) = store.call_requests(CallId(call.id)).await.unwrap().unwrap();
            assert_eq!(bare.transcript, None, "{name}");
            let mut written: Vec<_> = seed
                .client_requests
                .iter()
                .filter(|r| r.phone_call_id == call.id)
                .cloned()
                .collect();
            written.sort_by_key(|r| r.id);
            assert_eq!(requests, written, "{name}");
            calls.push(thread);
        }
        assert_eq!(
            store.call_with_connected(CallId(424242)).await.unwrap(),
            None,
            "{name}"
        );
        assert!(
            store.call_requests(CallId(424242)).await.unwrap().is_none(),
            "{name}"
        );
        answers.push(calls);
    }
    assert_eq!(answers[0], answers[1], "both stores give identical threads");
}

#[tokio::test]
async fn a_session_deleted_meanwhile_is_not_brought_back_by_a_refresh() {
    for (name, store) in both_stores().await {
        let seed = Seed::parse(DEMO_FIXTURE, Default::default()).unwrap();
        store.write_seed(&seed).await.unwrap();
        let otp = shared::store::OtpRequest {
            phone_number: "+46701000001".into(),
            request_id: "r1".into(),
            source: "192.0.2.1".parse().unwrap(),
            code_hash: "h".into(),
            expires_at: start_time() + Duration::minutes(10),
            attempts: 0,
            used: false,
        };
        let log = shared::store::SendLog {
            sends: vec![shared::store::CodeSend {
                at: start_time(),
                source: otp.source,
                request_id: "r1".into(),
            }],
            pending: [(otp.source, "r1".to_string())].into(),
            version: 1,
            ..Default::default()
        };
        let save = OtpSave {
            request: &otp,
            replaces: None,
            log: &log,
            read_version: 0,
        };
        store.save_otp(save).await.unwrap();
        assert!(
            matches!(store.save_otp(save).await, Err(StoreError::ConditionFailed)),
            "{name}: a stale send-log version is refused"
        );
        store
            .consume_otp(OtpLogin {
                otp: &otp,
                max_attempts: 5,
                session: &session("s1", 1),
                known_until: start_time() + Duration::days(30),
            })
            .await
            .unwrap();
        let (_, log) = store.otp_context("+46701000001").await.unwrap();
        assert_eq!(
            (log.validated, log.known, log.version),
            (
                ["r1".to_string()].into(),
                [(otp.source, start_time() + Duration::days(30))].into(),
                2
            ),
            "{name}: a login marks its code validated and its network known"
        );
        assert!(
            matches!(
                store
                    .consume_otp(OtpLogin {
                        otp: &otp,
                        max_attempts: 5,
                        session: &session("s2", 1),
                        known_until: start_time(),
                    })
                    .await,
                Err(StoreError::ConditionFailed)
            ),
            "{name}: a used code creates no second session"
        );
        store.delete_session("s1").await.unwrap();
        store.touch_session("s1", start_time()).await.unwrap();
        assert_eq!(store.session("s1").await.unwrap(), None, "{name}");
        assert_eq!(
            store.delete_all_sessions(AccountId(77)).await.unwrap(),
            0,
            "{name}"
        );
    }
}
