#!/usr/bin/env bash
# The OpenAPI document as others will read it: `redocly lint` (recommended-strict) and
# `spectral lint` (spectral:oas) from the npm packages pinned in scripts/openapi-lint, both
# failing on any finding; then the Python client openapi-python-client generates (pinned in
# scripts/requirements-test.txt) must import every module and read and write back every
# example the document gives (scripts/openapi_client_check.py). Needs .venv (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=scripts/openapi-lint
# --ignore-scripts: no install script runs (one dependency's only script reports analytics).
npm ci --prefix "$tools" --no-audit --no-fund --ignore-scripts --loglevel=error
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
"$tools/node_modules/.bin/redocly" lint --extends recommended-strict --format stylish openapi.json
"$tools/node_modules/.bin/spectral" lint --ruleset "$tools/spectral.yaml" --fail-severity hint \
  openapi.json

client=target/openapi-python-client
mkdir -p target
rm -rf "$client"
.venv/bin/openapi-python-client generate --path openapi.json --output-path "$client" \
  --config "$tools/openapi-python-client.yaml" > target/openapi-python-client.log 2>&1
# The generator's one expected warning: it reads each body's `application/json` and passes over
# the `text/json` the API also accepts. Any other (a schema it had to drop) fails.
log=target/openapi-python-client.log
if grep -q -e '^Unable' -e '^Failure' "$log" || grep -A1 '^WARNING' "$log" \
  | grep -v -e '^WARNING parsing ' -e '^Unsupported content type text/json$' -e '^--$' | grep -q .; then
  cat "$log" >&2
  echo "openapi-python-client warned of more than text/json" >&2
  exit 1
fi
.venv/bin/python scripts/openapi_client_check.py openapi.json "$client"
