# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK 21 or newer and sets NEO4J_JVM_FLAGS, the JVM
# flags Neo4j starts with (the same list as the neo4j.jvm.flags property of pom.xml; PackagingIT checks they agree).
# Order: $JAVA_HOME if it is 21+, then the newest JDK under /usr/lib/jvm, then `java` on the PATH. Without one it
# prints why and returns 1: a script with `set -e` stops, an interactive shell that sourced it stays open.

java_major() { # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1
}

pick_jdk() {
  local candidates=() c v best="" best_v=0
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for c in /usr/lib/jvm/*/; do [ -d "$c" ] && candidates+=("${c%/}"); done
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
    return 1
  fi
  export JAVA_HOME=$best
  export PATH="$JAVA_HOME/bin:$PATH"
  NEO4J_JVM_FLAGS=(--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
    --enable-native-access=ALL-UNNAMED)
  if [ "$best_v" -ge 23 ]; then
    NEO4J_JVM_FLAGS+=(--sun-misc-unsafe-memory-access=allow)
    # Maven's bundled Guava calls sun.misc.Unsafe: keep JDK 23+ from printing warnings about it.
    case "${MAVEN_OPTS:-}" in *sun-misc-unsafe-memory-access*) ;; *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow";; esac
  fi
}

pick_jdk || return 1
command -v mvn >/dev/null 2>&1 || { echo "error: Maven (mvn) is not on the PATH." >&2; return 1; }
