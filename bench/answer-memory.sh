#!/usr/bin/env bash
# What tagging a large stored response costs: its latency through the gateway, and the gateway's heap per client that
# fetches it and stops reading.
#
#   bench/answer-memory.sh
#
# An nginx upstream (1 worker, keep-alive) serves two stored responses as static JSON files: a 1 MiB one
# (GET /v1/responses/resp_mib) and an 8 MiB one (GET /v1/responses/resp_big), each with its id first and a
# previous_response_id after its long instructions, so both are tagged. The packaged gateway (-Xms1g -Xmx1g, G1, a
# GC log) is in front of it, and the requests name the tagged ids (pinned, tag stripped, answer tagged again).
#
#   latency   bench/answer-memory.mjs: REQUESTS GETs of the 1 MiB response, 1 and then 4 connections, each timed to
#             the last byte of its body (p50, p99, mean)
#   heap      a full GC (jcmd GC.run) and the heap in use after it (the GC log's "Heap After GC"), then STALLED
#             clients GET the 8 MiB response and stop reading after its first bytes; once the gateway has them all
#             in flight, a full GC again: (heap after - heap before) / STALLED is the heap each stalled GET holds,
#             beside grid_inflight_answer_bytes, what the gateway counts (absent from builds that do not count)
#
# Environment: GATEWAY_JAR (default app/target/grid-gateway.jar; another build's libs/ must sit beside it, for a
# before/after comparison), REQUESTS (default 200), STALLED (default 8). Listens on 127.0.0.1:18220-18222. Results:
# target/answer-memory/<time>/ (configs, logs, report.txt). Kills what it started when it ends, also on Ctrl-C.
set -euo pipefail
# shellcheck source=bin/lib/common.sh
. "$(dirname "$0")/../bin/lib/common.sh"
cd "$GRID_REPO"

requests=${REQUESTS:-200}
stalled=${STALLED:-8}
gateway_jar=${GATEWAY_JAR:-app/target/grid-gateway.jar}
host=127.0.0.1
port=18220
admin_port=18221
upstream_port=18222

require_jdk21 answer-memory jcmd
for tool in curl awk node python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "answer-memory: needs $tool" >&2; exit 1; }
done
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx ]] || { echo "answer-memory: needs nginx" >&2; exit 1; }
if [[ -z ${GATEWAY_JAR:-} ]]; then
    build_if_stale answer-memory "$gateway_jar" -- routing-core/src/main app/src/main -- -DskipTests package
fi
for p in "$port" "$admin_port" "$upstream_port"; do
    if (exec 3<>"/dev/tcp/$host/$p") 2>/dev/null; then
        echo "answer-memory: $host:$p is in use; stop whatever listens there first" >&2
        exit 1
    fi
done

run=target/answer-memory/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run/root/v1/responses" "$run/nginx"
run=$(cd "$run" && pwd)
started=()
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    local pid
    for pid in "${started[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The stored responses: id first, the instructions, then previous_response_id and the conversation.
python3 - "$run/root/v1/responses" <<'EOF'
import sys
for name, size in (("resp_mib", 1 << 20), ("resp_big", 8 << 20)):
    with open(f"{sys.argv[1]}/{name}", "w") as f:
        f.write('{"id":"%s","object":"response","instructions":"%s","previous_response_id":"resp_prev",'
                '"conversation":{"id":"conv_c"},"output":[]}' % (name, "i" * size))
EOF
cat >"$run/nginx/nginx.conf" <<EOF
worker_processes 1;
error_log $run/nginx/error.log;
pid $run/nginx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $run/nginx;
    proxy_temp_path $run/nginx;
    fastcgi_temp_path $run/nginx;
    uwsgi_temp_path $run/nginx;
    scgi_temp_path $run/nginx;
    keepalive_requests 1000000;
    server {
        listen $host:$upstream_port;
        root $run/root;
        default_type application/json;
        location = /metrics { return 200 "vllm:num_requests_waiting 0\n"; }
    }
}
EOF
cat >"$run/gateway.yaml" <<EOF
# Written by bench/answer-memory.sh: one cluster, the nginx upstream.
server:
  port: $port
  admin_port: $admin_port
gateway:
  site: east
  access_log: "off"
sites:
  - name: east
    clusters:
      - name: east-a
        url: http://$host:$upstream_port
        models: [bench-model]
EOF

"$nginx" -p "$run/nginx" -c "$run/nginx/nginx.conf" -g 'daemon off;' &
started+=($!)
"$jdk/bin/java" -Xms1g -Xmx1g -XX:+UseG1GC "-Xlog:gc,gc+heap=debug:file=$run/gc.log" \
    -jar "$gateway_jar" --config "$run/gateway.yaml" >"$run/gateway.log" 2>&1 &
gateway_pid=$!
started+=("$gateway_pid")
for _ in $(seq 1 120); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://$host:$admin_port/health/ready") == 200 ]] && break
    sleep 0.5
done

digest=$(printf 'east-a' | sha256sum | cut -c1-8)
mib_url="http://$host:$port/v1/responses/resp_east.$digest..mib"
big_url="http://$host:$port/v1/responses/resp_east.$digest..big"
curl -s -o "$run/mib.json" "$mib_url"
head -c 120 "$run/mib.json" | grep -q "\"id\":\"resp_east.$digest..mib\"" \
    || { echo "answer-memory: the 1 MiB response did not come back tagged" >&2; exit 1; }

metric() {
    curl -s --max-time 5 "http://$host:$admin_port/metrics" \
        | awk -v name="$1" 'index($0, name "{") == 1 { sum += $NF; seen = 1 } END { if (seen) printf "%d", sum; else print "-" }'
}

# Heap in use (KiB) after a full collection, as G1 reports it in the GC log.
heap_after_full_gc() {
    local fulls
    fulls=$(grep -c 'Pause Full (' "$run/gc.log" || true)
    "$jdk/bin/jcmd" "$gateway_pid" GC.run >/dev/null
    for _ in $(seq 1 40); do
        (($(grep -c 'Pause Full (' "$run/gc.log" || true) > fulls)) && break
        sleep 0.25
    done
    awk '
        /Heap After GC/ { after = 1; next }
        after && /used [0-9]+K/ {
            id = gcid(); match($0, /used [0-9]+K/); used[id] = substr($0, RSTART + 5, RLENGTH - 6); after = 0
        }
        /Pause Full \(/ { last = used[gcid()] }
        END { print last + 0 }
        function gcid() { match($0, /GC\([0-9]+\)/); return substr($0, RSTART, RLENGTH) }' "$run/gc.log"
}

{
    echo "answer-memory: $gateway_jar, $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "latency of the 1 MiB stored response, 1 connection:  $(node bench/answer-memory.mjs latency "$mib_url" "$requests" 1)"
    echo "latency of the 1 MiB stored response, 4 connections: $(node bench/answer-memory.mjs latency "$mib_url" "$requests" 4)"
} | tee "$run/report.txt"

before=$(heap_after_full_gc)
node bench/answer-memory.mjs stall "$big_url" "$stalled" >"$run/stall.log" 2>&1 &
stall_pid=$!
started+=("$stall_pid")
for _ in $(seq 1 120); do
    grep -q "^stalled" "$run/stall.log" 2>/dev/null && (($(metric grid_requests_in_flight) >= stalled)) && break
    sleep 0.5
done
sleep 2 # the writes block once the socket buffers are full
after=$(heap_after_full_gc)
{
    echo "heap after a full GC: $before KiB before, $after KiB with $stalled GETs of the 8 MiB response stalled:" \
        "$(((after - before) / stalled)) KiB a stalled GET; grid_inflight_answer_bytes $(metric grid_inflight_answer_bytes)"
} | tee -a "$run/report.txt"
