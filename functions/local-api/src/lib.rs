//! The whole API in one router for local use: every function's router merged over one store,
//! with SMS and dialler messages delivered to the dev outbox (`GET /_dev/outbox`), and the
//! questionnaire scheduler run on demand (`POST /_dev/run-scheduler`).

pub mod openapi;

use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::routing::{get, post};
use questionnaire_scheduler::{PassReport, Scheduler, SchedulerConfig};
use serde::Deserialize;

use shared::auth::Authenticator;
use shared::clock::Clock;
use shared::config::AuthRules;
use shared::error::ApiError;
use shared::extract::JsonResponse;
use shared::notify::{Dialler, Outbox};
use shared::phone::DefaultRegion;
use shared::records::Timestamp;
use shared::runtime::Services;
use shared::store::Store;

/// The demo fixture served when no `--seed` is given.
pub const DEMO_FIXTURE: &str = include_str!("../fixtures/demo.json");

/// The pieces a local (or test) API is made of.
pub struct LocalApi {
    /// The store, clock, region, zone and auth rules every function's state is built from,
    /// as on Lambda.
    pub services: Services,
    pub outbox: Outbox,
    pub otp_key: Arc<[u8]>,
    /// The master secret portals' import secrets derive from (`IMPORT_SECRET`).
    pub import_master: Arc<[u8]>,
    /// The master secret portals' webhook secrets derive from (`WEBHOOK_SECRET`).
    pub webhook_master: Arc<[u8]>,
    /// The Retell workspace API key Retell signs its webhooks with (`RETELL_API_KEY`).
    pub retell_api_key: Arc<str>,
    /// Where scheduler passes send call attempts: the outbox, unless replaced.
    pub dialler: Arc<dyn Dialler>,
    pub scheduler_config: SchedulerConfig,
    /// The language model that re-ranks suggestions (`SUGGEST_MODEL_ID`); off when `None`.
    pub reranker: Option<Arc<dyn organisations::rerank::Reranker>>,
    /// The language model whose second opinion may raise a call to urgent
    /// (`TRIAGE_MODEL_ID`); off when `None`.
    pub urgency_model: Option<Arc<dyn integrations::second_opinion::UrgencyModel>>,
}

fn random_key() -> Arc<[u8]> {
    let mut key = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
    key.to_vec().into()
}

impl LocalApi {
    /// A local API with fresh random keys, random import and webhook master secrets (replace
    /// them with `with_import_master` and `with_webhook_master`), and contact windows in
    /// Europe/Stockholm.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, region: DefaultRegion) -> Self {
        let outbox = Outbox::new(clock.clone());
        Self {
            dialler: Arc::new(outbox.clone()),
            scheduler_config: SchedulerConfig::new(shared::zone::Zone::stockholm()),
            outbox,
            services: Services::new(
                store,
                clock,
                region,
                shared::zone::Zone::stockholm(),
                AuthRules::default(),
            ),
            otp_key: random_key(),
            import_master: random_key(),
            webhook_master: random_key(),
            retell_api_key: random_key()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into(),
            reranker: None,
            urgency_model: None,
        }
    }

    pub fn with_import_master(mut self, master: &[u8]) -> Self {
        self.import_master = master.to_vec().into();
        self
    }

    pub fn with_webhook_master(mut self, master: &[u8]) -> Self {
        self.webhook_master = master.to_vec().into();
        self
    }

    /// The secret the voice platform signs `portal_id`'s deliveries with.
    pub fn webhook_secret(&self, portal_id: i32) -> String {
        shared::webhook::portal_webhook_secret(&self.webhook_master, portal_id)
    }

    /// The secret header `portal_id`'s ElevenLabs agent sends.
    pub fn header_secret(&self, portal_id: i32) -> String {
        shared::webhook::portal_header_secret(&self.webhook_master, portal_id)
    }

    pub fn with_retell_api_key(mut self, key: &str) -> Self {
        self.retell_api_key = key.into();
        self
    }

    pub fn with_time_zone(mut self, zone: shared::zone::Zone) -> Self {
        self.services.time_zone = zone.clone();
        self.scheduler_config.time_zone = zone;
        self
    }

    pub fn with_dialler(mut self, dialler: Arc<dyn Dialler>) -> Self {
        self.dialler = dialler;
        self
    }

    /// The import secret an integration needs for `portal_id`.
    pub fn import_secret(&self, portal_id: i32) -> String {
        shared::auth::portal_import_secret(&self.import_master, portal_id)
    }

    pub fn authenticator(&self) -> Authenticator {
        self.services.authenticator()
    }

    pub fn auth_state(&self) -> authentication::AuthState {
        let sms = Arc::new(self.outbox.clone());
        authentication::AuthState::new(&self.services, sms, self.otp_key.clone())
    }

    pub fn phone_calls_state(&self) -> phone_calls::PhoneCallsState {
        phone_calls::PhoneCallsState::new(&self.services)
    }

    pub fn clients_state(&self) -> clients::ClientsState {
        clients::ClientsState::new(&self.services)
    }

    pub fn portals_state(&self) -> portals::PortalsState {
        portals::PortalsState::new(&self.services, self.import_master.clone())
    }

    pub fn contact_details_state(&self) -> contact_details::ContactDetailsState {
        contact_details::ContactDetailsState::new(&self.services, Arc::new(self.outbox.clone()))
    }

    pub fn questionnaires_state(&self) -> questionnaires::QuestionnairesState {
        questionnaires::QuestionnairesState::new(&self.services)
    }

    pub fn organisations_state(&self) -> organisations::OrganisationsState {
        organisations::OrganisationsState::new(&self.services, self.reranker.clone())
    }

    pub fn integrations_state(&self) -> integrations::IntegrationsState {
        integrations::IntegrationsState {
            urgency_model: self.urgency_model.clone(),
            retell_api_key: Some(self.retell_api_key.clone()),
            ..integrations::IntegrationsState::new(
                &self.services,
                self.webhook_master.clone(),
                Arc::new(self.outbox.clone()),
                self.scheduler_config.delays,
            )
        }
    }

    pub fn access_log_state(&self) -> access_log::AccessLogState {
        access_log::AccessLogState::new(&self.services)
    }

    pub fn scheduler(&self) -> Scheduler {
        Scheduler::new(
            &self.services,
            self.dialler.clone(),
            Arc::new(self.outbox.clone()),
            Arc::new(self.outbox.clone()),
            self.scheduler_config.clone(),
        )
    }

    /// Every function's routes on one router, plus `/_dev/outbox` and `/_dev/run-scheduler`.
    pub fn router(&self) -> Router {
        let functions = authentication::routes(self.auth_state())
            .merge(phone_calls::routes(self.phone_calls_state()))
            .merge(clients::routes(self.clients_state()))
            .merge(portals::routes(self.portals_state()))
            .merge(contact_details::routes(self.contact_details_state()))
            .merge(questionnaires::routes(self.questionnaires_state()))
            .merge(organisations::routes(self.organisations_state()))
            .merge(integrations::routes(self.integrations_state()))
            .merge(access_log::routes(self.access_log_state()));
        let outbox = self.outbox.clone();
        let dev = Router::new()
            .route(
                "/_dev/outbox",
                get(move || {
                    let messages = outbox.messages();
                    async move { JsonResponse::ok(messages) }
                }),
            )
            .route(
                "/_dev/run-scheduler",
                post(run_scheduler).with_state(self.scheduler()),
            );
        shared::runtime::finish(functions.merge(dev).merge(reference()))
    }
}

/// `/openapi.json` and the API reference at `/docs` (Swagger UI, its assets built into the
/// binary, so it works offline).
fn reference() -> Router {
    utoipa_swagger_ui::SwaggerUi::new("/docs")
        .external_urls_from_iter_unchecked([("/openapi.json", openapi::document())])
        .into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunQuery {
    now: Option<Timestamp>,
}

/// One scheduler pass at `?now=` (RFC 3339, default the clock's now), answered with its report
/// including the messages it dispatched.
async fn run_scheduler(
    State(scheduler): State<Scheduler>,
    query: Result<Query<RunQuery>, QueryRejection>,
) -> Result<JsonResponse<PassReport>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let now = query.now.unwrap_or_else(|| scheduler.clock.now());
    let report = scheduler
        .run_pass(now, None)
        .await
        .map_err(ApiError::Unavailable)?;
    Ok(JsonResponse::ok(report))
}
