#!/bin/sh
# Container healthcheck for the subgraph-export image (docker/compose.yaml runs it inside the container).
#
# Healthy when the extension answers a root lookup that matches nothing with 404 and the JSON error code
# Export.RootNotFound: that proves Neo4j is up, the plugin is loaded and mounted, and the default database can
# be read. Any other answer (connection refused, 401, 500, the plain 404 of an unmounted path) is unhealthy.
#
# Credentials come from NEO4J_AUTH (or the file named by NEO4J_AUTH_FILE), the same value that set the initial
# password: "neo4j/<password>", optionally followed by "/true", or "none". If the password was changed later,
# set NEO4J_AUTH to the current one for the healthcheck.
# HEALTHCHECK_BASE_URL overrides the server address (default http://localhost:7474).
# Uses wget: the official Neo4j image has no curl.
set -u

base="${HEALTHCHECK_BASE_URL:-http://localhost:7474}"
url="${base}/extension/json/traverse?label=SubgraphExportHealthCheck&key=id&value=0"

auth="${NEO4J_AUTH:-none}"
if [ -n "${NEO4J_AUTH_FILE:-}" ] && [ -r "${NEO4J_AUTH_FILE}" ]; then
    auth="$(cat "${NEO4J_AUTH_FILE}")"
fi

set --
if [ "${auth}" != "none" ]; then
    user="${auth%%/*}"
    password="${auth#*/}"
    case "${password}" in
        */[tT][rR][uU][eE]) password="${password%/*}" ;;
    esac
    set -- --auth-no-challenge --user="${user}" --password="${password}"
fi

body="$(wget --quiet --timeout=4 --tries=1 --output-document=- --content-on-error "$@" "${url}" 2>/dev/null)"
case "${body}" in
    *'"Export.RootNotFound"'*) exit 0 ;;
    *) echo "unhealthy: ${url} answered: ${body:-nothing}" >&2; exit 1 ;;
esac
