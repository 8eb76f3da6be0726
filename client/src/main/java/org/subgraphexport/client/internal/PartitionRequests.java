package org.subgraphexport.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.subgraphexport.client.BusyRetry;
import org.subgraphexport.client.ContentEncodings;

/**
 * The requests for the partitions of one export: its URL with {@code partitions=N&partition=i} and, once known,
 * {@code state=}, asking for compression ({@link ContentEncodings#request}) and sent through a {@link BusyRetry}.
 *
 * @param headers extra request headers, name and value in turn (e.g. {@code Authorization})
 */
public record PartitionRequests(HttpClient http, URI export, int partitions, List<String> headers, BusyRetry busy) {
    /** Sends the request for {@code partition}, pinned to {@code state} unless it is null. */
    public HttpResponse<InputStream> send(int partition, String state) throws IOException {
        String query = export.getRawQuery();
        String uri = export + (query == null ? "?" : query.isEmpty() ? "" : "&") + "partitions=" + partitions
                + "&partition=" + partition
                + (state == null ? "" : "&state=" + URLEncoder.encode(state, StandardCharsets.UTF_8));
        HttpRequest.Builder request = ContentEncodings.request(URI.create(uri));
        for (int i = 0; i < headers.size(); i += 2) {
            request.header(headers.get(i), headers.get(i + 1));
        }
        return busy.send(http, request.build());
    }
}
