#!/usr/bin/env bash
# The whole test suite from a fresh clone: Python tools into .venv, moto started
# single-threaded on a free port, cfn-lint, rustfmt, clippy, every cargo test on both stores,
# moto stopped at the end whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt

echo "== cfn-lint"
.venv/bin/cfn-lint template.yaml

echo "== rustfmt, clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings

mkdir -p target
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
.venv/bin/python scripts/moto_server.py "$port" > target/moto.log 2>&1 &
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/moto-api/"; then break; fi
  sleep 0.2
done

echo "== cargo test (in-memory store and DynamoDB on moto at :$port)"
status=0
MOTO_ENDPOINT="http://127.0.0.1:$port" cargo test --workspace --no-fail-fast 2>&1 \
  | tee target/test-output.log || status=$?
# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' \
  target/test-output.log
exit "$status"
