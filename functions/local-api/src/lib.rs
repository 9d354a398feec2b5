//! The whole API in one router for local use: every function's router merged over one store,
//! with SMS delivered to the dev outbox (`GET /_dev/outbox`).

use std::sync::Arc;

use axum::Router;
use axum::routing::get;

use shared::auth::Authenticator;
use shared::clock::Clock;
use shared::config::AuthRules;
use shared::extract::JsonResponse;
use shared::notify::Outbox;
use shared::phone::DefaultRegion;
use shared::store::{AuthStore, PhoneCallReader, SeedWriter};

/// The demo fixture served when no `--seed` is given.
pub const DEMO_FIXTURE: &str = include_str!("../fixtures/demo.json");

/// Everything one store has to offer the functions.
pub trait Store: AuthStore + PhoneCallReader + SeedWriter {}
impl<T: AuthStore + PhoneCallReader + SeedWriter> Store for T {}

/// The pieces a local (or test) API is made of.
pub struct LocalApi {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub outbox: Outbox,
    pub rules: AuthRules,
    pub region: DefaultRegion,
    pub otp_key: Arc<[u8]>,
}

impl LocalApi {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, region: DefaultRegion) -> Self {
        let mut key = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
        Self {
            outbox: Outbox::new(clock.clone()),
            store,
            clock,
            rules: AuthRules::default(),
            region,
            otp_key: key.to_vec().into(),
        }
    }

    pub fn authenticator(&self) -> Authenticator {
        Authenticator {
            sessions: self.store.clone(),
            clock: self.clock.clone(),
            rules: self.rules.clone(),
        }
    }

    pub fn auth_state(&self) -> authentication::AuthState {
        authentication::AuthState {
            store: self.store.clone(),
            sms: Arc::new(self.outbox.clone()),
            authenticator: self.authenticator(),
            region: self.region,
            otp_key: self.otp_key.clone(),
        }
    }

    pub fn phone_calls_state(&self) -> phone_calls::PhoneCallsState {
        phone_calls::PhoneCallsState {
            calls: self.store.clone(),
            authenticator: self.authenticator(),
        }
    }

    /// Every function's routes on one router, plus `/_dev/outbox`.
    pub fn router(&self) -> Router {
        let auth = authentication::routes(self.auth_state());
        let calls = phone_calls::routes(self.phone_calls_state());
        let outbox = self.outbox.clone();
        let dev = Router::new().route(
            "/_dev/outbox",
            get(move || {
                let messages = outbox.messages();
                async move { JsonResponse::ok(messages) }
            }),
        );
        shared::runtime::finish(auth.merge(calls).merge(dev))
    }
}
