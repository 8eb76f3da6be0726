package org.subgraphexport.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Element ids as the Python package and the Java client make them: the prefix, then the id in signed decimal. */
class ValuesTest {
    @Test
    void elementIdsArePrefixAndSignedDecimal() {
        Values.ElementIds ids = new Values.ElementIds("4:0f8f\u00e9:");
        for (long id : new long[] {0, 7, 9, 10, 99, 100, 583_124, 999_999_999, 1_000_000_000, Integer.MAX_VALUE,
                Integer.MAX_VALUE + 1L, -1, -10, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
            assertEquals("4:0f8f\u00e9:" + id, ids.of(id).toString());
        }
        assertEquals("12", new Values.ElementIds("").of(12).toString());
    }
}
