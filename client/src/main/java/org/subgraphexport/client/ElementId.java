package org.subgraphexport.client;

/**
 * The element id of a node or relationship as an {@link ExportParser} hands it to an {@link ExportHandler}: a view,
 * reused by the parser, valid only during the handler call that receives it. A Neo4j element id is a prefix and a
 * signed decimal number ({@code "4:3f1c...:17"} is {@code "4:3f1c...:"} and 17; docs/wire-format.md section 1):
 * {@link #prefix()} is one of the stream's shared instances and {@link #number()} a {@code long}, so an id costs no
 * allocation unless the handler asks for {@link #toString()}. The Kryo formats carry the two parts; in JSON and BSON
 * the id is text, split when {@code prefix()}, {@code number()} or {@code hasNumber()} is first called. Keep
 * {@code toString()} or the number, never the view.
 */
public interface ElementId {
    /**
     * The part before the number: a shared instance (the header's prefix in the Kryo formats; in JSON and BSON the
     * one String of each of the last few prefixes seen). For an id that does not end in a number
     * ({@link #hasNumber} false; only hand-made JSON or BSON has such ids) the whole id.
     */
    String prefix();

    /** The numeric id, what follows {@link #prefix()}; 0 if {@link #hasNumber} is false. */
    long number();

    /**
     * True if the id is a prefix and a number, as every id the server writes is: the number is the id's last decimal
     * digits (with a {@code -} before them if negative), exactly as {@link Long#toString(long)} prints them.
     */
    boolean hasNumber();

    /** The element id: the stream's text in JSON and BSON, in Kryo built from prefix and number (once per id). */
    @Override
    String toString();
}
