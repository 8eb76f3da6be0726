package org.subgraphexport.encode;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link WireText}'s checks: the shape of a path, and strings with unpaired surrogates as UTF-8 encoding makes them. */
class WireTextTest {
    /**
     * Every string of up to six chars from a letter, a high and a low surrogate (each place a pair can start or be
     * cut): the unpaired surrogates become '?' exactly as encoding to UTF-8 and decoding makes them, and a string
     * without one comes back as it is, not copied.
     */
    @Test
    void wellFormedReplacesExactlyTheUnpairedSurrogates() {
        char[] alphabet = {'a', '\ud83d', '\ude00'};
        for (int length = 0; length <= 6; length++) {
            int count = (int) Math.pow(alphabet.length, length);
            for (int k = 0; k < count; k++) {
                char[] c = new char[length];
                for (int i = 0, rest = k; i < length; i++, rest /= alphabet.length) {
                    c[i] = alphabet[rest % alphabet.length];
                }
                String s = new String(c);
                String expected = new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                String actual = WireText.wellFormed(s);
                assertEquals(expected, actual, () -> s.chars().boxed().toList().toString());
                if (expected.equals(s)) {
                    assertSame(s, actual, "nothing to replace: the string itself");
                }
            }
        }
    }

    @Test
    void aPathHasOneNodeMoreThanRelationships() {
        assertDoesNotThrow(() -> WireText.checkPath(new long[] {1}, new long[0]));
        assertDoesNotThrow(() -> WireText.checkPath(new long[] {1, 2, 3}, new long[] {7, 8}));
        for (long[][] wrong : new long[][][] {{{}, {}}, {{1, 2}, {}}, {{1}, {7}}, {{1, 2, 3}, {7}}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> WireText.checkPath(wrong[0], wrong[1]));
            assertEquals("a path has one node more than relationships, not " + wrong[0].length + " and "
                    + wrong[1].length, e.getMessage());
        }
    }
}
