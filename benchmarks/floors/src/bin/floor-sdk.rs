//! Cold-start floor with the unavoidable SDK cost: the bare hello-world that first configures
//! the SDK as the functions do and creates the AWS clients named in `FLOOR_CLIENTS`
//! (comma-separated: dynamodb, sns, sqs, secretsmanager, bedrock), as the function it stands
//! beside does. With `FLOOR_REQUESTS_FILE` it also makes, before each answer, the AWS requests
//! its function's first real answer made (`floors::requests`).

use lambda_http::{Error, Request, service_fn};

/// Held for the process's life, as a function holds its clients in its state.
#[allow(dead_code)]
enum AwsClient {
    DynamoDb(aws_sdk_dynamodb::Client),
    Sns(aws_sdk_sns::Client),
    Sqs(aws_sdk_sqs::Client),
    SecretsManager(aws_sdk_secretsmanager::Client),
    Bedrock(aws_sdk_bedrockruntime::Client),
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    // Configured as the functions configure the SDK (`shared::runtime::lambda_sdk_config`):
    // from Lambda's environment, with their HTTP client.
    let sdk = shared::runtime::lambda_sdk_config(|name| std::env::var(name).ok())?;
    let names = std::env::var("FLOOR_CLIENTS").unwrap_or_default();
    let clients = names
        .split(',')
        .filter(|name| !name.is_empty())
        .map(|name| match name {
            "dynamodb" => Ok(AwsClient::DynamoDb(aws_sdk_dynamodb::Client::new(&sdk))),
            "sns" => Ok(AwsClient::Sns(aws_sdk_sns::Client::new(&sdk))),
            "sqs" => Ok(AwsClient::Sqs(aws_sdk_sqs::Client::new(&sdk))),
            "secretsmanager" => Ok(AwsClient::SecretsManager(
                aws_sdk_secretsmanager::Client::new(&sdk),
            )),
            "bedrock" => Ok(AwsClient::Bedrock(aws_sdk_bedrockruntime::Client::new(
                &sdk,
            ))),
            other => Err(format!("unknown client {other:?} in FLOOR_CLIENTS")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut requester = floors::requests::Requester {
        table: std::env::var("DATA_TABLE").unwrap_or_default(),
        queue_url: std::env::var("DIALLER_QUEUE_URL").unwrap_or_default(),
        ..Default::default()
    };
    for client in &clients {
        match client {
            AwsClient::DynamoDb(c) => requester.dynamodb = Some(c.clone()),
            AwsClient::Sns(c) => requester.sns = Some(c.clone()),
            AwsClient::Sqs(c) => requester.sqs = Some(c.clone()),
            AwsClient::SecretsManager(c) => requester.secrets = Some(c.clone()),
            AwsClient::Bedrock(_) => {}
        }
    }
    let waves = match std::env::var_os("FLOOR_REQUESTS_FILE") {
        Some(path) => floors::requests::parse(&std::fs::read_to_string(path)?)?,
        None => Vec::new(),
    };
    requester.check(&waves)?;
    let shared = std::sync::Arc::new((clients, requester, waves));
    lambda_http::run(service_fn(move |request: Request| {
        let shared = shared.clone();
        async move {
            let (_held, requester, waves) = &*shared;
            requester.send(waves).await?;
            floors::hello(request).await
        }
    }))
    .await
}
