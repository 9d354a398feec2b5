#!/usr/bin/env bash
# Runs a command with moto (single-threaded, scripts/moto_server.py) on a free port, its
# endpoint in MOTO_ENDPOINT; moto is stopped when the command ends, whatever happens.
# Needs .venv (scripts/test.sh or scripts/bench-scheduler.sh create it).
# usage: scripts/with-moto.sh COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib.sh
mkdir -p target
# MOTO_HOST: the address moto listens on (loopback unless a caller needs another).
host="${MOTO_HOST:-127.0.0.1}"
port=$(free_port)
.venv/bin/python scripts/moto_server.py "$port" "$host" > target/moto.log 2>&1 &
moto_pid=$!
trap 'kill "$moto_pid" 2>/dev/null || true' EXIT
wait_for "http://$host:$port/moto-api/"
MOTO_ENDPOINT="http://$host:$port" "$@"
