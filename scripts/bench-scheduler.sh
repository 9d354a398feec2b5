#!/usr/bin/env bash
# One questionnaire scheduler pass over 10,000 due entries, on the in-memory store and on
# DynamoDB + SQS (moto), with the requests it made; prints a Markdown table (README figures).
# Builds the benchmark with the bench profile (release settings) unless PROFILE is given,
# e.g. PROFILE=dev for a quick run without the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
scripts/with-moto.sh cargo bench -p integration-tests --bench scheduler_pass \
  ${PROFILE:+--profile "$PROFILE"}
