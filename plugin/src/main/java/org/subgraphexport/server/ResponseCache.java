package org.subgraphexport.server;

import java.util.Enumeration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import javax.servlet.http.HttpServletRequest;
import org.neo4j.dbms.api.DatabaseManagementService;

/**
 * Encoded traverse responses, keyed by their ETag (which covers the database's last committed transaction, so
 * a commit makes every older entry unreachable), least recently used first out, bounded in bytes. One per
 * DBMS. Entries of a database whose version moved on are dropped when a newer one is stored. A request may opt
 * out of either half with {@code Cache-Control} ({@link Directives}).
 */
final class ResponseCache {
    private static final Map<DatabaseManagementService, ResponseCache> PER_DBMS = new WeakHashMap<>();

    static synchronized ResponseCache of(DatabaseManagementService dbms, long maxBytes) {
        ResponseCache cache = PER_DBMS.computeIfAbsent(dbms, d -> new ResponseCache());
        cache.resize(maxBytes);
        return cache;
    }

    /**
     * What the request's {@code Cache-Control} header asks of this cache (RFC 9111, section 5.2.1): {@code no-cache}
     * (the response must come from the store, not from here) and {@code no-store} (the response must not be kept).
     * Directive names are case-insensitive, any number of headers and comma-separated directives are accepted,
     * other directives and arguments are ignored. A request without any {@code Cache-Control} header but with the
     * HTTP/1.0 header {@code Pragma: no-cache} means {@code no-cache} (RFC 9111, section 5.4; RFC 7234 said
     * MUST); with a {@code Cache-Control} header, {@code Pragma} is ignored. Neither one affects
     * {@code If-None-Match}: a matching tag still answers 304.
     */
    record Directives(boolean noCache, boolean noStore) {
        static final Directives NONE = new Directives(false, false);

        static Directives of(HttpServletRequest request) {
            if (request == null) return NONE;
            Set<String> directives = names(request.getHeaders("Cache-Control"));
            if (directives == null) {  // no Cache-Control header: HTTP/1.0's Pragma counts
                Set<String> pragmas = names(request.getHeaders("Pragma"));
                return pragmas != null && pragmas.contains("no-cache") ? new Directives(true, false) : NONE;
            }
            boolean noCache = directives.contains("no-cache");
            boolean noStore = directives.contains("no-store");
            return noCache || noStore ? new Directives(noCache, noStore) : NONE;
        }

        /**
         * The names of the comma-separated directives in every one of these headers, lower case, without their
         * arguments; null if there is no such header.
         */
        private static Set<String> names(Enumeration<String> headers) {
            if (headers == null || !headers.hasMoreElements()) return null;
            Set<String> names = new HashSet<>();
            while (headers.hasMoreElements()) {
                for (String directive : headers.nextElement().split(",")) {
                    int eq = directive.indexOf('=');
                    names.add((eq < 0 ? directive : directive.substring(0, eq)).strip().toLowerCase(Locale.ROOT));
                }
            }
            return names;
        }
    }

    private record Entry(String databaseVersion, byte[] bytes) {}

    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long maxBytes;
    private long bytes;

    synchronized byte[] get(String etag) {
        Entry e = entries.get(etag);
        return e == null ? null : e.bytes;
    }

    /** Stores a complete response; {@code databaseVersion} is the database id and last transaction it was made at. */
    synchronized void put(String etag, String databaseVersion, byte[] response) {
        if (response.length > maxBytes) {
            return;
        }
        String database = databaseVersion.substring(0, databaseVersion.indexOf(':') + 1);
        for (Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
            Entry e = it.next().getValue();
            if (e.databaseVersion.startsWith(database) && !e.databaseVersion.equals(databaseVersion)) {
                bytes -= e.bytes.length;
                it.remove();
            }
        }
        Entry old = entries.put(etag, new Entry(databaseVersion, response));
        if (old != null) bytes -= old.bytes.length;
        bytes += response.length;
        evict();
    }

    private void resize(long max) {
        maxBytes = max;
        evict();
    }

    private void evict() {
        for (Iterator<Entry> it = entries.values().iterator(); bytes > maxBytes && it.hasNext(); ) {
            bytes -= it.next().bytes.length;
            it.remove();
        }
    }

    synchronized long bytes() {
        return bytes;
    }
}
