package org.subgraphexport.server;

import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.Response;
import org.neo4j.configuration.Config;
import org.subgraphexport.config.ExportSettings;
import org.subgraphexport.encode.ContentCoding;
import org.subgraphexport.wire.Format;

/**
 * The content coding of an export response, negotiated from the request's {@code Accept-Encoding} (RFC 9110,
 * section 12.5.3) and the server's settings.
 * <ul>
 *   <li>No {@code Accept-Encoding} header: identity. The RFC lets a server pick any coding then, but also says the
 *       client may not be able to decode it; plain {@code curl} and most scripts send no header and expect the
 *       bytes as they are.</li>
 *   <li>Otherwise every listed coding with its q-value (default 1; {@code q=0} means "not acceptable"); names are
 *       case-insensitive, {@code x-gzip} is gzip, unknown codings are ignored, as is an element whose q-value is
 *       malformed. {@code *} stands for every coding not listed by name. Identity is acceptable unless it is
 *       refused: {@code identity;q=0}, or {@code *;q=0} without an {@code identity} entry.</li>
 *   <li>The server writes {@code zstd} and {@code gzip}: of those acceptable, the one with the highest q-value;
 *       on a tie (also when {@code *} accepts both) the server's preference, zstd first. Identity instead if the
 *       client listed identity with a higher q-value than that.</li>
 *   <li>Nothing the server writes is acceptable (say {@code br} alone, or {@code identity;q=0} with a server that
 *       has compression off): identity, as the RFC says a server SHOULD, rather than 406.</li>
 *   <li>{@code kryo-lzf} is compressed already: always identity, and its responses do not vary with the header.</li>
 * </ul>
 */
final class AcceptEncoding {
    private AcceptEncoding() {}

    /**
     * The outcome: the coding of a response larger than {@code minSize} ({@code preferred}); whether identity may be
     * sent instead when the response turns out smaller; every coding whose representation this request accepts
     * (for {@code If-None-Match} and the response cache); and whether the response varies with the header.
     */
    record Choice(ContentCoding preferred, boolean identityAcceptable, List<ContentCoding> acceptable, boolean varies,
            long minSize, int zstdLevel) {
        /** The coding of a response of {@code size} bytes, when the size is known before the first byte. */
        ContentCoding forSize(long size) {
            return identityAcceptable && size < minSize ? ContentCoding.IDENTITY : preferred;
        }
    }

    static Choice negotiate(HttpServletRequest request, Format format, Config config) {
        boolean compresses = config.get(ExportSettings.COMPRESSION) && format != Format.KRYO_LZF;
        long minSize = config.get(ExportSettings.COMPRESSION_MIN_SIZE);
        int level = config.get(ExportSettings.ZSTD_LEVEL);
        Map<String, Double> q = qValues(request.getHeaders("Accept-Encoding"));
        if (!compresses || q == null) {
            return new Choice(ContentCoding.IDENTITY, true, List.of(ContentCoding.IDENTITY), compresses, minSize, level);
        }
        ContentCoding best = null;
        double bestQ = 0;
        List<ContentCoding> acceptable = new ArrayList<>();
        for (ContentCoding c : ContentCoding.values()) {
            if (c == ContentCoding.IDENTITY || !c.available()) continue;
            double cq = q(q, c.token());
            if (cq <= 0) continue;
            acceptable.add(c);
            if (cq > bestQ) {  // strictly greater: on a tie the earlier, preferred coding stays
                best = c;
                bestQ = cq;
            }
        }
        String identity = ContentCoding.IDENTITY.token();
        boolean identityNamed = q.containsKey(identity) || q.containsKey("*");
        boolean identityAcceptable = !identityNamed || q(q, identity) > 0;
        if (identityAcceptable || best == null) acceptable.add(ContentCoding.IDENTITY);
        if (best == null || identityNamed && q(q, identity) > bestQ) {
            return new Choice(ContentCoding.IDENTITY, true, acceptable, true, minSize, level);
        }
        return new Choice(best, identityAcceptable, acceptable, true, minSize, level);
    }

    /** Adds {@code Vary: Accept-Encoding} where the response depends on that header. */
    static Response.ResponseBuilder vary(Response.ResponseBuilder response, Choice choice) {
        return choice.varies() ? response.header(HttpHeaders.VARY, "Accept-Encoding") : response;
    }

    /** Sets {@code Content-Encoding} for {@code coding} (none for identity) before the first byte of the body. */
    static void announce(HttpServletResponse response, ContentCoding coding) {
        if (coding != ContentCoding.IDENTITY) response.setHeader(HttpHeaders.CONTENT_ENCODING, coding.token());
    }

    private static double q(Map<String, Double> q, String coding) {
        Double named = q.get(coding);
        if (named != null) return named;
        return q.getOrDefault("*", 0.0);
    }

    /**
     * Every coding named in these headers with its q-value, lower case, {@code x-gzip} as {@code gzip}; the first
     * mention of a name counts. Null if there is no header at all; empty for an empty header.
     */
    static Map<String, Double> qValues(Enumeration<String> headers) {
        if (headers == null || !headers.hasMoreElements()) return null;
        Map<String, Double> q = new HashMap<>();
        while (headers.hasMoreElements()) {
            for (String element : headers.nextElement().split(",")) {
                String[] parts = element.split(";");
                String name = parts[0].strip().toLowerCase(Locale.ROOT);
                if (name.isEmpty()) continue;
                if (name.equals("x-gzip")) name = ContentCoding.GZIP.token();
                Double value = 1.0;
                for (int i = 1; i < parts.length; i++) {
                    String parameter = parts[i].strip();
                    if (parameter.length() > 1 && (parameter.charAt(0) | 0x20) == 'q' && parameter.charAt(1) == '=') {
                        value = qValue(parameter.substring(2).strip());
                    }
                }
                if (value != null) q.putIfAbsent(name, value);
            }
        }
        return q;
    }

    /** RFC 9110's qvalue: {@code 0} to {@code 1} with at most three decimals; null if malformed. */
    private static Double qValue(String text) {
        if (!text.matches("0(\\.[0-9]{0,3})?|1(\\.0{0,3})?")) return null;
        return Double.parseDouble(text.endsWith(".") ? text + "0" : text);
    }
}
