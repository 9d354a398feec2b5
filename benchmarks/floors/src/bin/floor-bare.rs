//! Cold-start floor: a bare `lambda_http` hello-world, nothing created at start.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    lambda_http::run(lambda_http::service_fn(floors::hello)).await
}
