package org.subgraphexport.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.event.TransactionData;
import org.neo4j.graphdb.event.TransactionEventListener;

/**
 * The journal's listener overrides {@code transactionDataSelection()} without naming its element type (so that it
 * links on 5.26, which lacks it; LinkageIT checks that): on this line the override must still be what Neo4j calls,
 * asking for the keys of removed properties and no old values.
 */
class ChangeJournalListenerTest {
    @Test
    void asksNeo4jForTheKeysOfRemovedPropertiesOnly() {
        TransactionEventListener<?> listener = ChangeJournal.Listener.of(null);
        assertEquals(EnumSet.of(TransactionData.DataSelection.removedPropertKeys), listener.transactionDataSelection());
    }
}
