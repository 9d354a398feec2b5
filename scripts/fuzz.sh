#!/usr/bin/env bash
# cargo-fuzz over request body decoding (fuzz/fuzz_targets/decode_body.rs) for FUZZ_SECONDS
# (default 60). libFuzzer's instrumentation needs a nightly toolchain; without one the target
# is only compiled (so it cannot rot) and the run is skipped with a message, exit 0. The
# stable-toolchain twin of this check is shared/tests/properties.rs (proptest).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$PWD/target/fuzz"

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain here; compiling the target only, the fuzz run is skipped"
  cargo check --quiet --manifest-path fuzz/Cargo.toml --bins
  exit 0
fi
# cargo-fuzz itself builds with the stable toolchain, into the project's target directory.
tools="$PWD/target/tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  cargo install --quiet --locked --root "$tools" cargo-fuzz@0.13.1
fi
mkdir -p target/fuzz-corpus
# Safe Rust only, so AddressSanitizer adds nothing; the dev profile halves the cold build.
# The whole of cargo-fuzz's output goes to target/fuzz-run.log and only libFuzzer's summary lines
# are shown; on a failure (a crash, or a build that could not finish, say for want of disk) the
# log's tail is shown too, so that CI's output says why.
log="$PWD/target/fuzz-run.log"
set +e
RUSTUP_TOOLCHAIN=nightly "$tools/bin/cargo-fuzz" run --dev --sanitizer none --fuzz-dir fuzz \
  decode_body target/fuzz-corpus -- -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 \
  >"$log" 2>&1
fuzz_status=$?
set -e
grep -E '^(#[0-9]+ +DONE|Done|==[0-9]+== ERROR|SUMMARY)|panicked|deadly signal|Finished' "$log" || true
if [ "$fuzz_status" -ne 0 ]; then
  echo "fuzz: cargo-fuzz exited with $fuzz_status; the last lines of $log:"
  tail -n 60 "$log"
  df -h "$PWD/target" | tail -n 1
fi
# libFuzzer exits non-zero on a crash (the failing input lands in fuzz/artifacts/).
exit "$fuzz_status"
