#!/usr/bin/env bash
# TLS vs plain, same run: the gateway's cost per request with both hops over TLS against the same gateway in plain
# HTTP. One instant simulated engine per mode (plain, or HTTPS with a private CA's certificate), one gateway
# per mode (plain, or server.tls on the client listener and gateway.upstream.tls.ca_file to the engine), loaded in
# turn with h2load (HTTP/1.1, closed loop, keep-alive) with a 1 KiB chat completion; rounds interleave the modes.
#
#   bench/tls-vs-plain.sh [ROUNDS] [SECONDS]      default 3 rounds of 10 s a mode, after 15 s of warm-up each
#
# Reports req/s and the gateway's CPU µs per request (utime + stime of its process from /proc)
# for each mode, the median of the rounds, and the TLS ÷ plain ratios. Installs h2load (nghttp2-client) and openssl
# with apt-get when missing. Listens on 127.0.0.1:18301-18306 only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../bin/lib/common.sh"
cd "$GRID_REPO"
rounds=${1:-3}
seconds=${2:-10}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ && "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: bench/tls-vs-plain.sh [ROUNDS] [SECONDS]" >&2
    exit 2
fi

require_jdk21 tls-vs-plain
for tool in h2load:nghttp2-client openssl:openssl curl:curl; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
        echo "tls-vs-plain: installing ${tool#*:}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${tool#*:}"
    fi
done
gateway_jar=app/target/grid-gateway.jar
engine_jar=engine-sim/target/engine-simulator.jar
build_if_stale tls-vs-plain "$gateway_jar" "$engine_jar" -- routing-core/src/main app/src/main engine-sim/src/main \
    -- -DskipTests package

run=$(mktemp -d "${TMPDIR:-/tmp}/tls-vs-plain.XXXXXX")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT

# A private CA and a certificate for 127.0.0.1, made here (the same recipe as bin/demo --tls).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
    -keyout "$run/ca.key.pem" -out "$run/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$run/key.pem" -out "$run/csr.pem" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >"$run/ext.cnf"
openssl x509 -req -in "$run/csr.pem" -CA "$run/ca.pem" -CAkey "$run/ca.key.pem" -CAcreateserial -days 2 -sha256 \
    -extfile "$run/ext.cnf" -out "$run/cert.pem" 2>/dev/null

# $1 mode (plain|tls), $2 client port, $3 admin port, $4 engine port: writes the gateway's config.
config() {
    local scheme=http server_tls="" upstream_tls=""
    if [[ $1 == tls ]]; then
        scheme=https
        server_tls=$'\n  tls:\n    cert_file: '"$run/cert.pem"$'\n    key_file: '"$run/key.pem"
        upstream_tls=$'\n  upstream:\n    tls:\n      ca_file: '"$run/ca.pem"
    fi
    cat >"$run/$1.yaml" <<EOF
server:
  port: $2
  admin_port: $3
  host: 127.0.0.1
  admin_host: 127.0.0.1$server_tls
gateway:
  site: bench$upstream_tls
sites:
  - name: bench
    clusters:
      - name: engine
        url: $scheme://127.0.0.1:$4
        models: [bench-model]
EOF
}

# $1 mode, $2 engine port: starts an instant engine of that mode.
engine() {
    local tls=()
    [[ $1 == tls ]] && tls=(--tls-cert "$run/cert.pem" --tls-key "$run/key.pem")
    "$jdk/bin/java" -Xmx256m -cp "$engine_jar:engine-sim/target/libs/*" grid.gateway.enginesim.EngineSimulatorMain \
        --host 127.0.0.1 --port "$2" --name "engine-$1" --model bench-model --instant --slots 256 "${tls[@]}" \
        >"$run/engine-$1.log" 2>&1 &
    pids+=($!)
}

declare -A gateway_pid
# $1 mode, $2 client port, $3 admin port: starts the gateway of that mode and waits until it is ready.
gateway() {
    "$jdk/bin/java" -Xms512m -Xmx512m -jar "$gateway_jar" --config "$run/$1.yaml" >"$run/gateway-$1.log" 2>&1 &
    gateway_pid[$1]=$!
    pids+=($!)
    for _ in $(seq 1 120); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$3/health/ready") == 200 ]] && return 0
        sleep 0.5
    done
    echo "tls-vs-plain: the $1 gateway did not get ready (see $run/gateway-$1.log)" >&2
    exit 1
}

engine plain 18301
engine tls 18302
config plain 18303 18304 18301
config tls 18305 18306 18302
gateway plain 18303 18304
gateway tls 18305 18306

printf '{"model":"bench-model","max_tokens":8,"messages":[{"role":"user","content":"%s"}]}' \
    "$(head -c 900 /dev/zero | tr '\0' 'a')" >"$run/body.json"

# CPU ticks (utime + stime) of process $1.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# $1 mode, $2 seconds: one h2load run; prints "req/s cpu_us_per_request".
load() {
    local url pid before after out
    [[ $1 == tls ]] && url=https://127.0.0.1:18305/v1/chat/completions || url=http://127.0.0.1:18303/v1/chat/completions
    pid=${gateway_pid[$1]}
    before=$(ticks "$pid")
    out=$(h2load --h1 -c 16 -t 1 -D "$2" -d "$run/body.json" -H 'Content-Type: application/json' "$url" 2>&1)
    after=$(ticks "$pid")
    awk -v before="$before" -v after="$after" -v hz="$hz" '
        /^finished in/ { for (i = 1; i <= NF; i++) if ($i ~ /req\/s/) rps = $(i - 1) + 0 }
        /^requests:/ { done = $8 + 0 }
        /^status codes:/ { ok = $3 + 0 }
        END {
            # Every answer must be a 2xx: a run of refused handshakes (502s) is fast and cheap, and would pass for
            # a result.
            if (done == 0 || ok != done) { printf "only %d of %d answers were 2xx\n", ok, done > "/dev/stderr"; exit 1 }
            printf "%.0f %.1f\n", rps, (after - before) / hz * 1e6 / done
        }' <<<"$out"
}

echo "warming each gateway for 15 s ..." >&2
load plain 15 >/dev/null
load tls 15 >/dev/null
: >"$run/rounds.txt"
for r in $(seq 1 "$rounds"); do
    for mode in plain tls; do
        result=$(load "$mode" "$seconds")
        echo "$mode $result" >>"$run/rounds.txt"
    done
done

# Medians per mode of req/s and CPU µs per request, and the ratios.
awk '
    { rps[$1] = rps[$1] " " $2; cpu[$1] = cpu[$1] " " $3 }
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        print "| mode | req/s (median) | gateway CPU µs/request (median) | rounds (req/s) |"
        print "|---|---:|---:|---|"
        for (m in rps) printf "| %s | %.0f | %.1f | %s |\n", m, median(rps[m]), median(cpu[m]), rps[m]
        printf "\nTLS ÷ plain: throughput %.2f, CPU per request %.2f\n", median(rps["tls"]) / median(rps["plain"]),
            median(cpu["tls"]) / median(cpu["plain"])
    }' "$run/rounds.txt"
echo "(raw rounds: $run/rounds.txt)" >&2
