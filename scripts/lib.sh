# Helpers the scripts source: a free loopback port, and waiting for a local server to answer.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_for URL: up to 20 s until anything answers at URL.
wait_for() {
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null "$1"; then return 0; fi
    sleep 0.2
  done
  echo "nothing answered at $1" >&2
  return 1
}
