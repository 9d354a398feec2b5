#!/usr/bin/env bash
# The caller context on local-api (in memory, loopback HTTP) over an organisation of 20,000
# clients: p50, p99 and max of 2,000 signed requests (goal p99 ≤ 50 ms), and with the store
# made to hang: the unknown caller's answer within the deadline + 50 ms. Prints Markdown
# tables (docs/performance.md) and fails when a goal is missed. Builds with the bench profile
# (release settings) unless PROFILE is given.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench -p integration-tests --bench caller_context ${PROFILE:+--profile "$PROFILE"}
