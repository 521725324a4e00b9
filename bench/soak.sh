#!/usr/bin/env bash
# The soak (docs/failure-behaviour.md "Soak"): the packaged gateway in front of three simulated engines at two
# sites, all on 127.0.0.1, mixed traffic with injected faults for MINUTES (default 10), then checks that every request
# got exactly one answer and that heap after GC, threads, file descriptors and upstream connections are back at
# their baseline, and that SIGTERM drains the streams in flight. Exits 0 when every check passed, 1 otherwise.
#
#   bench/soak.sh [MINUTES] [extra SoakRun options: --clients N --seed N]
#
# Stops by itself; every process it starts is stopped on exit (also on Ctrl-C). Builds what it needs (Maven and a
# JDK 21+, found under JAVA_HOME or /usr/lib/jvm; needs Linux /proc).
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
shift || true
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || [[ "$minutes" -lt 1 || "$minutes" -gt 240 ]]; then
    echo "soak: MINUTES must be a whole number from 1 to 240" >&2
    exit 2
fi

find_jdk21() {
    local home v best="" best_v=0
    for home in ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/*/; do
        home=${home%/}
        [[ -x "$home/bin/java" && -x "$home/bin/jcmd" ]] || continue
        v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release" 2>/dev/null || true)
        if [[ -n "$v" && "$v" -ge 21 && "$v" -gt "$best_v" ]]; then best=$home; best_v=$v; fi
    done
    echo "$best"
}

jdk=$(find_jdk21)
if [[ -z "$jdk" ]]; then
    echo "soak: needs a JDK 21 or newer with jcmd (none in JAVA_HOME or /usr/lib/jvm)" >&2
    exit 1
fi
gateway_jar=app/target/grid-gateway.jar
engine_jar=conformance/target/engine-simulator.jar
if [[ ! -f "$gateway_jar" || ! -f "$engine_jar" \
        || -n "$(find routing-core/src app/src conformance/src -newer "$engine_jar" -print -quit)" ]]; then
    echo "soak: building (first use or sources changed) ..."
    JAVA_HOME=$jdk mvn -B -q --no-transfer-progress -DskipTests package
fi

# SoakRun stops the processes it started; this trap covers a soak that is itself killed.
"$jdk/bin/java" -cp "$engine_jar:conformance/target/libs/*" grid.gateway.conformance.soak.SoakRun \
    --seconds $((minutes * 60)) --jar "$gateway_jar" "$@" &
soak=$!
trap 'kill -TERM "$soak" 2>/dev/null || true; wait "$soak" 2>/dev/null || true' INT TERM
wait "$soak"
