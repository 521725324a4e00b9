# shellcheck shell=bash
# Sourced (never run) by the scripts under bin/, bench/ and .ci/: one way to find a JDK 21+ and one way to build
# what is stale. Source it with its path from the script, e.g.
#   . "$(dirname "$0")/lib/common.sh"            (bin/*)
#   . "$(dirname "$0")/../bin/lib/common.sh"     (bench/*, .ci/run)
#
# JDK choice, the same everywhere: JAVA_HOME when it is a JDK 21 or newer, else the newest JDK 21+ under
# /usr/lib/jvm (links such as java-1.17.0-openjdk-amd64 are skipped: they name a JDK listed anyway), else
# nothing; require_jdk21 then fails with a clear message, or, with --install, first tries apt-get as CI does.

# Prints the feature version (17, 21, 25, ...) of the JDK at $1, or nothing when $1 is no JDK (needs java and javac).
jdk_feature_version() {
    local home=$1 version=""
    [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] || return 0
    if [[ -f "$home/release" ]]; then
        version=$(sed -n 's/^JAVA_VERSION="\([^"]*\)"/\1/p' "$home/release")
    fi
    if [[ -z "$version" ]]; then
        version=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)
    fi
    version=${version#1.}
    echo "${version%%[.+-]*}"
}

# Whether the JDK at $1 is 21+ and has every tool named after it in its bin/ (for example jcmd).
jdk21_with_tools() {
    local home=$1 v tool
    shift
    v=$(jdk_feature_version "$home")
    [[ -n "$v" && "$v" -ge 21 ]] || return 1
    for tool in "$@"; do
        [[ -x "$home/bin/$tool" ]] || return 1
    done
}

# Prints the home of a JDK 21+ with the tools named in the arguments: JAVA_HOME first, then the newest under
# /usr/lib/jvm; prints nothing when there is none.
find_jdk21() {
    local home v best="" best_v=0
    if [[ -n "${JAVA_HOME:-}" ]] && jdk21_with_tools "${JAVA_HOME%/}" "$@"; then
        echo "${JAVA_HOME%/}"
        return 0
    fi
    for home in /usr/lib/jvm/*/; do
        home=${home%/}
        [[ -L "$home" ]] && continue
        jdk21_with_tools "$home" "$@" || continue
        v=$(jdk_feature_version "$home")
        if [[ "$v" -gt "$best_v" ]]; then
            best=$home
            best_v=$v
        fi
    done
    echo "$best"
}

# Installs a JDK 21+ with apt-get (the newest that apt-cache knows, 25 then 21); quiet when apt offers none.
install_jdk21() {
    local name=$1 pkg
    echo "$name: no JDK 21+ in JAVA_HOME (${JAVA_HOME:-unset}) or /usr/lib/jvm; trying apt-get." >&2
    command -v apt-get >/dev/null 2>&1 || return 0
    apt-get update -qq || return 0
    for pkg in openjdk-25-jdk-headless openjdk-21-jdk-headless; do
        if apt-cache show "$pkg" >/dev/null 2>&1; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg"
            return 0
        fi
    done
}

# require_jdk21 NAME [--install] [TOOL...]: sets jdk to the chosen JDK's home, or exits 1 with a message that says
# where it looked. NAME prefixes the messages (the script's name); --install tries apt-get before giving up.
require_jdk21() {
    local name=$1 install=false
    shift
    if [[ ${1:-} == --install ]]; then
        install=true
        shift
    fi
    jdk=$(find_jdk21 "$@")
    if [[ -z "$jdk" && $install == true ]]; then
        install_jdk21 "$name"
        jdk=$(find_jdk21 "$@")
    fi
    if [[ -z "$jdk" ]]; then
        local needs="a JDK 21 or newer"
        [[ $# -gt 0 ]] && needs+=" with $*"
        echo "$name: needs $needs (Helidon 4.5, --release 21); none in JAVA_HOME (${JAVA_HOME:-unset}) or" \
            "/usr/lib/jvm. Install one under /usr/lib/jvm or set JAVA_HOME to it." >&2
        exit 1
    fi
}

# build_if_stale NAME TARGET... -- SOURCE... -- MAVEN_ARGUMENT...
# Runs Maven (quiet, batch) on the JDK in $jdk when a TARGET is missing or a file under a SOURCE is newer than one,
# from the repository root, then marks the TARGETs as fresh (Maven leaves an unchanged jar or file as it was, which
# would otherwise rebuild on every run). Paths are relative to the repository root.
build_if_stale() {
    local name=$1 target stale=false
    local -a targets=() sources=()
    shift
    while [[ $# -gt 0 && $1 != -- ]]; do targets+=("$1"); shift; done
    shift
    while [[ $# -gt 0 && $1 != -- ]]; do sources+=("$1"); shift; done
    shift
    (
        cd "$GRID_REPO" || exit 1
        for target in "${targets[@]}"; do
            if [[ ! -e "$target" ]] || [[ -n "$(find "${sources[@]}" -newer "$target" -print -quit)" ]]; then
                stale=true
            fi
        done
        [[ $stale == true ]] || exit 0
        if ! command -v mvn >/dev/null 2>&1; then
            echo "$name: mvn not found; install Maven 3.8+ (apt-get install maven)." >&2
            exit 1
        fi
        echo "$name: building (first use or sources changed): mvn $*" >&2
        JAVA_HOME=$jdk PATH="$jdk/bin:$PATH" mvn -B -q --no-transfer-progress "$@"
        touch "${targets[@]}"
    )
}

# The repository root, whichever script sourced this file and from wherever it was called.
GRID_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
