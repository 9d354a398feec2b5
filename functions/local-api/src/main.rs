//! `local-api [--port N] [--seed FILE] [--dynamodb]`: the whole API on 127.0.0.1;
//! `local-api --openapi` prints its OpenAPI document (the checked-in `openapi.json`).

use std::sync::Arc;

use local_api::{DEMO_FIXTURE, LocalApi};
use shared::clock::SystemClock;
use shared::config::Config;
use shared::fixture::Seed;
use shared::store::dynamo::DynamoStore;
use shared::store::memory::MemoryStore;
use shared::store::{BoxError, Store, schema};

struct Args {
    port: u16,
    seed: Option<String>,
    dynamodb: bool,
    openapi: bool,
}

const USAGE: &str = "usage: local-api [--port N] [--seed FILE] [--dynamodb] | --openapi";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 3000,
        seed: None,
        dynamodb: false,
        openapi: false,
    };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        match word.as_str() {
            "--port" => {
                let value = words.next().ok_or("--port needs a number")?;
                args.port = value.parse().map_err(|_| format!("bad port {value:?}"))?;
            }
            "--seed" => args.seed = Some(words.next().ok_or("--seed needs a file")?),
            "--dynamodb" => args.dynamodb = true,
            "--openapi" => args.openapi = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(args)
}

/// A master secret from the environment, if set and not empty.
fn env_secret(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|s| !s.is_empty())
}

fn from_env_or_random(from_env: bool, name: &str) -> String {
    if from_env {
        format!(" from {name}")
    } else {
        format!(", random for this run; set {name} to keep them")
    }
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    shared::runtime::init_tracing();
    let args = parse_args()?;
    if args.openapi {
        let document = serde_json::to_string_pretty(&local_api::openapi::document())?;
        println!("{document}");
        return Ok(());
    }
    let config = Config::for_local(|name| std::env::var(name).ok())?;
    let region = config.region;
    let store: Arc<dyn Store> = if args.dynamodb {
        let sdk = shared::runtime::aws_config().await;
        let client = shared::store::dynamo::client_from(&sdk);
        schema::create_tables(&client, &config.tables).await?;
        Arc::new(DynamoStore::new(client, config.tables.clone()))
    } else {
        Arc::new(MemoryStore::new())
    };
    let fixture = match &args.seed {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?,
        None => DEMO_FIXTURE.to_string(),
    };
    let seed = Seed::load(&fixture, region, store.as_ref()).await?;
    let time_zone = config.time_zone.clone();
    let mut api =
        LocalApi::new(store, Arc::new(SystemClock), region).with_time_zone(time_zone.clone());
    api.scheduler_config =
        questionnaire_scheduler::SchedulerConfig::from_lookup(time_zone, |name| {
            std::env::var(name).ok()
        })?;
    if std::env::var_os("SUGGEST_MODEL_ID").is_some()
        || std::env::var_os("TRIAGE_MODEL_ID").is_some()
    {
        let sdk = shared::runtime::aws_config().await;
        let lookup = |name: &str| std::env::var(name).ok();
        api.reranker = organisations::bedrock_reranker(&sdk, lookup);
        api.urgency_model = integrations::urgency_model(&sdk, lookup);
    }
    let import_master = env_secret("IMPORT_SECRET");
    if let Some(master) = &import_master {
        api = api.with_import_master(master.as_bytes());
    }
    let webhook_master = env_secret("WEBHOOK_SECRET");
    if let Some(master) = &webhook_master {
        api = api.with_webhook_master(master.as_bytes());
    }
    let retell_api_key = env_secret("RETELL_API_KEY");
    if let Some(key) = &retell_api_key {
        api = api.with_retell_api_key(key);
    }

    let address = std::net::SocketAddr::from(([127, 0, 0, 1], args.port));
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("call-handling local API on http://{address}");
    println!("accounts (log in with POST /authentication/request-otp, code in GET /_dev/outbox):");
    for account in &seed.accounts {
        println!(
            "  {}  {}  portal {}",
            account.phone_number, account.name, account.portal_id
        );
    }
    println!(
        "import secrets (POST /portals/import-clients){}:",
        from_env_or_random(import_master.is_some(), "IMPORT_SECRET")
    );
    for portal in &seed.portals {
        println!("  portal {}  {}", portal.id, api.import_secret(portal.id));
    }
    println!(
        "webhook secrets (POST /integrations/voice/events, X-Portal-Id + X-Signature){}:",
        from_env_or_random(webhook_master.is_some(), "WEBHOOK_SECRET")
    );
    for portal in &seed.portals {
        println!("  portal {}  {}", portal.id, api.webhook_secret(portal.id));
    }
    println!("ElevenLabs header secrets (X-Webhook-Secret on /integrations/voice/elevenlabs/...):");
    for portal in &seed.portals {
        println!("  portal {}  {}", portal.id, api.header_secret(portal.id));
    }
    println!(
        "Retell API key (x-retell-signature on /integrations/voice/retell/...){}: {}",
        from_env_or_random(retell_api_key.is_some(), "RETELL_API_KEY"),
        api.retell_api_key
    );
    // The peer's address is the source address that login and import budgets count by.
    let app = api
        .router()
        .into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
