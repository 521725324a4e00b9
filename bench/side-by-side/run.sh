#!/usr/bin/env bash
# Gateway cost, side by side: one fixed-answer upstream, measured in the same run
#   direct      client -> upstream
#   nginx       client -> nginx (bodies kept in memory, keep-alive upstream pool of 64, 1 worker) -> upstream
#   bare        client -> naive Helidon SE pass-through (PassThroughProxy naive: the gateway's WebServer and
#               WebClient settings, body read with as(byte[].class), a fresh 16 KiB copy buffer per answer) -> upstream
#   tuned       client -> tuned Helidon SE pass-through (PassThroughProxy tuned: body read into an array of its
#               length, sent through the client's stream, a reused copy buffer, no client write buffer) -> upstream
#   gateway     client -> grid gateway (one site; the fixed upstream and the SSE engine as two clusters) -> upstream;
#               the model one cluster serves, so the body is validated but not keyed (keys could change nothing)
#   keyed       the same gateway, for a model two clusters serve (the upstream's nginx on a second port): keyed,
#               affinity decided, keys confirmed on every answer (chat loads only)
#   portkey     client -> Portkey AI gateway 1.15.2 (with --portkey only)
# for Chat Completions bodies of 1, 32 and 256 KiB at 16 and 64 connections (h2load, closed loop, interleaved
# rounds, median of 3), a Responses retrieve, a streamed answer of 50 events (sse-timing.mjs), and the added p99 at
# half of the gateway's saturation rate (h2load --rps). Every row: req/s, p50/p99, CPU µs per request of the proxy
# process (/proc), and for the JVM rows bytes allocated per request (GC log + jstat); the load tool's own CPU share.
#
#   bench/side-by-side/run.sh [--quick] [--portkey] [--jfr] [--serve] [--out FILE]
#
#   --quick    1 round of 3 s windows, 1 and 32 KiB at 16 connections, 5 s JVM warm-up (about 2 minutes)
#   --portkey  add the Portkey row (installs it into work/portkey; about 4 more minutes)
#   --jfr      record the gateway with JFR into work/gateway.jfr (profile: see docs/performance-notes.md)
#   --serve    start the servers, print their ports and wait (for profiling by hand); Ctrl-C stops them
#   --out      the results file (default: bench/side-by-side/work/results.md); the table also goes to stdout, and
#              plot.mjs draws throughput and p99 against body size beside it (.svg)
#
# The full run takes about 12 minutes: 3 interleaved rounds (every target once per round, in turn) of 5 s windows
# after 1 s of warm-up each, every Helidon JVM warmed 15 s first (C2 needs more than 5 s on 2 cores).
#
# Installs what it uses on a Debian machine (nginx, h2load, node, maven, curl; Portkey into work/portkey with
# --portkey) and builds the gateway jars when missing or older than the sources; PassThroughProxy is compiled with
# javac against the gateway's libs. Listens on 127.0.0.1:18100-18108 only (Portkey has no bind option and listens
# on *:18104; it is sent loopback traffic only). Environment: GATEWAY_JAVA_OPTS adds JVM options to the gateway and
# both pass-through proxies, GATEWAY_JAR runs another build of the gateway (for before/after comparisons; its libs/
# must sit beside it), CONCURRENCY (default "16 64") sets the closed-loop connection counts, ROUNDS (default 3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../../bin/lib/common.sh"
# shellcheck source=bench/side-by-side/tools.sh
. "$here/tools.sh"
# shellcheck source=bench/side-by-side/measure.sh
. "$here/measure.sh"
repo=$GRID_REPO
work=$here/work
quick=false
portkey=false
jfr=false
serve=false
out=$work/results.md
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) quick=true ;;
        --portkey) portkey=true ;;
        --jfr) jfr=true ;;
        --serve) serve=true ;;
        --out) out=$2; shift ;;
        -h | --help) sed -n '2,34p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

readonly UPSTREAM_PORT=18100 NGINX_PORT=18101 GATEWAY_PORT=18102 ADMIN_PORT=18103 PORTKEY_PORT=18104
readonly ENGINE_PORT=18105 BARE_PORT=18106 TUNED_PORT=18107 UPSTREAM_B_PORT=18108
# KEYED_MODEL has FIXED_MODEL's length, so its bodies keep their exact sizes.
readonly FIXED_MODEL=bench-model STREAM_MODEL=bench-stream KEYED_MODEL=bench-keyed
readonly STREAM_EVENTS=50 STREAM_GAP_MS=10
gateway_jar=${GATEWAY_JAR:-$repo/app/target/grid-gateway.jar}
if $quick; then
    jvm_warm=5 warm=1 dur=3 rounds=${ROUNDS:-1} stream_requests=64 rate_dur=3 portkey_warm=200
    sizes=(1k 32k)
    read -r -a concurrencies <<<"${CONCURRENCY:-16}"
else
    jvm_warm=15 warm=1 dur=5 rounds=${ROUNDS:-3} stream_requests=400 rate_dur=8 portkey_warm=2000
    sizes=(1k 32k 256k)
    read -r -a concurrencies <<<"${CONCURRENCY:-16 64}"
fi
concurrency=${concurrencies[0]}
targets=(direct nginx bare tuned gateway keyed)
stream_targets=(direct nginx gateway)
if $portkey; then
    targets+=(portkey)
    stream_targets+=(portkey)
fi
jvm_targets=(bare tuned gateway)

log() { printf '%s run.sh: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------------------------------------------------------
# Tools: install what is missing (Debian), find a JDK 21+, build the jars, install Portkey.

# sudo_if_needed, install_missing and nginx_bin: tools.sh, shared with ab.sh.

build_jars() {
    build_if_stale run.sh app/target/grid-gateway.jar engine-sim/target/engine-simulator.jar \
        -- routing-core/src/main app/src/main engine-sim/src/main -- -DskipTests package
    compile_pass_through "$repo" "$work/pass-through"
}

install_portkey() {
    $portkey || return 0
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


write_upstream_conf() {
    local dir=$work/nginx-upstream
    mkdir -p "$dir/logs" "$dir/tmp"
    # The chat answer and the stored response are fixed; nginx reads and discards the request body.
    { nginx_conf_head "$dir"; cat <<EOF
  client_max_body_size 64m;
  keepalive_requests 1000000;
  default_type application/json;
  server {
    listen 127.0.0.1:$UPSTREAM_PORT;
    listen 127.0.0.1:$UPSTREAM_B_PORT;
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
    } >"$dir/nginx.conf"
}

write_proxy_conf() {
    local dir=$work/nginx-proxy
    mkdir -p "$dir/logs" "$dir/tmp"
    { nginx_conf_head "$dir"; cat <<EOF
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
    } >"$dir/nginx.conf"
}

write_gateway_conf() {
    cat >"$work/gateway.yaml" <<EOF
# One site; the fixed upstream and the streaming engine are two clusters that serve different models, so each
# request for them has exactly one candidate (and is not keyed); the keyed model has two, fixed and fixed-b (the
# same nginx on a second port), so its requests are keyed and decided by affinity.
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
        models: [$FIXED_MODEL, $KEYED_MODEL]
      - name: fixed-b
        url: http://127.0.0.1:$UPSTREAM_B_PORT
        models: [$KEYED_MODEL]
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
    for port in "$UPSTREAM_PORT" "$NGINX_PORT" "$GATEWAY_PORT" "$ADMIN_PORT" "$PORTKEY_PORT" "$ENGINE_PORT" \
        "$BARE_PORT" "$TUNED_PORT" "$UPSTREAM_B_PORT"; do
        if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "run.sh: port $port is in use (another run?); ports $UPSTREAM_PORT-$UPSTREAM_B_PORT must be free" >&2
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
    # Word splitting is wanted: GATEWAY_JAVA_OPTS holds several options. The same options for the three JVMs.
    # shellcheck disable=SC2206
    jvm=(${GATEWAY_JAVA_OPTS:-})
    local -a gateway_jvm=("${jvm[@]}" "-Xlog:gc:file=$work/gc-gateway.log::filecount=0")
    if $jfr; then gateway_jvm+=("-XX:StartFlightRecording=filename=$work/gateway.jfr,settings=profile,dumponexit=true"); fi
    "$jdk/bin/java" "${gateway_jvm[@]}" -jar "$gateway_jar" --config "$work/gateway.yaml" \
        >"$work/gateway.log" 2>&1 &
    gateway_pid=$!
    pids+=("$gateway_pid")
    local mode port
    for mode in bare tuned; do
        port=$BARE_PORT
        [[ $mode == tuned ]] && port=$TUNED_PORT
        "$jdk/bin/java" "${jvm[@]}" "-Xlog:gc:file=$work/gc-$mode.log::filecount=0" \
            -cp "$work/pass-through:$repo/app/target/libs/*" grid.gateway.app.bench.PassThroughProxy "$port" \
            "http://127.0.0.1:$UPSTREAM_PORT" "$([[ $mode == bare ]] && echo naive || echo tuned)" \
            >"$work/$mode.log" 2>&1 &
        pids+=($!)
        if [[ $mode == bare ]]; then bare_pid=$!; else tuned_pid=$!; fi
    done
    if $portkey; then
        (cd "$work/portkey" && NODE_ENV=production exec node node_modules/@portkey-ai/gateway/build/start-server.js \
            --headless --port="$PORTKEY_PORT" >"$work/portkey.log" 2>&1) &
        pids+=($!)
    fi
    wait_for "http://127.0.0.1:$UPSTREAM_PORT/metrics" "the upstream"
    wait_for "http://127.0.0.1:$NGINX_PORT/metrics" "nginx"
    wait_for "http://127.0.0.1:$ENGINE_PORT/metrics" "the engine simulator"
    wait_for "http://127.0.0.1:$ADMIN_PORT/health/live" "the gateway"
    wait_for "http://127.0.0.1:$BARE_PORT/metrics" "the naive pass-through"
    wait_for "http://127.0.0.1:$TUNED_PORT/metrics" "the tuned pass-through"
    if $portkey; then
        wait_for "http://127.0.0.1:$PORTKEY_PORT/" "portkey"
        # Portkey's start script may fork; count the node process that listens.
        portkey_pid=$(pgrep -f "start-server.js --headless --port=$PORTKEY_PORT" | head -n 1)
    fi
    upstream_workers=$(nginx_workers "$work/nginx-upstream/nginx.pid")
    proxy_workers=$(nginx_workers "$work/nginx-proxy/nginx.pid")
}

# ---------------------------------------------------------------------------------------------------------------
# Measuring.

ticks_per_second=$(getconf CLK_TCK)
portkey_pid=""

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
        bare) echo "$bare_pid" ;;
        tuned) echo "$tuned_pid" ;;
        gateway | keyed) echo "$gateway_pid" ;;
        portkey) echo "$portkey_pid" ;;
    esac
}

url_for() { # target, path on the upstream
    local target=$1 path=$2
    case $target in
        direct) echo "http://127.0.0.1:$UPSTREAM_PORT$path" ;;
        nginx) echo "http://127.0.0.1:$NGINX_PORT$path" ;;
        bare) echo "http://127.0.0.1:$BARE_PORT$path" ;;
        tuned) echo "http://127.0.0.1:$TUNED_PORT$path" ;;
        gateway | keyed) echo "http://127.0.0.1:$GATEWAY_PORT$path" ;;
        portkey) echo "http://127.0.0.1:$PORTKEY_PORT$path" ;;
    esac
}

is_jvm() { [[ $1 == bare || $1 == tuned || $1 == gateway || $1 == keyed ]]; }

gc_log() { if [[ $1 == keyed ]]; then echo "$work/gc-gateway.log"; else echo "$work/gc-$1.log"; fi; }

body_for() { # target size: the chat body file (the keyed row sends the keyed model)
    if [[ $1 == keyed ]]; then echo "$work/bodies/keyed-$2.json"; else echo "$work/bodies/chat-$2.json"; fi
}

jvm_pid() { proxy_pids "$1" chat; }

heap_used_kb() { # S0U + S1U + EU + OU of a JVM, in KiB
    "$jdk/bin/jstat" -gc "$1" | tail -n 1 | awk '{ printf "%.0f", $3 + $4 + $6 + $8 }'
}

# KiB allocated by a JVM between two points: the young collections logged after line FROM of its GC log (each one's
# "before" minus the previous one's "after"), plus the heap used at both ends (jstat).
#   allocated_kb GC_LOG FROM USED_BEFORE_KB USED_AFTER_KB
allocated_kb() {
    tail -n +"$(($2 + 1))" "$1" | { grep 'Pause Young' || true; } | sed -n 's/.* \([0-9]*\)M->\([0-9]*\)M.*/\1 \2/p' |
        awk -v u0="$3" -v u1="$4" 'NR == 1 { s = $1 * 1024 - u0 } NR > 1 { s += ($1 - prev) * 1024 } { prev = $2 }
            END { if (NR == 0) print u1 - u0; else print s + u1 - prev * 1024 }'
}

portkey_headers() { # h2load -H arguments routing Portkey to the fixed upstream
    printf '%s\n' -H "x-portkey-provider: openai" -H "x-portkey-custom-host: http://127.0.0.1:$UPSTREAM_PORT/v1"
}

# Runs h2load and prints "rps p50_ms p99_ms ok failed cpu_us_per_request alloc_kb_per_request tool_cpu_percent"
# (alloc "-" for a process that is not a JVM; tool = h2load's own user+system CPU over the window, in % of one core).
#   h2load_run TARGET KIND SECONDS RATE URL [extra h2load args...]    RATE 0 = closed loop; $concurrency connections
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
    local logfile=$work/h2load.tsv before after gc_from=0 used_before=0 used_after=0
    rm -f "$logfile"
    if is_jvm "$target"; then
        gc_from=$(wc -l <"$(gc_log "$target")")
        used_before=$(heap_used_kb "${pids_to_watch[0]}")
    fi
    before=$(cpu_ticks "${pids_to_watch[@]}")
    local TIMEFORMAT='%U %S'
    { time h2load "${args[@]}" --log-file="$logfile" "$url" >"$work/h2load.out" 2>&1 || true; } 2>"$work/h2load.time"
    after=$(cpu_ticks "${pids_to_watch[@]}")
    local alloc=-
    if is_jvm "$target"; then
        used_after=$(heap_used_kb "${pids_to_watch[0]}")
        alloc=$(allocated_kb "$(gc_log "$target")" "$gc_from" "$used_before" "$used_after")
    fi
    local ok failed rps tool
    tool=$(awk -v s="$seconds" '{ printf "%.0f", ($1 + $2) / s * 100 }' "$work/h2load.time")
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.out")
    ok=$(awk -F'\t' '$2 >= 200 && $2 < 300 { n++ } END { print n + 0 }' "$logfile" 2>/dev/null || echo 0)
    failed=$(awk -F'\t' '!($2 >= 200 && $2 < 300) { n++ } END { print n + 0 }' "$logfile" 2>/dev/null || echo 0)
    if [[ -z "$rps" || $ok -eq 0 ]]; then
        echo "0 - - 0 $failed - - $tool"
        return
    fi
    # h2load's own req/s counts failures too: use successes over the measured duration.
    rps=$(awk -v n="$ok" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    local p50 p99 cpu
    read -r p50 p99 < <(awk -F'\t' '$2 >= 200 && $2 < 300 { print $3 }' "$logfile" | sort -n |
        awk '{ v[NR] = $1 } END { i50 = int(NR * 0.50 + 0.999); i99 = int(NR * 0.99 + 0.999);
            printf "%.2f %.2f\n", v[i50] / 1000, v[i99] / 1000 }')
    cpu=$(awk -v t=$((after - before)) -v hz="$ticks_per_second" -v n="$ok" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
    if [[ $alloc != - ]]; then
        alloc=$(awk -v k="$alloc" -v n="$ok" 'BEGIN { printf "%.1f", k / n }')
    fi
    echo "$rps $p50 $p99 $ok $failed $cpu $alloc $tool"
}

# The median, field by field, of the result lines (one per round) in $1 (newline-separated); "-" stays "-" when
# any round has it.
median_line() {
    awk '{ for (i = 1; i <= NF; i++) v[i, NR] = $i; if (NF > nf) nf = NF } END {
        for (i = 1; i <= nf; i++) {
            n = 0; dash = 0
            for (r = 1; r <= NR; r++) { if (v[i, r] == "-") dash = 1; else a[++n] = v[i, r] + 0 }
            if (dash || n == 0) { out = out (i > 1 ? " " : "") "-"; continue }
            for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
            m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            out = out (i > 1 ? " " : "") m
        }
        print out }' <<<"$1"
}

declare -A result rounds_of

add_round() { # key line: appends one round's line
    local key=$1 line=$2
    rounds_of[$key]+="${rounds_of[$key]:+$'\n'}$line"
    result[$key]=$(median_line "${rounds_of[$key]}")
}

# The JVMs compile while they warm up, and that CPU would land on the first measured rows: every Helidon JVM gets
# $jvm_warm seconds of each body size first, unmeasured (C2 needs more than 5 s on 2 cores); Portkey a count.
warm_up_jits() {
    local size target per_size
    per_size=$(((jvm_warm + ${#sizes[@]} - 1) / ${#sizes[@]}))
    for target in "${jvm_targets[@]}"; do
        for size in "${sizes[@]}"; do
            h2load --h1 -t 1 -c "$concurrency" -D "$per_size" -H "authorization: Bearer sk-bench" \
                -d "$work/bodies/chat-$size.json" -H "content-type: application/json" \
                "$(url_for "$target" /v1/chat/completions)" >/dev/null 2>&1 || true
            if [[ $target == gateway ]]; then
                h2load --h1 -t 1 -c "$concurrency" -D "$per_size" -H "authorization: Bearer sk-bench" \
                    -d "$(body_for keyed "$size")" -H "content-type: application/json" \
                    "$(url_for keyed /v1/chat/completions)" >/dev/null 2>&1 || true
            fi
        done
        h2load --h1 -t 1 -c "$concurrency" -D 2 -H "authorization: Bearer sk-bench" \
            "$(url_for "$target" "$(retrieve_path "$target")")" >/dev/null 2>&1 || true
    done
    if $portkey; then
        for size in "${sizes[@]}"; do
            h2load --h1 -t 1 -c "$concurrency" -n "$portkey_warm" -H "authorization: Bearer sk-bench" \
                -H "x-portkey-provider: openai" -H "x-portkey-custom-host: http://127.0.0.1:$UPSTREAM_PORT/v1" \
                -d "$work/bodies/chat-$size.json" -H "content-type: application/json" \
                "$(url_for portkey /v1/chat/completions)" >/dev/null 2>&1 || true
        done
    fi
}

# Interleaved rounds: in each round every target is measured once per load, in turn, so that a slow minute of a
# shared machine lands on every target alike; the report gives each figure's median over the rounds.
measure_chat() {
    local round size target url c
    for ((round = 1; round <= rounds; round++)); do
        for size in "${sizes[@]}"; do
            for c in "${concurrencies[@]}"; do
                for target in "${targets[@]}"; do
                    url=$(url_for "$target" /v1/chat/completions)
                    local -a body=(-d "$(body_for "$target" "$size")" -H "content-type: application/json")
                    concurrency=$c h2load_run "$target" chat "$warm" 0 "$url" "${body[@]}" >/dev/null
                    local line
                    line=$(concurrency=$c h2load_run "$target" chat "$dur" 0 "$url" "${body[@]}")
                    add_round "chat-$size-c$c,$target" "$line"
                    log "round $round chat $size c$c $target: $line"
                done
            done
        done
    done
}

tagged_id() { # a tagged stored id, created through the gateway
    curl -s -H 'content-type: application/json' -H 'authorization: Bearer sk-bench' \
        --data-binary "@$work/bodies/responses-create.json" "http://127.0.0.1:$GATEWAY_PORT/v1/responses" |
        sed -n 's/^{"id":"\(resp_[^"]*\)".*/\1/p'
}

retrieve_path() { # the retrieve path for a target: through the gateway a tagged id (pinned), else the engine's own
    if [[ $1 == gateway ]]; then echo "/v1/responses/$tagged"; else echo /v1/responses/resp_bench0001; fi
}

measure_retrieve() {
    local round target url
    for ((round = 1; round <= rounds; round++)); do
        for target in "${targets[@]}"; do
            [[ $target != keyed ]] || continue
            url=$(url_for "$target" "$(retrieve_path "$target")")
            h2load_run "$target" retrieve "$warm" 0 "$url" >/dev/null
            local line
            line=$(h2load_run "$target" retrieve "$dur" 0 "$url")
            add_round "retrieve-c$concurrency,$target" "$line"
            log "round $round retrieve $target: $line"
        done
    done
}

measure_half_saturation() {
    local size target url rate
    for size in 1k 32k; do
        rate=$(awk -v r="${result[chat-$size-c$concurrency,gateway]%% *}" 'BEGIN { printf "%d", r / 2 }')
        [[ $rate -gt 0 ]] || continue
        result[half-$size,rate]=$rate
        for target in "${targets[@]}"; do
            [[ $target != keyed ]] || continue
            url=$(url_for "$target" /v1/chat/completions)
            result[half-$size,$target]=$(h2load_run "$target" chat "$rate_dur" "$rate" "$url" \
                -d "$work/bodies/chat-$size.json" -H "content-type: application/json")
            log "half saturation $size ($rate/s) $target: ${result[half-$size,$target]}"
        done
    done
}

measure_stream() {
    local target url headers requests before after
    for target in "${stream_targets[@]}"; do
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

report_loads() { # the load keys in report order
    local size c
    for size in "${sizes[@]}"; do
        for c in "${concurrencies[@]}"; do echo "chat-$size-c$c"; done
    done
    echo "retrieve-c$concurrency"
}

report() {
    local target line nginx bare tuned rps p50 p99 cpu row
    echo "## Side-by-side run $(date -u +%Y-%m-%dT%H:%M:%SZ)$($quick && echo ' (--quick)')"
    echo
    echo "Machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), load average" \
        "before the run $load_before, after it $(cut -d ' ' -f 1-3 /proc/loadavg); $(nginx_bin)" \
        "$("$(nginx_bin)" -v 2>&1 | sed 's/.*\///'), h2load" \
        "$(h2load --version 2>/dev/null | sed -n 's/.*nghttp2\/\([0-9.]*\).*/\1/p' | head -n 1)," \
        "node $(node --version), $("$jdk/bin/java" -version 2>&1 | head -n 1). Closed loop: h2load --h1 -t 1," \
        "${dur}s windows after ${warm}s of warm-up, $rounds interleaved round(s), median per figure; every Helidon JVM" \
        "warmed ${jvm_warm}s first. JVM options: ${GATEWAY_JAVA_OPTS:-defaults}."
    echo
    echo "Gateway against its peers (median req/s ratios in the same run; CPU and allocation per request):"
    echo
    echo "| load | gateway req/s | ÷ bare Helidon | ÷ tuned Helidon | ÷ nginx | gateway CPU µs/req | bare CPU µs/req | gateway KiB alloc/req | tuned KiB alloc/req | keyed ÷ bare | keyed CPU µs/req | keyed KiB alloc/req |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for row in $(report_loads); do
        line=${result[$row,gateway]:-}
        [[ -n "$line" ]] || continue
        bare=${result[$row,bare]:-}
        tuned=${result[$row,tuned]:-}
        nginx=${result[$row,nginx]:-}
        echo "| $row | $(field "$line" 1) | $(ratio "$(field "$line" 1)" "$(field "$bare" 1)")" \
            "| $(ratio "$(field "$line" 1)" "$(field "$tuned" 1)") | $(ratio "$(field "$line" 1)" "$(field "$nginx" 1)")" \
            "| $(field "$line" 6) | $(field "$bare" 6) | $(field "$line" 7) | $(field "$tuned" 7)" \
            "| $(ratio "$(field "${result[$row,keyed]:--}" 1)" "$(field "$bare" 1)") | $(field "${result[$row,keyed]:--}" 6)" \
            "| $(field "${result[$row,keyed]:--}" 7) |"
    done
    echo
    echo "Every row (p50/p99 at the client; CPU of the proxy process from /proc; allocation of the JVM rows from its GC" \
        "log; load tool = h2load's own CPU over the window, in % of one of the $(nproc) cores):"
    echo
    echo "| load | path | req/s | ×nginx | ×bare | p50 ms | p99 ms | p99 ×nginx | CPU µs/req | CPU ×nginx | KiB alloc/req | load tool CPU % | failed |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for row in $(report_loads); do
        nginx=${result[$row,nginx]:-}
        bare=${result[$row,bare]:-}
        [[ -n "$nginx" ]] || continue
        for target in "${targets[@]}"; do
            line=${result[$row,$target]:-}
            [[ -n "$line" ]] || continue
            rps=$(field "$line" 1)
            p99=$(field "$line" 3)
            cpu=$(field "$line" 6)
            echo "| $row | $target | $rps | $(ratio "$rps" "$(field "$nginx" 1)") | $(ratio "$rps" "$(field "$bare" 1)")" \
                "| $(field "$line" 2) | $p99 | $(ratio "$p99" "$(field "$nginx" 3)")" \
                "| $cpu | $(ratio "$cpu" "$(field "$nginx" 6)") | $(field "$line" 7) | $(field "$line" 8) | $(field "$line" 5) |"
        done
    done
    echo
    echo "Added latency at half of the gateway's saturation rate (h2load --rps, ${rate_dur}s, $concurrency connections;" \
        "added = p99 − direct p99):"
    echo
    echo "| body | rate/s | path | achieved req/s | p50 ms | p99 ms | added p99 ms | CPU µs/req |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|"
    local size direct
    for size in 1k 32k; do
        direct=${result[half-$size,direct]:-}
        [[ -n "$direct" ]] || continue
        for target in "${targets[@]}"; do
            [[ $target != keyed ]] || continue
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
    for target in "${stream_targets[@]}"; do
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

install_missing nginx h2load node npm mvn curl
require_jdk21 run.sh
mkdir -p "$work"
build_jars
install_portkey
node "$here/bodies.mjs" "$work/bodies" "$FIXED_MODEL" "$STREAM_MODEL"
for size in "${sizes[@]}"; do
    sed "s/\"model\":\"$FIXED_MODEL\"/\"model\":\"$KEYED_MODEL\"/" "$work/bodies/chat-$size.json" >"$work/bodies/keyed-$size.json"
done
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
start_servers
log "servers up: upstream $UPSTREAM_PORT, nginx $NGINX_PORT, gateway $GATEWAY_PORT, bare $BARE_PORT," \
    "tuned $TUNED_PORT, engine $ENGINE_PORT$($portkey && echo ", portkey $PORTKEY_PORT")"
tagged=$(tagged_id)
if [[ -z "$tagged" ]]; then
    echo "run.sh: the gateway did not answer a Responses create with a tagged id" >&2
    exit 1
fi
if $serve; then
    log "serving until Ctrl-C; gateway pid $gateway_pid, bare pid $bare_pid, tuned pid $tuned_pid"
    wait "$gateway_pid"
    exit 0
fi
log "warming up the JVMs (${jvm_warm}s each)$($portkey && echo " and Portkey ($portkey_warm requests per body size)")"
warm_up_jits
measure_chat
measure_retrieve
measure_stream
measure_half_saturation
mkdir -p "$(dirname "$out")"
report | tee "$out"
log "results written to $out"
node "$here/plot.mjs" "$out" "${out%.md}.svg" >/dev/null
log "plot (throughput and p99 against body size): ${out%.md}.svg"
