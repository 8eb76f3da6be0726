# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK 21 or newer, or exits with a clear message.
# Order: $JAVA_HOME if it is 21+, then the newest JDK under /usr/lib/jvm, then `java` on the PATH.

java_major() { # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1
}

pick_jdk() {
  local candidates=() c v best="" best_v=0
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for c in /usr/lib/jvm/*/; do candidates+=("${c%/}"); done
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  for c in "${candidates[@]}"; do
    [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    v=$(java_major "$c/bin/java"); v=${v%%.*}
    [ -n "$v" ] || continue
    # An explicitly set JAVA_HOME that is new enough wins; otherwise take the newest.
    if [ "$c" = "${JAVA_HOME:-}" ] && [ "$v" -ge 21 ]; then best=$c; best_v=$v; break; fi
    if [ "$v" -gt "$best_v" ]; then best=$c; best_v=$v; fi
  done
  if [ "$best_v" -lt 21 ]; then
    echo "error: Neo4j 2026.x needs a JDK 21 or newer; none found (looked at \$JAVA_HOME, /usr/lib/jvm/*, javac on PATH)." >&2
    echo "       Install one (e.g. Temurin 21 or 25) or point JAVA_HOME at it." >&2
    exit 1
  fi
  export JAVA_HOME=$best
  export PATH="$JAVA_HOME/bin:$PATH"
}

pick_jdk
command -v mvn >/dev/null 2>&1 || { echo "error: Maven (mvn) is not on the PATH." >&2; exit 1; }
