package org.subgraphexport.client;

import java.io.IOException;

/**
 * The database moved on while the partitions of one export were read ({@link PartitionedExport}): a transaction
 * committed between or during the partitions' reads, so they would not be one export of one state. The server said
 * so with {@code 412 Export.StateChanged}, an error record {@code Export.StateChanged}, or a stream whose end record
 * names a later state than its header.
 */
public class StateChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String oldState;
    private final String newState;

    /**
     * @param oldState the state the partitions were pinned to
     * @param newState the state the database was found in ({@code ""} if the server did not name it)
     */
    public StateChangedException(String oldState, String newState) {
        super("the database moved on from state " + oldState + " to " + (newState.isEmpty() ? "a later one" : newState)
                + " while the partitions of the export were read (a transaction committed): they are not one export"
                + " of one state; read it again");
        this.oldState = oldState;
        this.newState = newState;
    }

    /** The state the partitions were pinned to: the first partition's {@code Subgraph-Export-State}. */
    public String oldState() {
        return oldState;
    }

    /** The state the database moved on to, or {@code ""} if the server did not name it. */
    public String newState() {
        return newState;
    }
}
