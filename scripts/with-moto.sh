#!/usr/bin/env bash
# Runs a command with moto (single-threaded, scripts/moto_server.py) on a free port, its
# endpoint in MOTO_ENDPOINT; moto is stopped when the command ends, whatever happens.
# Needs .venv (scripts/test.sh or scripts/bench-scheduler.sh create it).
# usage: scripts/with-moto.sh COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p target
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
.venv/bin/python scripts/moto_server.py "$port" > target/moto.log 2>&1 &
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/moto-api/"; then break; fi
  sleep 0.2
done
MOTO_ENDPOINT="http://127.0.0.1:$port" "$@"
