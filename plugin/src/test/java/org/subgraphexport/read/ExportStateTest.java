package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The state an export names, and a pinned one it must read (no database: the state comes from a supplier). */
class ExportStateTest {
    @Test
    void withoutAStateNothingIsNamedAndNothingPinned() {
        assertEquals("", ExportState.NONE.now());
        ExportState.NONE.require("anything");
        ExportState.NONE.require("");
    }

    @Test
    void nowAsksTheDatabaseEveryTime() {
        AtomicInteger commits = new AtomicInteger(7);
        ExportState state = new ExportState(() -> "db:" + commits.get(), null);
        assertEquals("db:7", state.now());
        commits.incrementAndGet();
        assertEquals("db:8", state.now());
        state.require("db:1");  // nothing pinned
    }

    @Test
    void aPinnedStateIsRequiredExactly() {
        ExportState pinned = new ExportState(() -> "db:9", "db:8");
        pinned.require("db:8");
        ExportState.Changed changed = assertThrows(ExportState.Changed.class, () -> pinned.require("db:9"));
        assertEquals("the database moved on from state db:8 to db:9 (a transaction committed): read the export again,"
                + " all of its partitions, without state= or with the new state", changed.getMessage());
        assertEquals("Export.StateChanged", changed.code());
        assertEquals(ExportState.CHANGED, changed.code());
    }
}
