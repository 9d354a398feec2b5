//! Throughput floor: a bare axum hello-world on `127.0.0.1:<port>` (first argument).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::args()
        .nth(1)
        .ok_or("usage: floor-axum PORT")?
        .parse()?;
    let app = axum::Router::new().route(
        "/hello",
        axum::routing::get(|| async {
            (
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                floors::HELLO,
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
