#!/usr/bin/env bash
# The unknown-caller evaluation through the HTTP API: starts local-api on a free port, seeded
# with the evaluation fixture, scores every case with eval-unknown-callers, stops the server.
# Prints misses, results per case kind, the calibration table and, last, the summary line
# {"cases":N,"correct":N,"wrong":N,"abstained":N}.
# usage: scripts/eval-unknown-callers.sh [FIXTURE CASES]
#   (default: eval/unknown-caller/dev.fixture.json eval/unknown-caller/dev.cases.json)
set -euo pipefail
cd "$(dirname "$0")/.."

fixture=${1:-eval/unknown-caller/dev.fixture.json}
cases=${2:-eval/unknown-caller/dev.cases.json}
cargo build --quiet -p local-api -p integration-tests --bin local-api --bin eval-unknown-callers
source scripts/lib.sh
port=$(free_port)
mkdir -p target
target/debug/local-api --port "$port" --seed "$fixture" > target/eval-local-api.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
wait_for "http://127.0.0.1:$port/_dev/outbox"
target/debug/eval-unknown-callers --url "http://127.0.0.1:$port" --cases "$cases"
