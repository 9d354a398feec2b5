#!/usr/bin/env bash
# The deploy path as a user runs it, part of the test command: `sam build` with the template as
# shipped, then `sam local start-api` and `sam local invoke` of every function with every one of
# its sample events, in Docker, against moto. Steps, each failing the script when it fails:
#   1. the pinned SAM CLI (scripts/requirements-test.txt) in .venv;
#   2. Debian's docker.io when there is no dockerd, and a dockerd of this script's own (data and
#      exec roots under target/sam-local, no iptables), stopped at the end; the address the
#      containers reach the host on is the docker0 bridge's own, read from the interface;
#   3. the base image SAM builds its invoke image FROM, public.ecr.aws/lambda/provided:al2023,
#      which cannot be pulled here: made under that tag from Debian packages (busybox-static for
#      the shell SAM's Dockerfile runs, glibc, libgcc, CA certificates);
#   4. `sam build` (PROFILE=dev: the Makefile copies the dev binaries the test command built);
#   5. moto on the Docker bridge's address, the base image pointing the SDK at it
#      (AWS_ENDPOINT_URL, which the template does not declare and so SAM does not pass), and
#      target/debug/sam-local-check, which seeds moto and runs and checks every `sam local`.
# Expects the dev binaries (`cargo build --workspace --bins`); SAM_PROFILE=release uses the
# release build instead (the Makefile runs `cargo lambda build --release`).
#
# `--fresh` runs it as a new machine would: the docker0 interface and the data root (images)
# are removed first. What the script leaves on the machine, and how to undo it: docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

# The IPv4 address of the docker0 bridge, or nothing. The bridge network's IPAM config has no
# Gateway when this dockerd has just created docker0 itself, so the interface is the source.
bridge_address() {
  python3 - <<'PY' 2>/dev/null || true
import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
SIOCGIFADDR = 0x8915
print(socket.inet_ntoa(fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", b"docker0"))[20:24]))
PY
}

if [ "${1:-}" = "--inside-moto" ]; then
  # Step 5, under scripts/with-moto.sh: the base image knows moto's address, and every image
  # of an earlier run (SAM's invoke images built on an older base) goes, so SAM builds anew.
  docker image prune --all --force > /dev/null
  tar -C target/sam-local/rootfs -c . | docker import \
    --change "ENV AWS_ENDPOINT_URL=$MOTO_ENDPOINT" \
    --change "ENV LAMBDA_TASK_ROOT=/var/task" --change "ENV LAMBDA_RUNTIME_DIR=/var/runtime" \
    --change "ENV PATH=/usr/local/bin:/usr/bin:/bin" --change "WORKDIR /var/task" \
    - "$BASE_IMAGE" > /dev/null
  exec target/debug/sam-local-check .aws-sam/build/template.yaml target/sam-local/work
fi

started=$(date +%s)
root="$PWD/target/sam-local"
if [ "${1:-}" = "--fresh" ]; then
  if pgrep -x dockerd > /dev/null; then
    echo "--fresh: a dockerd is running (pid $(pgrep -x dockerd | paste -sd' ')); stop it first" >&2
    exit 1
  fi
  if [ -e /sys/class/net/docker0 ]; then
    ip link delete docker0 \
      || { echo "--fresh: cannot delete docker0 (ip link delete needs iproute2 and root)" >&2; exit 1; }
  fi
  rm -rf "$root/docker"
  echo "== --fresh: no docker0, no data root"
fi
mkdir -p "$root"

echo "== 1. SAM CLI (pinned) in .venv"
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-test.txt
export PATH="$PWD/.venv/bin:$PATH" SAM="$PWD/.venv/bin/sam" SAM_CLI_TELEMETRY=0
.venv/bin/sam --version

echo "== 2. dockerd of our own"
if ! command -v dockerd > /dev/null; then
  apt-get install -y -q docker.io > "$root/apt.log" 2>&1 \
    || { apt-get update -q > /dev/null && apt-get install -y -q docker.io > "$root/apt.log" 2>&1; }
fi
rm -rf "$root/run"
mkdir -p "$root/docker" "$root/run"
export DOCKER_HOST="unix://$root/run/docker.sock"
dockerd --data-root "$root/docker" --exec-root "$root/run/exec" --pidfile "$root/run/dockerd.pid" \
  --host "$DOCKER_HOST" --iptables=false > "$root/dockerd.log" 2>&1 &
dockerd_pid=$!
stop_dockerd() {
  # Containers first (start-api's warm ones), then the daemon, which stops its containerd.
  docker ps -q 2>/dev/null | xargs -r docker rm -f > /dev/null 2>&1 || true
  kill "$dockerd_pid" 2>/dev/null || true
  wait "$dockerd_pid" 2>/dev/null || true
}
trap stop_dockerd EXIT
for _ in $(seq 1 100); do docker info > /dev/null 2>&1 && break; sleep 0.2; done
docker info > /dev/null || { cat "$root/dockerd.log" >&2; exit 1; }
gateway=$(bridge_address)
if [ -z "$gateway" ]; then
  echo "dockerd is up but the docker0 bridge has no IPv4 address: the containers could not reach" \
    "moto on the host (ip -4 addr show docker0; $root/dockerd.log)" >&2
  exit 1
fi
echo "dockerd $(docker version --format '{{.Server.Version}}'), docker0 at $gateway"

echo "== 3. base image from Debian packages"
export BASE_IMAGE=public.ecr.aws/lambda/provided:al2023-x86_64
rm -rf "$root/debs" "$root/rootfs"
mkdir -p "$root/debs" "$root/rootfs"
(cd "$root/debs" && apt-get download -q busybox-static libc6 libgcc-s1 ca-certificates > /dev/null)
for deb in "$root"/debs/*.deb; do dpkg-deb -x "$deb" "$root/rootfs"; done
(cd "$root/rootfs" && mkdir -p bin tmp var/task var/runtime etc/ssl/certs \
  && for tool in sh mv chmod cp rm ls cat; do ln -sf busybox "bin/$tool"; done \
  && cat usr/share/ca-certificates/mozilla/*.crt > etc/ssl/certs/ca-certificates.crt \
  && chmod 1777 tmp)
echo "rootfs: $(du -sh "$root/rootfs" | cut -f1) from $(ls "$root/debs" | paste -sd' ')"

echo "== 4. sam build"
build_started=$(date +%s)
PROFILE="${SAM_PROFILE:-dev}" .venv/bin/sam build
echo "sam build: $(( $(date +%s) - build_started )) s"
for artifact in .aws-sam/build/*/bootstrap; do
  printf '%-60s %s\n' "$artifact" "$(stat -c %s "$artifact")"
done

echo "== 5. sam local start-api and invoke, against moto on $gateway"
rm -rf "$root/work"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=eu-north-1
MOTO_HOST="$gateway" scripts/with-moto.sh scripts/sam-local.sh --inside-moto
echo "== sam-local.sh passed in $(( $(date +%s) - started )) s"
