#!/usr/bin/env bash
# The performance benchmark (docs/performance.md): builds the release binaries as
# scripts/package.sh deploys them, plus the floors they are compared with, then runs
# tests/benches/performance/ with moto and the runtime emulator, and prints Markdown tables
# (also written to target/performance.md). Installs what it needs: the pinned Python tools in
# .venv (moto, cargo-lambda) and wrk from Debian's packages.
# PERF_ONLY=size,cold,handlers,throughput,dynamodb,scale runs some sections.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk > /dev/null; then
  sudo_if_needed=()
  if [ "$(id -u)" != 0 ]; then sudo_if_needed=(sudo); fi
  "${sudo_if_needed[@]}" apt-get install -y --no-install-recommends wrk > /dev/null \
    || { "${sudo_if_needed[@]}" apt-get update > /dev/null \
      && "${sudo_if_needed[@]}" apt-get install -y --no-install-recommends wrk > /dev/null; }
fi

# The functions exactly as deployed (their own feature resolution), zipped.
scripts/package.sh
# The floors in a build of their own, so that they cannot change the functions' features, and
# compiled as the functions are (the Makefile's LAMBDA_RUSTFLAGS).
RUSTFLAGS="$(make --no-print-directory -s lambda-rustflags)" \
  .venv/bin/cargo-lambda lambda build --release --compiler cargo --x86-64 -p floors -p local-api

{
  echo "# Benchmark run $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)."
} | tee target/performance.md
# One TLS stack: the TLS and HTTP crates in the functions' tree, and any of them twice.
read -ra functions <<< "$(make --no-print-directory -s functions)"
packages=()
for f in "${functions[@]}"; do packages+=(-p "$f"); done
tls_crates='^(rustls|ring|aws-lc-rs|aws-lc-sys|openssl|native-tls|hyper|hyper-rustls|tokio-rustls|h2) v'
{
  echo
  echo "## One TLS stack"
  echo
  echo "TLS and HTTP crates in the functions' dependency tree:" \
    "$(cargo tree -e normal --prefix none "${packages[@]}" | cut -d' ' -f1-2 \
      | grep -E "$tls_crates" | sort -u | paste -sd, - | sed 's/,/, /g')."
  echo "Of these, in two versions (cargo tree -d):" \
    "$(cargo tree -d --depth 0 -e normal --prefix none "${packages[@]}" | cut -d' ' -f1-2 \
      | grep -E "$tls_crates" | sort -u | paste -sd, - | sed 's/,/, /g' | grep . || echo none)."
} | tee -a target/performance.md
CARGO_LAMBDA="$PWD/.venv/bin/cargo-lambda" scripts/with-moto.sh \
  cargo bench -p integration-tests --bench performance 2> target/performance.log \
  | tee -a target/performance.md
