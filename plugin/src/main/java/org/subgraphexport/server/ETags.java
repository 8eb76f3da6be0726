package org.subgraphexport.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.core.CacheControl;
import javax.ws.rs.core.EntityTag;
import org.subgraphexport.encode.ContentCoding;
import org.subgraphexport.wire.Wire;

/**
 * Strong ETags for exports: a SHA-256 over the database version (id and last committed transaction), the
 * caller (two users may see different data), the wire version and the normalized request. The same tag means
 * the same bytes as long as no transaction has been committed to the database. That is the identity tag; a
 * compressed response carries it with its coding appended ({@link #of(EntityTag, ContentCoding)}).
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

    /**
     * The tag of the representation in {@code coding}: the identity tag as it is, others with the coding's name
     * appended ({@code "…-zstd"}), since each coding is a representation of its own (RFC 9110, section 8.8.3).
     */
    static EntityTag of(EntityTag identity, ContentCoding coding) {
        return coding == ContentCoding.IDENTITY ? identity : new EntityTag(identity.getValue() + "-" + coding.token());
    }

    /**
     * The first of {@code candidates} that the request's {@code If-None-Match} names (weak comparison, as RFC 9110
     * section 13.1.2 asks; {@code *} names the first candidate), or null if there is no such header or no match.
     */
    static EntityTag noneMatch(HttpServletRequest request, List<EntityTag> candidates) {
        Enumeration<String> headers = request.getHeaders("If-None-Match");
        if (headers == null) return null;
        Set<String> named = new HashSet<>();
        while (headers.hasMoreElements()) {
            String header = headers.nextElement();
            if (header.strip().equals("*")) return candidates.get(0);
            for (Matcher m = LISTED_TAG.matcher(header); m.find(); ) {
                named.add(m.group(1));
            }
        }
        for (EntityTag candidate : candidates) {
            if (named.contains(candidate.getValue())) return candidate;
        }
        return null;
    }

    /** One entity-tag of an If-None-Match list: optional weakness prefix, then the quoted opaque tag. */
    private static final Pattern LISTED_TAG = Pattern.compile("(?:W/)?\"([^\"]*)\"");

    private static void update(MessageDigest sha, String part) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 24));
        sha.update((byte) (bytes.length >>> 16));
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
    }
}
