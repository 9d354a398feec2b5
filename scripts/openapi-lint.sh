#!/usr/bin/env bash
# The OpenAPI document as others will read it: `redocly lint` (recommended-strict) and
# `spectral lint` (spectral:oas) from the npm packages pinned in scripts/openapi-lint, both
# failing on any finding; then the Python client openapi-python-client generates (pinned in
# scripts/requirements-test.txt) must import every module and read and write back every
# example the document gives (scripts/openapi_client_check.py); and every example the document
# gives (of a schema or a property, a request or response body, a parameter) must type-check as
# the TypeScript type openapi-typescript generates for its place, under `tsc --strict` with
# excess-property checks (scripts/openapi-lint/examples-to-ts.mjs), so that a TypeScript client
# can take the examples as they are. Needs .venv (scripts/test.sh).
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

# The examples against the TypeScript types. Two generator options make the types say what the
# document says: `--empty-objects-unknown`, since a schema of `type: object` and nothing more (the
# voice platforms' payloads, CallEnded.dynamicVariables) takes any object, where the default type
# would take only `{}`; and `--default-non-nullable false`, since a property with a `default` is
# still optional in a request (UnknownCall), where the default makes it required.
ts=target/openapi-typescript
rm -rf "$ts"
mkdir -p "$ts"
log=$ts/openapi-typescript.log
# Besides its two lines of progress (its version, and the file written), anything the generator
# says is a warning about the document, and fails.
if ! "$tools/node_modules/.bin/openapi-typescript" openapi.json --empty-objects-unknown \
  --default-non-nullable false --output "$ts/openapi.d.ts" > "$log" 2>&1 \
  || grep -v -e ' openapi-typescript [0-9.]*$' -e " → $ts/openapi.d.ts " "$log" | grep -q .; then
  cat "$log" >&2
  echo "openapi-typescript failed or warned" >&2
  exit 1
fi
node "$tools/examples-to-ts.mjs" openapi.json ./openapi "$ts/examples.ts"
if ! "$tools/node_modules/.bin/tsc" -p "$tools/tsconfig.examples.json" --pretty false \
  > "$ts/tsc.log" 2>&1; then
  # Each error line led by the example it is in: the last const declared at or above that line.
  awk 'NR == FNR { if ($0 ~ /^\/\/ #\//) at = substr($0, 4)
                   if ($0 ~ /^export const /) name = $3
                   where[FNR] = name " (" at ")"; next }
       match($0, /examples\.ts\([0-9]+,/) { print where[substr($0, RSTART + 12, RLENGTH - 13)] ":" }
       { print }' "$ts/examples.ts" "$ts/tsc.log" >&2
  echo "openapi.json: examples that do not type-check as the generated TypeScript types" >&2
  exit 1
fi
echo "typescript: $(grep -c '^export const ' "$ts/examples.ts") examples type-check"
