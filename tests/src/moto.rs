//! moto, the local stand-in for DynamoDB and SQS: SDK settings, clients, fresh tables and
//! dialler queues.

use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};

use shared::config::Tables;
use shared::store::dynamo::RequestCounter;
use shared::store::schema;

/// The endpoint of the moto server started by `scripts/test.sh`.
pub fn moto_endpoint() -> String {
    std::env::var("MOTO_ENDPOINT").unwrap_or_else(|_| {
        panic!(
            "MOTO_ENDPOINT is not set: the DynamoDB suite runs against moto; \
             run scripts/test.sh (the README's test command), which starts it"
        )
    })
}

/// How many requests moto has served since it started (`scripts/moto_server.py`'s `/_served`).
pub fn moto_requests_served() -> u64 {
    use std::io::{Read, Write};
    let endpoint = moto_endpoint();
    let address = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("moto listens");
    write!(stream, "GET /_served HTTP/1.0\r\nHost: {address}\r\n\r\n").expect("moto is asked");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("moto answers");
    answer
        .rsplit("\r\n\r\n")
        .next()
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or_else(|| panic!("moto's /_served answered {answer:?}"))
}

/// SDK settings for a local stand-in of an AWS service at `endpoint` (moto, a fake model):
/// a fixed region, static credentials and no instance-metadata lookups.
pub fn local_sdk_config(endpoint: String) -> aws_config::SdkConfig {
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("eu-north-1"))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "test", "test", None, None, "static",
        )))
        .endpoint_url(endpoint)
        .http_client(shared::runtime::https_client())
        .build()
}

/// A DynamoDB client for moto without counters (snapshots, store-level tests); a test app's own
/// client counts requests and capacity.
pub fn dynamo_client() -> aws_sdk_dynamodb::Client {
    aws_sdk_dynamodb::Client::new(&local_sdk_config(moto_endpoint()))
}

static TABLE_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// Fresh, uniquely named tables created from template.yaml.
pub async fn fresh_tables(client: &aws_sdk_dynamodb::Client) -> Tables {
    let run = uuid::Uuid::new_v4().simple().to_string();
    let n = TABLE_SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let tables = Tables {
        data: format!("data-{}-{n}", &run[..8]),
        auth: format!("auth-{}-{n}", &run[..8]),
        access_log: format!("access-log-{}-{n}", &run[..8]),
    };
    schema::create_tables(client, &tables)
        .await
        .expect("tables from template.yaml are created");
    tables
}

/// An SQS client for moto, counting its requests when given a counter.
pub fn sqs_client(counter: Option<RequestCounter>) -> aws_sdk_sqs::Client {
    let mut config = aws_sdk_sqs::config::Builder::from(&local_sdk_config(moto_endpoint()));
    if let Some(counter) = counter {
        config = config.interceptor(counter);
    }
    aws_sdk_sqs::Client::from_conf(config.build())
}

/// A fresh dialler queue, FIFO as in template.yaml (deduplication by explicit id).
pub async fn fresh_dialler_queue(client: &aws_sdk_sqs::Client) -> String {
    let name = format!("dialler-{}.fifo", uuid::Uuid::new_v4().simple());
    client
        .create_queue()
        .queue_name(name)
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .expect("the dialler queue is created")
        .queue_url
        .expect("a queue url")
}
