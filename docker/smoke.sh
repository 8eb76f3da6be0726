#!/usr/bin/env bash
# Smoke test of a running server with the subgraph-export plugin (a container from docker/compose.yaml, or any
# server): exports the same subgraph in every format and decodes each one with the client jar, which checks the
# Content-Type, that every stream is complete, and that all formats carry the same nodes, relationships and values.
#
# Usage: docker/smoke.sh [-u user:password] <base-url> <root-element-id>
#        docker/smoke.sh [-u user:password] <base-url> <param>=<value>...
#        docker/smoke.sh -h|--help     this text (nothing is run)
# e.g.   docker/smoke.sh http://localhost:7474 '4:5b0c…:0'
#        docker/smoke.sh -u neo4j:secret123 http://localhost:7474 label=Object key=id value=1 maxDepth=3
# The parameters are the traverse endpoint's (root, label, key, value, expand, attach, maxDepth, limit, db);
# they are URL-encoded here.
#
# Needs: curl, and a JDK 17+: $JAVA_HOME if it is 17+, else the newest JDK under /usr/lib/jvm, else java on the PATH
# (a JDK, not a JRE: its javac next to its java). Self-contained: it needs neither Maven nor the rest of this
# repository once the client jar is given. Nothing is compiled: SmokeDecode.java runs as a single source file against
#   CLIENT_JAR        default: the newest client/target/subgraph-export-client-*.jar of this repository (build it with
#                     scripts/test or mvn -DskipTests package)
# Exit status 0 when every check passes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
formats=(json bson kryo kryo-lzf)

# The header comment from "Usage:" to the end of the examples; --help prints all of it.
usage() { sed -n '/^# Usage:/,/^# they are/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
help() { sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }
die() { echo "smoke: $*" >&2; exit 1; }

for a in "$@"; do case $a in -h|--help) help; exit 0;; esac; done
auth=()
while getopts "u:h" opt; do
    case "$opt" in
        u) auth=(--user "$OPTARG") ;;
        h) help; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { usage >&2; exit 2; }
base="${1%/}"
shift
params=()
if [ $# -eq 1 ] && [[ "$1" != *=* ]]; then
    params=(--data-urlencode "root=$1")
else
    for p in "$@"; do
        [[ "$p" == *=* ]] || die "parameter '$p' is not name=value"
        params+=(--data-urlencode "$p")
    done
fi

command -v curl >/dev/null || die "curl is not on the PATH"
# The feature version of the java binary $1 (17, 21...; 1 for 1.8), or nothing.
java_version() {
    local v
    v="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1)"
    echo "${v%%.*}"
}
# The JDK home of the java binary $1, if javac is next to it (the single-file launcher needs the compiler).
jdk_of() {
    local bin
    bin="$(dirname "$(readlink -f "$1" 2>/dev/null || echo "$1")")"
    [ -x "$bin/javac" ] && dirname "$bin"
}
# Sets java and java_v: $JAVA_HOME if it is a JDK 17+, else the newest JDK under /usr/lib/jvm, else java on the PATH.
pick_java() {
    local c v best="" best_v=0 seen=()
    if [ -n "${JAVA_HOME:-}" ]; then
        v="$(java_version "$JAVA_HOME/bin/java")"
        if [ "${v:-0}" -ge 17 ] && jdk_of "$JAVA_HOME/bin/java" >/dev/null; then java="$JAVA_HOME/bin/java"; java_v="$v"; return; fi
        seen+=("\$JAVA_HOME=$JAVA_HOME: Java ${v:-?}$(jdk_of "$JAVA_HOME/bin/java" >/dev/null || echo ", no javac")")
    fi
    for c in /usr/lib/jvm/*/; do
        c="${c%/}"
        [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
        v="$(java_version "$c/bin/java")"
        seen+=("$c: Java ${v:-?}")
        if [ "${v:-0}" -gt "$best_v" ]; then best="$c"; best_v="$v"; fi
    done
    if [ "$best_v" -ge 17 ]; then java="$best/bin/java"; java_v="$best_v"; return; fi
    if c="$(command -v java)"; then
        v="$(java_version "$c")"
        if [ "${v:-0}" -ge 17 ] && jdk_of "$c" >/dev/null; then java="$c"; java_v="$v"; return; fi
        seen+=("java on the PATH, $c: Java ${v:-?}$(jdk_of "$c" >/dev/null || echo ", no javac")")
    fi
    echo "smoke: needs a JDK 17 or newer (SmokeDecode.java runs as a single source file); none found in:" >&2
    [ ${#seen[@]} -gt 0 ] || seen=("(no \$JAVA_HOME, no JDK under /usr/lib/jvm, no java on the PATH)")
    printf 'smoke:   %s\n' "${seen[@]}" >&2
    die "install one (e.g. Temurin 17, 21 or 25) or set JAVA_HOME to it"
}
java=""
java_v=""
pick_java
echo "smoke: Java $java_v at $java" >&2

client="${CLIENT_JAR:-}"
if [ -z "$client" ]; then
    client="$(ls -t "$repo"/client/target/subgraph-export-client-*.jar 2>/dev/null | head -n 1 || true)"
    [ -n "$client" ] || die "no client jar under $repo/client/target: build it (mvn -DskipTests package) or set CLIENT_JAR"
fi
[ -f "$client" ] || die "CLIENT_JAR $client does not exist"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

decode_args=()
for f in "${formats[@]}"; do
    url="$base/extension/$f/traverse"
    out="$tmp/export.$f"
    # -w prints status, Content-Type, bytes and seconds; the body goes to $out.
    if ! meta="$(curl --silent --show-error --get ${auth[@]+"${auth[@]}"} "${params[@]}" --output "$out" \
            --write-out '%{http_code} %{content_type} %{size_download} %{time_total}' "$url")"; then
        die "GET $url failed"
    fi
    read -r status content_type size seconds <<<"$meta"
    if [ "$status" != 200 ]; then
        echo "smoke: GET $url?… answered $status:" >&2
        head -c 2000 "$out" >&2 || true
        echo >&2
        exit 1
    fi
    printf '%-9s HTTP %s  %s  %s bytes in %s s\n' "$f" "$status" "$content_type" "$size" "$seconds"
    decode_args+=("$f" "$out" "${content_type:-none}")
done

"$java" -cp "$client" "$here/SmokeDecode.java" "${decode_args[@]}"
