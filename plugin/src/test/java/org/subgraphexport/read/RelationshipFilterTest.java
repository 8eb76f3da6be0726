package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Direction;
import org.subgraphexport.read.RelationshipFilter.Entry;

/** APOC's filter syntax: exact entries and directions, merges, the errors that name the offending part. */
class RelationshipFilterTest {
    private static RelationshipFilter parse(String text) {
        return RelationshipFilter.parse(text);
    }

    private static String error(String text) {
        return assertThrows(IllegalArgumentException.class, () -> parse(text)).getMessage();
    }

    @Test
    void nullOrBlankIsTheEmptyFilter() {
        assertSame(RelationshipFilter.NONE, parse(null));
        assertSame(RelationshipFilter.NONE, parse(""));
        assertSame(RelationshipFilter.NONE, parse(" \t "));
        assertTrue(RelationshipFilter.NONE.isEmpty());
        assertEquals("", RelationshipFilter.NONE.toString());
        assertFalse(parse("A").isEmpty());
    }

    @Test
    void arrowsGiveTheDirectionAndSpacesAroundAPartAreIgnored() {
        assertEquals(List.of(new Entry("KNOWS", Direction.BOTH)), parse("KNOWS").entries());
        assertEquals(List.of(new Entry("CHILDREN", Direction.OUTGOING)), parse("CHILDREN>").entries());
        assertEquals(List.of(new Entry("PARENT", Direction.INCOMING)), parse("<PARENT").entries());
        assertEquals(List.of(new Entry("A", Direction.OUTGOING), new Entry("B", Direction.INCOMING),
                new Entry("_c9", Direction.BOTH)), parse(" A> | <B |_c9").entries());
    }

    @Test
    void entriesKeepTheOrderOfFirstMentionAndMergeDirections() {
        assertEquals(List.of(new Entry("B", Direction.BOTH), new Entry("A", Direction.OUTGOING)),
                parse("B>|A>|<B|A>").entries());
        assertEquals(List.of(new Entry("A", Direction.INCOMING)), parse("<A|<A").entries());
        assertEquals(List.of(new Entry("A", Direction.BOTH)), parse("A>|A").entries());
        assertEquals(List.of(new Entry("A", Direction.BOTH)), parse("A|<A").entries());
    }

    @Test
    void bothDirectionsIsSaidOnlyWhenSomeEntryHasThem() {
        assertTrue(parse("A>|B").hasBothDirections());
        assertTrue(parse("A>|<A").hasBothDirections());
        assertFalse(parse("A>|<B").hasBothDirections());
        assertFalse(RelationshipFilter.NONE.hasBothDirections());
    }

    @Test
    void malformedPartsAreRefusedByName() {
        assertEquals("'<A>' has both '<' and '>'; write the type without arrows for both directions", error("B|<A>"));
        String shape = " is not TYPE, TYPE> or <TYPE with TYPE made of letters, digits and '_'";
        assertEquals("'1A'" + shape, error("1A"));
        assertEquals("'A-B>'" + shape, error("A-B>"));
        assertEquals("''" + shape, error("A||B"));
        assertEquals("''" + shape, error("A|"));
        assertEquals("'>'" + shape, error(">"));
        assertEquals("'<'" + shape, error("<"));
        assertEquals("'A B'" + shape, error("A B"));
        assertEquals("'A>>'" + shape, error("A>>"));
    }

    @Test
    void atMost64Types() {
        String sixtyFour = IntStream.range(0, 64).mapToObj(i -> "T" + i).collect(Collectors.joining("|"));
        assertEquals(64, parse(sixtyFour).entries().size());
        assertEquals("at most 64 relationship types, got 65", error(sixtyFour + "|T64"));
        assertEquals("at most 64 relationship types, got 66", error(sixtyFour + "||"));
    }

    @Test
    void sharedTypesListsTheTypesOfThisFilterAlsoInTheOther() {
        assertEquals(List.of("B", "C"), parse("A>|B|<C").sharedTypes(parse("C>|D|<B")));
        assertEquals(List.of(), parse("A>").sharedTypes(parse("<B")));
        assertEquals(List.of(), parse("A").sharedTypes(RelationshipFilter.NONE));
    }

    @Test
    void toStringWritesTheFilterBackInItsSyntax() {
        assertEquals("B>|<A|C", parse(" B> | <A|C ").toString());
        assertEquals("X", parse("X>|<X").toString());
    }

    @Test
    void theEntriesAreACopy() {
        List<Entry> source = new ArrayList<>(List.of(new Entry("A", Direction.OUTGOING)));
        RelationshipFilter filter = new RelationshipFilter(source);
        source.add(new Entry("B", Direction.INCOMING));
        assertEquals(List.of(new Entry("A", Direction.OUTGOING)), filter.entries());
        assertThrows(UnsupportedOperationException.class, () -> filter.entries().add(new Entry("C", Direction.BOTH)));
    }
}
