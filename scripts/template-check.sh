#!/usr/bin/env bash
# The template as an operator's tools read it: cfn-lint with its informational rules (every
# stateful resource says what happens to it on delete and replace) and checkov, pinned in a
# virtual environment of its own (.venv-checkov: checkov pins a boto3 that moto and the SAM
# CLI cannot share). 0 findings of either; each checkov skip is justified in the template,
# next to its resource. --skip-download keeps checkov off the network.
set -euo pipefail
cd "$(dirname "$0")/.."

# Made again when the pin changes: the environment keeps a copy of what it was made from.
if ! cmp -s scripts/requirements-checkov.txt .venv-checkov/requirements.txt; then
  rm -rf .venv-checkov
  python3 -m venv .venv-checkov
  .venv-checkov/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-checkov.txt
  cp scripts/requirements-checkov.txt .venv-checkov/requirements.txt
fi

.venv/bin/cfn-lint --include-checks I -- template.yaml
echo "cfn-lint: 0 findings, informational rules included"
.venv-checkov/bin/checkov --file template.yaml --framework cloudformation --compact --quiet \
  --skip-download
