#!/usr/bin/env bash
# Builds every function for Lambda (`cargo lambda build --release`, the profile's fat LTO) into
# target/lambda/<function>/bootstrap, which template.yaml's CodeUri points at, zips each one,
# and prints the binary and zip sizes. ARCH=arm64 builds for Graviton on a machine that has the
# aarch64-unknown-linux-gnu target (this one has x86_64 only); the template's Architecture
# parameter must match.
set -euo pipefail
cd "$(dirname "$0")/.."

FUNCTIONS=(authentication phone-calls clients portals contact-details questionnaires
  questionnaire-scheduler organisations integrations access-log)

python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt

arch_flag=()
if [ "${ARCH:-x86_64}" = "arm64" ]; then arch_flag=(--arm64); else arch_flag=(--x86-64); fi
packages=()
for f in "${FUNCTIONS[@]}"; do packages+=(-p "$f"); done
.venv/bin/cargo-lambda lambda build --release --compiler cargo "${arch_flag[@]}" "${packages[@]}"

printf '%-26s %12s %12s\n' function binary zip
for f in "${FUNCTIONS[@]}"; do
  dir="target/lambda/$f"
  rm -f "$dir/bootstrap.zip"
  (cd "$dir" && python3 -c 'import zipfile,sys; z=zipfile.ZipFile("bootstrap.zip","w",zipfile.ZIP_DEFLATED,compresslevel=9); z.write("bootstrap"); z.close()')
  printf '%-26s %12s %12s\n' "$f" "$(stat -c %s "$dir/bootstrap")" "$(stat -c %s "$dir/bootstrap.zip")"
done
