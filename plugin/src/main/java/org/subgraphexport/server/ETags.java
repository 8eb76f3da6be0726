package org.subgraphexport.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.ws.rs.core.CacheControl;
import javax.ws.rs.core.EntityTag;
import org.subgraphexport.wire.Wire;

/**
 * Strong ETags for exports: a SHA-256 over the database version (id and last committed transaction), the
 * caller (two users may see different data), the wire version and the normalized request. The same tag means
 * the same bytes as long as no transaction has been committed to the database.
 */
final class ETags {
    /** Clients may keep a response but must revalidate it with If-None-Match. */
    static final CacheControl REVALIDATE = CacheControl.valueOf("no-cache");
    /** Says that a response came from the server-side cache. */
    static final String CACHE_HEADER = "X-Subgraph-Export-Cache";
    /** Bump when the encoding of an unchanged graph changes without a wire version change. */
    private static final String IMPLEMENTATION = "1";

    private ETags() {}

    static EntityTag of(String databaseVersion, String user, String... request) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        update(sha, databaseVersion);
        update(sha, user);
        update(sha, Wire.VERSION + "." + IMPLEMENTATION);
        for (String part : request) {
            update(sha, part);
        }
        return new EntityTag(HexFormat.of().formatHex(sha.digest(), 0, 16));
    }

    private static void update(MessageDigest sha, String part) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 24));
        sha.update((byte) (bytes.length >>> 16));
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
    }
}
