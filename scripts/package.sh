#!/usr/bin/env bash
# Builds every function for Lambda (the Makefile's `lambdas`: `cargo lambda build --release`, the
# profile's fat LTO) into target/lambda/<function>/bootstrap, zips each one, and prints the
# binary and zip sizes. ARCH=arm64 builds for Graviton on a machine that has the
# aarch64-unknown-linux-gnu target (this one has x86_64 only); the template's Architecture
# parameter must match.
set -euo pipefail
cd "$(dirname "$0")/.."

read -ra FUNCTIONS <<< "$(make --no-print-directory -s functions)"

python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt

# The Makefile's build, the one `sam build` runs (ARCH=arm64 for Graviton).
make --no-print-directory lambdas ARCH="${ARCH:-x86_64}"

printf '%-26s %12s %12s\n' function binary zip
for f in "${FUNCTIONS[@]}"; do
  dir="target/lambda/$f"
  rm -f "$dir/bootstrap.zip"
  (cd "$dir" && python3 -c 'import zipfile,sys; z=zipfile.ZipFile("bootstrap.zip","w",zipfile.ZIP_DEFLATED,compresslevel=9); z.write("bootstrap"); z.close()')
  printf '%-26s %12s %12s\n' "$f" "$(stat -c %s "$dir/bootstrap")" "$(stat -c %s "$dir/bootstrap.zip")"
done
