package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link Ids}: how a JSON or BSON id's text splits into prefix and number (only the canonical decimal form of a
 * long, as {@link Long#toString(long)} prints it, is a number), the Kryo parts joined into the text once, and the
 * prefixes shared between the views of one parser.
 */
class IdsTest {
    private static Ids text(String text) {
        Ids id = new Ids(new Ids.Prefixes());
        id.set(text);
        return id;
    }

    private static void assertNumbered(String text, String prefix, long number) {
        Ids id = text(text);
        assertTrue(id.hasNumber(), text);
        assertEquals(prefix, id.prefix(), text);
        assertEquals(number, id.number(), text);
        assertEquals(text, id.toString());
        assertFalse(id.built(), text);
    }

    private static void assertNotNumbered(String text) {
        Ids id = text(text);
        assertEquals(0, id.number(), text);  // number() first: it splits as well as prefix() does
        assertEquals(text, id.prefix(), text);
        assertFalse(id.hasNumber(), text);
        assertEquals(text, id.toString());
    }

    @Test
    void canonicalNumbersSplitOff() {
        assertNumbered("4:db:17", "4:db:", 17);
        assertNumbered("n:0", "n:", 0);
        assertNumbered("n:-5", "n:", -5);
        assertNumbered("n:9", "n:", 9);
        assertNumbered("n:10", "n:", 10);
        assertNumbered("12", "", 12);
        assertNumbered("-3", "", -3);
        assertNumbered("0", "", 0);
        assertNumbered("a-b5", "a-b", 5);
        assertNumbered("n:9223372036854775807", "n:", Long.MAX_VALUE);
        assertNumbered("n:-9223372036854775808", "n:", Long.MIN_VALUE);
        assertNumbered("n:1000000000000000000", "n:", 1_000_000_000_000_000_000L);  // 19 digits
    }

    @Test
    void anythingElseIsAllPrefix() {
        assertNotNumbered("n:");
        assertNotNumbered("");
        assertNotNumbered("n:-");
        assertNotNumbered("n:x");
        assertNotNumbered("n:-0");
        assertNotNumbered("n:007");
        assertNotNumbered("n:-07");
        assertNotNumbered("00");
        assertNotNumbered("n:9223372036854775808");
        assertNotNumbered("n:-9223372036854775809");
        assertNotNumbered("n:10000000000000000000");  // 20 digits
        assertNotNumbered("n:01000000000000000000");
    }

    @Test
    void kryoPartsMakeTheTextOnce() {
        Ids id = new Ids(new Ids.Prefixes());
        id.set("n:", 42);
        assertTrue(id.built());
        assertTrue(id.hasNumber());
        assertSame("n:", id.prefix());
        assertEquals(42, id.number());
        String s = id.toString();
        assertEquals("n:42", s);
        assertSame(s, id.toString());
        assertFalse(id.built());
        id.set("r:", -1);
        assertTrue(id.built());
        assertEquals("r:-1", id.toString());
        id.set("n:7");
        assertFalse(id.built());
        assertEquals(7, id.number());
        assertEquals("n:", id.prefix());
        assertFalse(id.built());
    }

    @Test
    void viewsOfOneParserShareTheirRecentPrefixes() {
        Ids.Prefixes prefixes = new Ids.Prefixes();
        Ids a = new Ids(prefixes);
        Ids b = new Ids(prefixes);
        a.set(new String("4:db:1"));
        b.set(new String("4:db:22"));
        String first = a.prefix();
        assertEquals("4:db:", first);
        assertSame(first, b.prefix());
        // a prefix of another length, or of the same length and other text, is its own
        b.set("4:db2:3");
        assertEquals("4:db2:", b.prefix());
        b.set("4:dc:3");
        assertEquals("4:dc:", b.prefix());
        assertNotSame(first, b.prefix());
        // four prefixes are kept: the first is still shared after three more
        b.set("5:db:3");
        assertEquals("5:db:", b.prefix());
        b.set(new String("4:db:9"));
        assertSame(first, b.prefix());
        // a fifth replaces the oldest, round-robin
        b.set("6:db:3");
        assertEquals("6:db:", b.prefix());
        b.set(new String("4:db:9"));
        assertEquals("4:db:", b.prefix());
        assertNotSame(first, b.prefix());
    }
}
