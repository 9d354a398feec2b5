#!/usr/bin/env bash
# The unknown-caller matcher over an organisation of 20,000 clients: index build time and
# matcher CPU per request (p50, p99, max) over the evaluation set's calls and 2,000 generated
# ones; prints a Markdown table (README figures) and fails when p99 is over 20 ms.
# Builds with the bench profile (release settings) unless PROFILE is given.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo bench -p integration-tests --bench matcher_20k ${PROFILE:+--profile "$PROFILE"}
