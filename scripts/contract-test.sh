#!/usr/bin/env bash
# Contract fuzzing: schemathesis (pinned in .venv) against local-api on the in-memory demo data,
# generating requests from the OpenAPI document local-api serves, with a logged-in bearer
# token, every check, positive and negative data and a fixed seed. Exits non-zero on any
# failure. Logout ends the token it is sent with, so it runs last, on a session of its own.
# Expects `.venv` (scripts/test.sh makes it) and a built `target/debug/local-api`.
set -euo pipefail
cd "$(dirname "$0")/.."

SEED="${SCHEMATHESIS_SEED:-20261121}"
EXAMPLES="${SCHEMATHESIS_EXAMPLES:-60}"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
mkdir -p target
IMPORT_SECRET=contract-test-import WEBHOOK_SECRET=contract-test-webhook RUST_LOG=warn \
  target/debug/local-api --port "$port" > target/contract-local-api.log 2>&1 &
api=$!
trap 'kill "$api" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fs "$base/openapi.json" > /dev/null 2>&1 && break
  sleep 0.1
done

# A session for the demo account of portal 1: ask for a code, read it from the dev outbox.
login() {
  local phone=$1 request code
  request=$(curl -fs -XPOST "$base/authentication/request-otp" -H 'content-type: application/json' \
    -d "{\"phoneNumber\":\"$phone\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requestId"])')
  code=$(curl -fs "$base/_dev/outbox" | python3 -c 'import json,re,sys; print(re.search(r"\d{6}", json.load(sys.stdin)[-1]["message"]).group())')
  curl -fs -XPOST "$base/authentication/validate-otp" -H 'content-type: application/json' \
    -d "{\"phoneNumber\":\"$phone\",\"requestId\":\"$request\",\"otp\":\"$code\"}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}

run() {
  local token=$1; shift
  SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=scripts .venv/bin/st run "$base/openapi.json" \
    --checks all --mode all --seed "$SEED" --max-examples "$EXAMPLES" \
    --phases examples,coverage,fuzzing --workers 1 --url "$base" \
    --header "Authorization: Bearer $token" --suppress-health-check too_slow,filter_too_much \
    --report junit --report-dir target/schemathesis --no-color "$@"
}

status=0
run "$(login +46701000001)" --exclude-path /authentication/logout || status=$?
run "$(login +46701000002)" --include-path /authentication/logout || status=$?
exit "$status"
