//! `eval-unknown-callers [--url URL] [--cases FILE]`: scores the unknown-caller evaluation set
//! against a running API (local-api seeded with the set's fixture; see
//! `scripts/eval-unknown-callers.sh`), logging in the way staff do: an OTP read from the dev
//! outbox. Prints the misses, results per kind, the calibration table and a JSON summary line.

use http::Method;
use serde_json::Value;

use integration_tests::evaluation::{self, Evaluation};
use integration_tests::local_http::LocalApiClient;
use shared::store::BoxError;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut base = "http://127.0.0.1:3000".to_string();
    let mut cases_text = evaluation::CASES.to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => base = args.next().ok_or("--url needs a value")?,
            "--cases" => {
                let path = args.next().ok_or("--cases needs a file")?;
                cases_text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: eval-unknown-callers [--url URL] \
                     [--cases FILE]"
                )
                .into());
            }
        }
    }
    let cases: Value = serde_json::from_str(&cases_text)?;
    let api = LocalApiClient::new(&base);
    let login = cases["loginPhoneNumber"]
        .as_str()
        .ok_or("the cases file has no loginPhoneNumber")?;
    let token = api.login(login).await?;
    let mut evaluation = Evaluation::default();
    for case in cases["cases"]
        .as_array()
        .ok_or("the cases file has no cases")?
    {
        let (status, body) = api
            .call(
                Method::POST,
                "/organisations/suggest-unknown-client",
                Some(&token),
                Some(&case["call"]),
            )
            .await?;
        evaluation.record(case, status, &body);
    }
    println!("{}", evaluation.report());
    Ok(())
}
