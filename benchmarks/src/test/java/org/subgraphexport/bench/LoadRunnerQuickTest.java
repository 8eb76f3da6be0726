package org.subgraphexport.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load tool on a tiny graph (20 small and 2 large clients, the server's default bounds), so that it never rots:
 * every client gets the single-client answer, byte for byte, and the report is written. It asserts no timing.
 */
class LoadRunnerQuickTest {
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyClientGetsTheSingleClientAnswer(@TempDir Path out) throws Exception {
        LoadRunner.Options options = LoadRunner.Options.quick(out.resolve("load.md"));
        LoadRunner.Report report = LoadRunner.run(options, System.out);
        assertEquals(100, report.small().answer().nodes(), "the small root and its 99 children");
        assertEquals(99, report.small().answer().relationships());
        assertEquals(report.graphNodes(), report.large().answer().nodes(), "the whole demo graph");
        assertEquals(20, report.identical(false), () -> report.outcomes().toString());
        assertEquals(2, report.identical(true), () -> report.outcomes().toString());
        assertTrue(report.heapMax() > 0 && report.heapSamples() > 0, "heap sampled");
        String md = Files.readString(LoadRunner.write(report));
        assertTrue(md.contains("| small (20) | 20 of 20 |"), md);
        assertTrue(md.contains("| large (2) | 2 of 2 |"), md);
    }
}
