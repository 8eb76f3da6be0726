#!/usr/bin/env bash
# Smoke test of a running server with the subgraph-export plugin (a container from docker/compose.yaml, or any
# server): exports the same subgraph in every format and decodes each one with the client jar, which checks the
# Content-Type, that every stream is complete, and that all formats carry the same nodes, relationships and values.
#
# usage: docker/smoke.sh [-u user:password] <base-url> <root-element-id>
#        docker/smoke.sh [-u user:password] <base-url> <param>=<value>...
# e.g.   docker/smoke.sh http://localhost:7474 '4:5b0c…:0'
#        docker/smoke.sh -u neo4j:secret123 http://localhost:7474 label=Object key=id value=1 maxDepth=3
# The parameters are the traverse endpoint's (root, label, key, value, expand, attach, maxDepth, limit, db);
# they are URL-encoded here.
#
# Needs: curl, and Java 17+ ($JAVA_HOME/bin/java, else java on the PATH). Nothing is compiled: SmokeDecode.java
# runs as a single source file against
#   CLIENT_JAR        default: the newest client/target/subgraph-export-client-*.jar of this repository (build it with
#                     scripts/test or mvn -DskipTests package)
#   JACKSON_CORE_JAR  default: jackson-core of the version in pom.xml from ~/.m2/repository; or fetch it with
#                     mvn dependency:copy -Dartifact=com.fasterxml.jackson.core:jackson-core:<version> -DoutputDirectory=.
# Exit status 0 when every check passes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
formats=(json bson kryo kryo-lzf)

usage() { sed -n '6,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "smoke: $*" >&2; exit 1; }

auth=()
while getopts "u:h" opt; do
    case "$opt" in
        u) auth=(--user "$OPTARG") ;;
        h) usage; exit 0 ;;
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
java="java"
[ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && java="$JAVA_HOME/bin/java"
command -v "$java" >/dev/null || die "no java: set JAVA_HOME to a JDK 17+"
java_version="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1)"
[ "${java_version%%.*}" -ge 17 ] 2>/dev/null || die "$java is Java ${java_version:-?}; the client needs 17+ (set JAVA_HOME)"

client="${CLIENT_JAR:-}"
if [ -z "$client" ]; then
    client="$(ls -t "$repo"/client/target/subgraph-export-client-*.jar 2>/dev/null | head -n 1 || true)"
    [ -n "$client" ] || die "no client jar under $repo/client/target: build it (mvn -DskipTests package) or set CLIENT_JAR"
fi
[ -f "$client" ] || die "CLIENT_JAR $client does not exist"
jackson="${JACKSON_CORE_JAR:-}"
if [ -z "$jackson" ]; then
    v="$(sed -n 's:.*<jackson.version>\(.*\)</jackson.version>.*:\1:p' "$repo/pom.xml" 2>/dev/null | head -n 1)"
    jackson="$HOME/.m2/repository/com/fasterxml/jackson/core/jackson-core/$v/jackson-core-$v.jar"
    [ -n "$v" ] && [ -f "$jackson" ] || die "no jackson-core jar at $jackson: set JACKSON_CORE_JAR"
fi
[ -f "$jackson" ] || die "JACKSON_CORE_JAR $jackson does not exist"

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

"$java" -cp "$client:$jackson" "$here/SmokeDecode.java" "${decode_args[@]}"
