#!/usr/bin/env bash
# Gateway cost, side by side (issue 7): one fixed-answer upstream, measured in the same run
#   direct      client -> upstream
#   nginx       client -> nginx (plain reverse proxy: proxy_buffering off, keep-alive upstream) -> upstream
#   gateway     client -> grid gateway (one site; the fixed upstream and the SSE engine as two clusters) -> upstream
#   portkey     client -> Portkey AI gateway 1.15.2 (x-portkey-provider: openai + x-portkey-custom-host) -> upstream
# for Chat Completions bodies of 1, 32 and 256 KiB (h2load, closed loop), a pinned Responses retrieve, a streamed
# answer of 50 events (sse-timing.mjs), and the added p99 at half of the gateway's saturation rate (h2load --rps).
#
#   bench/side-by-side/run.sh [--quick] [--jfr] [--serve] [--out FILE]
#
#   --quick   short runs (3-6 minutes) to check the script and see ratios; the full run takes about 10
#   --jfr     record the gateway with JFR into work/gateway.jfr (profile: see BENCHMARKS.md)
#   --serve   start the servers, print their ports and wait (for profiling by hand); Ctrl-C stops them
#   --out     the results file (default: bench/side-by-side/work/results.md); the table also goes to stdout
#
# Installs what it uses on a Debian machine (nginx, h2load, node/npm, maven, curl; Portkey into work/portkey) and
# builds the gateway jars when missing or older than the sources. Listens on 127.0.0.1:18100-18105 only (Portkey
# has no bind option and listens on *:18104; it is sent loopback traffic only). Environment: GATEWAY_JAVA_OPTS
# adds JVM options to the gateway, GATEWAY_JAR runs another build of it (for before/after comparisons; its libs/
# must sit beside it), CONCURRENCY (default 16) sets the closed-loop connections.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../../bin/lib/common.sh"
repo=$GRID_REPO
work=$here/work
quick=false
jfr=false
serve=false
out=$work/results.md
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) quick=true ;;
        --jfr) jfr=true ;;
        --serve) serve=true ;;
        --out) out=$2; shift ;;
        -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

readonly UPSTREAM_PORT=18100 NGINX_PORT=18101 GATEWAY_PORT=18102 ADMIN_PORT=18103 PORTKEY_PORT=18104
readonly ENGINE_PORT=18105
readonly FIXED_MODEL=bench-model STREAM_MODEL=bench-stream
readonly STREAM_EVENTS=50 STREAM_GAP_MS=10
gateway_jar=${GATEWAY_JAR:-$repo/app/target/grid-gateway.jar}
concurrency=${CONCURRENCY:-16}
if $quick; then
    jit_requests=5000 warm=2 dur=3 stream_requests=64 rate_dur=3
else
    jit_requests=20000 warm=5 dur=10 stream_requests=400 rate_dur=10
fi
sizes=(1k 32k 256k)
targets=(direct nginx gateway portkey)

log() { printf '%s run.sh: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------------------------------------------------------
# Tools: install what is missing (Debian), find a JDK 21+, build the jars, install Portkey.

sudo_if_needed() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

install_missing() {
    local -a packages=()
    command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || packages+=(nginx)
    command -v h2load >/dev/null 2>&1 || packages+=(nghttp2-client)
    command -v node >/dev/null 2>&1 || packages+=(nodejs)
    command -v npm >/dev/null 2>&1 || packages+=(npm)
    command -v mvn >/dev/null 2>&1 || packages+=(maven)
    command -v curl >/dev/null 2>&1 || packages+=(curl)
    if [[ ${#packages[@]} -gt 0 ]]; then
        log "installing ${packages[*]} with apt-get"
        sudo_if_needed apt-get update -qq
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
    fi
}

build_jars() {
    build_if_stale run.sh app/target/grid-gateway.jar engine-sim/target/engine-simulator.jar \
        -- routing-core/src/main app/src/main engine-sim/src/main -- -DskipTests package
}

install_portkey() {
    local dir=$work/portkey
    if [[ -f "$dir/node_modules/@portkey-ai/gateway/build/start-server.js" ]]; then
        return
    fi
    log "installing @portkey-ai/gateway 1.15.2 into $dir"
    mkdir -p "$dir"
    # The override is required: with @hono/node-server 1.x every streamed answer fails ("TypeError: immutable").
    cat >"$dir/package.json" <<'EOF'
{
  "name": "side-by-side-portkey",
  "version": "1.0.0",
  "private": true,
  "dependencies": { "@portkey-ai/gateway": "1.15.2" },
  "overrides": { "@hono/node-server": "2.1.9" }
}
EOF
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
}

# ---------------------------------------------------------------------------------------------------------------
# Servers.

pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for conf in "$work/nginx-upstream" "$work/nginx-proxy"; do
        if [[ -f "$conf/nginx.pid" ]]; then kill "$(cat "$conf/nginx.pid")" 2>/dev/null || true; fi
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {
    local url=$1 name=$2 i
    for ((i = 0; i < 300; i++)); do
        if curl -s -o /dev/null -m 1 "$url"; then return 0; fi
        sleep 0.2
    done
    echo "run.sh: $name did not come up at $url" >&2
    exit 1
}

nginx_bin() { command -v nginx 2>/dev/null || echo /usr/sbin/nginx; }

write_upstream_conf() {
    local dir=$work/nginx-upstream
    mkdir -p "$dir/logs" "$dir/tmp"
    # The chat answer and the stored response are fixed; nginx reads and discards the request body.
    cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  client_max_body_size 64m;
  keepalive_requests 1000000;
  default_type application/json;
  server {
    listen 127.0.0.1:$UPSTREAM_PORT;
    location = /v1/chat/completions {
      return 200 '{"id":"chatcmpl-bench","object":"chat.completion","created":1764460800,"model":"$FIXED_MODEL","choices":[{"index":0,"message":{"role":"assistant","content":"Hello from the fixed upstream.","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":256,"completion_tokens":8,"total_tokens":264,"prompt_tokens_details":{"cached_tokens":0}}}';
    }
    location = /v1/responses {
      return 200 '{"id":"resp_bench0001","object":"response","created_at":1764460800,"status":"completed","model":"$FIXED_MODEL","output":[{"type":"message","id":"msg_bench0001","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello from the fixed upstream.","annotations":[]}]}],"previous_response_id":null,"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}}';
    }
    location /v1/responses/ {
      return 200 '{"id":"resp_bench0001","object":"response","created_at":1764460800,"status":"completed","model":"$FIXED_MODEL","output":[{"type":"message","id":"msg_bench0001","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello from the fixed upstream.","annotations":[]}]}],"previous_response_id":null,"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}}';
    }
    location = /metrics {
      default_type text/plain;
      return 200 'vllm:num_requests_waiting{model_name="$FIXED_MODEL"} 0\n';
    }
  }
}
EOF
}

write_proxy_conf() {
    local dir=$work/nginx-proxy
    mkdir -p "$dir/logs" "$dir/tmp"
    cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  client_max_body_size 64m;
  client_body_buffer_size 1m;
  keepalive_requests 1000000;
  upstream fixed { server 127.0.0.1:$UPSTREAM_PORT; keepalive 64; keepalive_requests 1000000; }
  upstream engine { server 127.0.0.1:$ENGINE_PORT; keepalive 64; keepalive_requests 1000000; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_buffering off;
    proxy_read_timeout 600s;
    location / { proxy_pass http://fixed; }
    location /stream/ { proxy_pass http://engine/; }
  }
}
EOF
}

write_gateway_conf() {
    cat >"$work/gateway.yaml" <<EOF
# One site; the fixed upstream and the streaming engine are two clusters that serve different models, so each
# request has exactly one candidate.
server:
  port: $GATEWAY_PORT
  admin_port: $ADMIN_PORT
gateway:
  site: bench
  tag_key_path: $work/tag-key
sites:
  - name: bench
    clusters:
      - name: fixed
        url: http://127.0.0.1:$UPSTREAM_PORT
        models: [$FIXED_MODEL]
      - name: engine
        url: http://127.0.0.1:$ENGINE_PORT
        models: [$STREAM_MODEL]
EOF
    echo "side-by-side-bench-tag-key-0001" >"$work/tag-key"
}

nginx_workers() { # the worker processes of the nginx whose pid file is $1
    pgrep -P "$(cat "$1")" | tr '\n' ' '
}

ports_free() {
    local port
    for port in "$UPSTREAM_PORT" "$NGINX_PORT" "$GATEWAY_PORT" "$ADMIN_PORT" "$PORTKEY_PORT" "$ENGINE_PORT"; do
        if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "run.sh: port $port is in use (another run?); ports $UPSTREAM_PORT-$ENGINE_PORT must be free" >&2
            exit 1
        fi
    done
}

start_servers() {
    ports_free
    write_upstream_conf
    write_proxy_conf
    write_gateway_conf
    "$(nginx_bin)" -q -c "$work/nginx-upstream/nginx.conf" -p "$work/nginx-upstream" -e "$work/nginx-upstream/logs/error.log"
    "$(nginx_bin)" -q -c "$work/nginx-proxy/nginx.conf" -p "$work/nginx-proxy" -e "$work/nginx-proxy/logs/error.log"
    local engine_events=$((STREAM_EVENTS - 2)) # a role chunk, the tokens, then [DONE]
    "$jdk/bin/java" -cp "$repo/engine-sim/target/engine-simulator.jar:$repo/engine-sim/target/libs/*" \
        grid.gateway.enginesim.EngineSimulatorMain --port "$ENGINE_PORT" --name bench-engine \
        --model "$STREAM_MODEL" --slots 4096 --cache-blocks 0 --prefill-tps Infinity \
        --decode-tps "$((1000 / STREAM_GAP_MS))" --answer-tokens "$engine_events" >"$work/engine.log" 2>&1 &
    pids+=($!)
    local -a jvm=()
    # Word splitting is wanted: GATEWAY_JAVA_OPTS holds several options.
    # shellcheck disable=SC2206
    jvm=(${GATEWAY_JAVA_OPTS:-})
    if $jfr; then jvm+=("-XX:StartFlightRecording=filename=$work/gateway.jfr,settings=profile,dumponexit=true"); fi
    "$jdk/bin/java" "${jvm[@]}" -jar "$gateway_jar" --config "$work/gateway.yaml" \
        >"$work/gateway.log" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    (cd "$work/portkey" && NODE_ENV=production exec node node_modules/@portkey-ai/gateway/build/start-server.js \
        --headless --port="$PORTKEY_PORT" >"$work/portkey.log" 2>&1) &
    portkey_pid=$!
    pids+=("$portkey_pid")
    wait_for "http://127.0.0.1:$UPSTREAM_PORT/metrics" "the upstream"
    wait_for "http://127.0.0.1:$NGINX_PORT/metrics" "nginx"
    wait_for "http://127.0.0.1:$ENGINE_PORT/metrics" "the engine simulator"
    wait_for "http://127.0.0.1:$ADMIN_PORT/health/live" "the gateway"
    wait_for "http://127.0.0.1:$PORTKEY_PORT/" "portkey"
    upstream_workers=$(nginx_workers "$work/nginx-upstream/nginx.pid")
    proxy_workers=$(nginx_workers "$work/nginx-proxy/nginx.pid")
    # Portkey's start script may fork; count the node process that listens.
    portkey_pid=$(pgrep -f "start-server.js --headless --port=$PORTKEY_PORT" | head -n 1)
}

# ---------------------------------------------------------------------------------------------------------------
# Measuring.

ticks_per_second=$(getconf CLK_TCK)

cpu_ticks() { # summed utime+stime (clock ticks) of the given pids
    local pid sum=0 stat
    for pid in "$@"; do
        stat=$(cat "/proc/$pid/stat")
        stat=${stat##*) } # fields after the command name, starting at field 3
        read -r -a f <<<"$stat"
        sum=$((sum + f[11] + f[12]))
    done
    echo "$sum"
}

proxy_pids() { # the process whose CPU a target costs; for direct, the upstream's own
    local target=$1 kind=$2
    case $target in
        direct) if [[ $kind == stream ]]; then pgrep -f "EngineSimulatorMain --port $ENGINE_PORT"; else echo "$upstream_workers"; fi ;;
        nginx) echo "$proxy_workers" ;;
        gateway) echo "$gateway_pid" ;;
        portkey) echo "$portkey_pid" ;;
    esac
}

url_for() { # target, path on the upstream
    local target=$1 path=$2
    case $target in
        direct) echo "http://127.0.0.1:$UPSTREAM_PORT$path" ;;
        nginx) echo "http://127.0.0.1:$NGINX_PORT$path" ;;
        gateway) echo "http://127.0.0.1:$GATEWAY_PORT$path" ;;
        portkey) echo "http://127.0.0.1:$PORTKEY_PORT$path" ;;
    esac
}

portkey_headers() { # h2load -H arguments routing Portkey to the fixed upstream
    printf '%s\n' -H "x-portkey-provider: openai" -H "x-portkey-custom-host: http://127.0.0.1:$UPSTREAM_PORT/v1"
}

# Runs h2load and prints "rps p50_ms p99_ms ok failed cpu_us_per_request".
#   h2load_run TARGET KIND SECONDS RATE URL [extra h2load args...]    RATE 0 = closed loop
h2load_run() {
    local target=$1 kind=$2 seconds=$3 rate=$4 url=$5
    shift 5
    local -a args=(--h1 -t 1 -c "$concurrency" -D "$seconds" -H "authorization: Bearer sk-bench" "$@")
    if [[ $rate -gt 0 ]]; then
        args+=(--rps "$(((rate + concurrency - 1) / concurrency))")
    fi
    if [[ $target == portkey ]]; then
        local -a extra
        mapfile -t extra < <(portkey_headers)
        args+=("${extra[@]}")
    fi
    local -a pids_to_watch
    read -r -a pids_to_watch <<<"$(proxy_pids "$target" "$kind")"
    local logfile=$work/h2load.tsv before after
    rm -f "$logfile"
    before=$(cpu_ticks "${pids_to_watch[@]}")
    h2load "${args[@]}" --log-file="$logfile" "$url" >"$work/h2load.out" 2>&1 || true
    after=$(cpu_ticks "${pids_to_watch[@]}")
    local ok failed rps
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.out")
    ok=$(awk -F'\t' '$2 >= 200 && $2 < 300 { n++ } END { print n + 0 }' "$logfile" 2>/dev/null || echo 0)
    failed=$(awk -F'\t' '!($2 >= 200 && $2 < 300) { n++ } END { print n + 0 }' "$logfile" 2>/dev/null || echo 0)
    if [[ -z "$rps" || $ok -eq 0 ]]; then
        echo "0 - - 0 $failed -"
        return
    fi
    # h2load's own req/s counts failures too: use successes over the measured duration.
    rps=$(awk -v n="$ok" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    local p50 p99 cpu
    read -r p50 p99 < <(awk -F'\t' '$2 >= 200 && $2 < 300 { print $3 }' "$logfile" | sort -n |
        awk '{ v[NR] = $1 } END { i50 = int(NR * 0.50 + 0.999); i99 = int(NR * 0.99 + 0.999);
            printf "%.2f %.2f\n", v[i50] / 1000, v[i99] / 1000 }')
    cpu=$(awk -v t=$((after - before)) -v hz="$ticks_per_second" -v n="$ok" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
    echo "$rps $p50 $p99 $ok $failed $cpu"
}

declare -A result

# The JVM and V8 compile while they warm up, and that CPU would land on the first measured rows: send every kind of
# request through the gateway and Portkey first, unmeasured, by count (on a busy machine a fixed time is too few).
warm_up_jits() {
    local size target count
    for target in gateway portkey; do
        for size in "${sizes[@]}"; do
            count=$jit_requests
            [[ $size == 256k ]] && count=$((jit_requests / 4))
            [[ $target == portkey ]] && count=$((count / 10))
            h2load --h1 -t 1 -c "$concurrency" -n "$count" -H "authorization: Bearer sk-bench" \
                -H "x-portkey-provider: openai" -H "x-portkey-custom-host: http://127.0.0.1:$UPSTREAM_PORT/v1" \
                -d "$work/bodies/chat-$size.json" -H "content-type: application/json" \
                "$(url_for "$target" /v1/chat/completions)" >/dev/null 2>&1 || true
        done
    done
    h2load --h1 -t 1 -c "$concurrency" -n "$jit_requests" -H "authorization: Bearer sk-bench" \
        "$(url_for gateway "/v1/responses/$(tagged_id)")" >/dev/null 2>&1 || true
}

measure_chat() {
    local size target url
    for size in "${sizes[@]}"; do
        for target in "${targets[@]}"; do
            url=$(url_for "$target" /v1/chat/completions)
            local -a body=(-d "$work/bodies/chat-$size.json" -H "content-type: application/json")
            h2load_run "$target" chat "$warm" 0 "$url" "${body[@]}" >/dev/null
            result[chat-$size,$target]=$(h2load_run "$target" chat "$dur" 0 "$url" "${body[@]}")
            log "chat $size $target: ${result[chat-$size,$target]}"
        done
    done
}

tagged_id() { # a tagged stored id, created through the gateway
    curl -s -H 'content-type: application/json' -H 'authorization: Bearer sk-bench' \
        --data-binary "@$work/bodies/responses-create.json" "http://127.0.0.1:$GATEWAY_PORT/v1/responses" |
        sed -n 's/^{"id":"\(resp_[^"]*\)".*/\1/p'
}

measure_retrieve() {
    local id target path url
    id=$(tagged_id)
    if [[ -z "$id" ]]; then
        echo "run.sh: the gateway did not answer a Responses create with a tagged id" >&2
        exit 1
    fi
    log "pinned retrieve of $id"
    for target in "${targets[@]}"; do
        if [[ $target == gateway ]]; then path=/v1/responses/$id; else path=/v1/responses/resp_bench0001; fi
        url=$(url_for "$target" "$path")
        h2load_run "$target" retrieve "$warm" 0 "$url" >/dev/null
        result[retrieve,$target]=$(h2load_run "$target" retrieve "$dur" 0 "$url")
        log "retrieve $target: ${result[retrieve,$target]}"
    done
}

measure_half_saturation() {
    local size target url rate
    for size in 1k 32k; do
        rate=$(awk -v r="${result[chat-$size,gateway]%% *}" 'BEGIN { printf "%d", r / 2 }')
        [[ $rate -gt 0 ]] || continue
        result[half-$size,rate]=$rate
        for target in "${targets[@]}"; do
            url=$(url_for "$target" /v1/chat/completions)
            result[half-$size,$target]=$(h2load_run "$target" chat "$rate_dur" "$rate" "$url" \
                -d "$work/bodies/chat-$size.json" -H "content-type: application/json")
            log "half saturation $size ($rate/s) $target: ${result[half-$size,$target]}"
        done
    done
}

measure_stream() {
    local target url headers requests before after
    for target in "${targets[@]}"; do
        headers='{}'
        case $target in
            direct) url=http://127.0.0.1:$ENGINE_PORT/v1/chat/completions ;;
            nginx) url=http://127.0.0.1:$NGINX_PORT/stream/v1/chat/completions ;;
            gateway) url=http://127.0.0.1:$GATEWAY_PORT/v1/chat/completions ;;
            portkey)
                url=http://127.0.0.1:$PORTKEY_PORT/v1/chat/completions
                headers="{\"x-portkey-provider\":\"openai\",\"x-portkey-custom-host\":\"http://127.0.0.1:$ENGINE_PORT/v1\"}"
                ;;
        esac
        requests=$stream_requests
        node "$here/sse-timing.mjs" "$url" "$work/bodies/chat-stream.json" "$concurrency" "$concurrency" "$headers" \
            >/dev/null
        local -a watch
        read -r -a watch <<<"$(proxy_pids "$target" stream)"
        before=$(cpu_ticks "${watch[@]}")
        result[stream,$target]=$(node "$here/sse-timing.mjs" "$url" "$work/bodies/chat-stream.json" "$requests" \
            "$concurrency" "$headers")
        after=$(cpu_ticks "${watch[@]}")
        result[stream-cpu,$target]=$((after - before))
        log "stream $target: ${result[stream,$target]}"
    done
}

# ---------------------------------------------------------------------------------------------------------------
# Report.

field() { # field N of a result line
    local line=$1 n=$2
    awk -v n="$n" '{ print $n }' <<<"$line"
}

ratio() { # a / b with two decimals, or - when either is missing
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a + 0 == 0 || b + 0 == 0) print "-";
        else printf "%.2f", a / b }'
}

json_field() { # a number from the sse-timing JSON line: json_field LINE first_event_ms p50
    node -e 'const o = JSON.parse(process.argv[1]); const v = process.argv.slice(2).reduce((x, k) => x?.[k], o);
        console.log(v ?? "-")' "$@"
}

report() {
    local size target line direct nginx rps p50 p99 cpu
    echo "## Side-by-side run $(date -u +%Y-%m-%dT%H:%M:%SZ)$($quick && echo ' (--quick)')"
    echo
    echo "Machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), load average" \
        "before the run $load_before; $(nginx_bin) $("$(nginx_bin)" -v 2>&1 | sed 's/.*\///'), h2load" \
        "$(h2load --version 2>/dev/null | sed -n 's/.*nghttp2\/\([0-9.]*\).*/\1/p' | head -n 1)," \
        "node $(node --version), $("$jdk/bin/java" -version 2>&1 | head -n 1)." \
        "Closed loop: h2load --h1 -t 1 -c $concurrency, ${dur}s after ${warm}s of warm-up."
    echo
    echo "| load | path | req/s | ×direct | ×nginx | p50 ms | p99 ms | p99 ×direct | p99 ×nginx | CPU µs/req | CPU ×direct | CPU ×nginx | failed |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    local row
    for row in chat-1k chat-32k chat-256k retrieve; do
        direct=${result[$row,direct]:-}
        nginx=${result[$row,nginx]:-}
        [[ -n "$direct" ]] || continue
        for target in "${targets[@]}"; do
            line=${result[$row,$target]:-}
            [[ -n "$line" ]] || continue
            rps=$(field "$line" 1)
            p50=$(field "$line" 2)
            p99=$(field "$line" 3)
            cpu=$(field "$line" 6)
            echo "| $row | $target | $rps | $(ratio "$rps" "$(field "$direct" 1)") | $(ratio "$rps" "$(field "$nginx" 1)")" \
                "| $p50 | $p99 | $(ratio "$p99" "$(field "$direct" 3)") | $(ratio "$p99" "$(field "$nginx" 3)")" \
                "| $cpu | $(ratio "$cpu" "$(field "$direct" 6)") | $(ratio "$cpu" "$(field "$nginx" 6)") | $(field "$line" 5) |"
        done
    done
    echo
    echo "Added latency at half of the gateway's saturation rate (h2load --rps, ${rate_dur}s; added = p99 − direct p99):"
    echo
    echo "| body | rate/s | path | achieved req/s | p50 ms | p99 ms | added p99 ms | CPU µs/req |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|"
    for size in 1k 32k; do
        direct=${result[half-$size,direct]:-}
        [[ -n "$direct" ]] || continue
        for target in "${targets[@]}"; do
            line=${result[half-$size,$target]:-}
            p99=$(field "$line" 3)
            echo "| $size | ${result[half-$size,rate]} | $target | $(field "$line" 1) | $(field "$line" 2) | $p99" \
                "| $(awk -v a="$p99" -v b="$(field "$direct" 3)" 'BEGIN { if (a == "-" || b == "-") print "-";
                    else printf "%+.2f", a - b }') | $(field "$line" 6) |"
        done
    done
    echo
    echo "Streamed answer: $STREAM_EVENTS events, ${STREAM_GAP_MS} ms apart, $stream_requests requests," \
        "$concurrency at a time (sse-timing.mjs):"
    echo
    echo "| path | answers | first event p50 ms | first event p99 ms | added first event p50 ms | gap p50 ms | gap p99 ms | added gap p99 ms | CPU µs/answer |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    local d_first d_gap first gap answers
    direct=${result[stream,direct]:-}
    d_first=$(json_field "$direct" first_event_ms p50)
    d_gap=$(json_field "$direct" gap_ms p99)
    for target in "${targets[@]}"; do
        line=${result[stream,$target]:-}
        [[ -n "$line" ]] || continue
        answers=$(json_field "$line" requests)
        first=$(json_field "$line" first_event_ms p50)
        gap=$(json_field "$line" gap_ms p99)
        echo "| $target | $answers (failed $(json_field "$line" failed), $(json_field "$line" events_per_answer) events)" \
            "| $first | $(json_field "$line" first_event_ms p99)" \
            "| $(awk -v a="$first" -v b="$d_first" 'BEGIN { printf "%+.2f", a - b }')" \
            "| $(json_field "$line" gap_ms p50) | $gap | $(awk -v a="$gap" -v b="$d_gap" 'BEGIN { printf "%+.2f", a - b }')" \
            "| $(awk -v t="${result[stream-cpu,$target]}" -v hz="$ticks_per_second" -v n="$answers" \
                'BEGIN { if (n > 0) printf "%.0f", t / hz * 1e6 / n; else print "-" }') |"
    done
}

# ---------------------------------------------------------------------------------------------------------------

install_missing
require_jdk21 run.sh
mkdir -p "$work"
build_jars
install_portkey
node "$here/bodies.mjs" "$work/bodies" "$FIXED_MODEL" "$STREAM_MODEL"
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
start_servers
log "servers up: upstream $UPSTREAM_PORT, nginx $NGINX_PORT, gateway $GATEWAY_PORT, portkey $PORTKEY_PORT," \
    "engine $ENGINE_PORT"
if $serve; then
    log "serving until Ctrl-C; gateway pid $gateway_pid, portkey pid $portkey_pid"
    wait "$gateway_pid"
    exit 0
fi
log "warming up the gateway and Portkey ($jit_requests requests per body size, fewer for 256 KiB and Portkey)"
warm_up_jits
measure_chat
measure_retrieve
measure_stream
measure_half_saturation
mkdir -p "$(dirname "$out")"
report | tee "$out"
log "results written to $out"
