package org.subgraphexport.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options as Spark passes them: checked at load(), turned into the requests the Python source sends. */
class SettingsTest {
    private static Settings of(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return new Settings(m);
    }

    private static String refused(String... kv) {
        return assertThrows(IllegalArgumentException.class, () -> of(kv)).getMessage();
    }

    @Test
    void theWalkBecomesTheTraverseQueryInTheServersNames() {
        Settings s = of("url", "http://h:7474/", "label", "Object", "key", "id", "value", "1", "maxDepth", " 2",
                "expand", "CHILD>|<UP", "db", "neo4j", "path", "ignored");
        assertEquals("http://h:7474/extension/arrow/traverse?label=Object&key=id&value=1&expand=CHILD%3E%7C%3CUP"
                + "&maxDepth=2&db=neo4j", s.endpoint("", false));
        assertEquals("http://h:7474/extension/arrow/traverse?label=Object&key=id&value=1&expand=CHILD%3E%7C%3CUP"
                + "&maxDepth=2&db=neo4j&partitions=4&partition=1", s.endpoint("partitions=4&partition=1", false));
        assertTrue(s.nodes);
        assertEquals(4, s.partitions);
        assertEquals(3, s.attempts);
        assertTrue(s.restart);
        assertEquals(2, s.maxRestarts);
        assertEquals(0, s.httpTimeoutMillis);
        assertNull(s.authorization);
        assertNull(s.pinned);
    }

    @Test
    void theOwnLimitReplacesTheWalksAndTheMountIsTrimmed() {
        Settings s = of("URL", "http://h", "root", "4:a b:7", "limit", "10", "mount", "/ext/");
        assertEquals("http://h/ext/arrow/traverse?root=4%3Aa+b%3A7&limit=10", s.endpoint("", false));
        assertEquals("http://h/ext/arrow/traverse?root=4%3Aa+b%3A7&limit=1", s.endpoint("limit=1", true));
    }

    @Test
    void everyOtherOptionIsRead() {
        Settings s = of("url", "http://h", "root", "r", "entities", "relationships", "partitions", "7", "attempts", "1",
                "onStateChange", "fail", "maxRestarts", "0", "httpTimeout", "2.5", "user", "neo4j", "password", "pä:ss",
                "state", "db:42");
        assertFalse(s.nodes);
        assertEquals(7, s.partitions);
        assertEquals(1, s.attempts);
        assertFalse(s.restart);
        assertEquals(0, s.maxRestarts);
        assertEquals(2500, s.httpTimeoutMillis);
        assertEquals("Basic bmVvNGo6cMOkOnNz", s.authorization);  // base64 of the UTF-8 "neo4j:pä:ss"
        assertEquals("db:42", s.pinned);
    }

    @Test
    void badOptionsAreRefusedWithWhatIsWrong() {
        assertEquals("unknown option(s) of the subgraph_export data source: colour, size; known: attach, attempts, db,"
                + " entities, expand, httptimeout, key, label, limit, maxdepth, maxrestarts, mount, onstatechange,"
                + " partitions, password, root, state, timeout, url, user, value",
                refused("url", "http://h", "Colour", "red", "size", "1"));
        assertEquals("the subgraph_export data source needs .option(\"url\", \"http://host:7474\")", refused("root", "r"));
        assertEquals("entities must be \"nodes\" or \"relationships\", got 'edges'",
                refused("url", "u", "entities", "edges"));
        assertEquals("option partitions must be at least 1, got 0", refused("url", "u", "partitions", "0"));
        assertEquals("option partitions must be an integer, got 'four'", refused("url", "u", "partitions", "four"));
        assertEquals("option maxdepth must be at least 0, got -1", refused("url", "u", "maxDepth", "-1"));
        assertEquals("option maxrestarts must be at least 0, got -1", refused("url", "u", "maxRestarts", "-1"));
        assertEquals("option attempts must be at least 1, got 0", refused("url", "u", "attempts", "0"));
        assertEquals("onStateChange must be 'restart' or 'fail', got 'retry'",
                refused("url", "u", "onStateChange", "retry"));
        assertEquals("user and password go together", refused("url", "u", "user", "neo4j"));
        assertEquals("option httptimeout must be above 0, got '0'", refused("url", "u", "httpTimeout", "0"));
        assertEquals("option httptimeout must be a number of seconds, got 'soon'",
                refused("url", "u", "httpTimeout", "soon"));
    }

    @Test
    void aStateChangeSaysBothStatesInThePythonPackagesWords() {
        assertEquals("Export.StateChanged: the database moved on from state a:1 to another while the partitions were"
                + " read (after 2 restarts); read the export again", Failures.stateChanged("a:1", "", 2).getMessage());
        assertEquals("Export.StateChanged: the database moved on from state a:1 to b:2 while the partitions were read;"
                + " read the export again", Failures.stateChanged("a:1", "b:2", 0).getMessage());
        String uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
        // the server's two wordings: the 412's and the error record's
        assertEquals(uuid + ":17", Failures.movedTo("database 'neo4j' is no longer in state " + uuid + ":12 but in "
                + uuid + ":17"));
        assertEquals(uuid + ":17", Failures.movedTo("the database moved on from state " + uuid + ":12 to " + uuid
                + ":17 while"));
        assertEquals("", Failures.movedTo("no state here"));
    }
}
