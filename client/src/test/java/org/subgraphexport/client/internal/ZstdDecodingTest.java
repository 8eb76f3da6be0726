package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** zstd-jni is on the tests' class path and its native library loads on every machine the build runs on. */
class ZstdDecodingTest {
    @Test
    void theNativeLibraryLoadsAndAFrameDecodesToItsBytes() throws IOException {
        assertTrue(ZstdDecoding.available());
        byte[] data = "a subgraph, a subgraph, a subgraph ".repeat(1000).getBytes(StandardCharsets.UTF_8);
        byte[] frame = Zstd.compress(data);
        try (InputStream in = ZstdDecoding.open(new ByteArrayInputStream(frame))) {
            assertArrayEquals(data, in.readAllBytes());
        }
        byte[] cut = Arrays.copyOf(frame, frame.length - 3);
        try (InputStream in = ZstdDecoding.open(new ByteArrayInputStream(cut))) {
            assertThrows(IOException.class, in::readAllBytes, "a frame cut short fails when read to its end");
        }
    }
}
