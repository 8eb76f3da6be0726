package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A walk's bounds are checked, and a relationship type has one role: expand or attach. */
class WalkSpecTest {
    private static final RelationshipFilter EXPAND = WalkSpec.DEFAULT_EXPAND, ATTACH = WalkSpec.DEFAULT_ATTACH;

    @Test
    void theDefaultsFollowChildrenOutAndAttachPropertyOut() {
        assertEquals("CHILDREN>", WalkSpec.DEFAULT_EXPAND.toString());
        assertEquals("PROPERTY>", WalkSpec.DEFAULT_ATTACH.toString());
    }

    @Test
    void depthAndLimitMayBeZeroButNotNegative() {
        WalkSpec zero = new WalkSpec(EXPAND, ATTACH, 0, 0);
        assertEquals(0, zero.maxDepth());
        assertEquals(0, zero.limit());
        assertFalse(zero.reportDepthCut());
        assertTrue(new WalkSpec(EXPAND, ATTACH, 0, 0, true).reportDepthCut());
        assertEquals("maxDepth must be >= 0",
                assertThrows(IllegalArgumentException.class, () -> new WalkSpec(EXPAND, ATTACH, -1, 0)).getMessage());
        assertEquals("limit must be >= 0",
                assertThrows(IllegalArgumentException.class, () -> new WalkSpec(EXPAND, ATTACH, 0, -1)).getMessage());
    }

    @Test
    void aTypeInBothExpandAndAttachIsRefusedWhateverItsDirections() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WalkSpec(
                RelationshipFilter.parse("A>|B"), RelationshipFilter.parse("<B|C|A"), 3, 10));
        assertEquals("relationship types [A, B] appear in both expand and attach; a type must have one role",
                e.getMessage());
        WalkSpec disjoint = new WalkSpec(RelationshipFilter.parse("A>"), RelationshipFilter.parse("<B"), 3, 10);
        assertEquals("A>", disjoint.expand().toString());
        assertEquals("<B", disjoint.attach().toString());
        new WalkSpec(RelationshipFilter.NONE, RelationshipFilter.NONE, 1, 1);
    }
}
