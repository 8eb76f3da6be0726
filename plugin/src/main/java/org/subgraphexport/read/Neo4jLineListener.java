package org.subgraphexport.read;

import java.util.EnumSet;
import java.util.Set;
import org.neo4j.graphdb.event.TransactionData;

/**
 * The journal's listener on lines whose listener API has {@code transactionDataSelection} (2025.x and later; not 5.26,
 * where {@link ChangeJournal.Listener} is used and this class is never loaded): asks Neo4j not to collect the old
 * values of replaced and removed properties, nor the labels of deleted nodes, for the journal. Only the keys of
 * removed properties stay selected: the journal needs to know which entities lost one. (If another listener wants more,
 * Neo4j collects the union.)
 */
final class Neo4jLineListener extends ChangeJournal.Listener {
    Neo4jLineListener(ChangeJournal journal) {
        super(journal);
    }

    @Override
    public Set<TransactionData.DataSelection> transactionDataSelection() {
        return EnumSet.of(TransactionData.DataSelection.removedPropertKeys);
    }
}
