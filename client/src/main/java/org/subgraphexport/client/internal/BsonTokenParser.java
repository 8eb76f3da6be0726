package org.subgraphexport.client.internal;

import java.io.IOException;
import org.subgraphexport.wire.Format;

/**
 * Decodes the {@code bson} format: one BSON document per record, concatenated. {@link BsonDocuments} reads each
 * document whole and checks its structure first (so no declared length inside it can exceed the bytes that
 * arrived), then one {@link BsonTokens}, reused, gives its tokens.
 */
final class BsonTokenParser extends TokenParser {
    private final BsonDocuments documents;
    private final BsonTokens tokens;

    BsonTokenParser(Source source) {
        this(source, new BsonTokens());
    }

    private BsonTokenParser(Source source, BsonTokens tokens) {
        super(Format.BSON, source, tokens);
        this.tokens = tokens;
        this.documents = new BsonDocuments(source);
    }

    @Override
    void startStream() {
        // no outer array: the first document is the header
    }

    @Override
    boolean nextRecord() throws IOException {
        byte[] document = documents.next();
        if (document == null) {
            return false;
        }
        tokens.reset(document);
        tokens.nextToken();  // the document's START_OBJECT: BsonDocuments checked that it ends where its length says
        return true;
    }

    @Override
    void expectEnd() throws IOException {
        if (documents.next() != null) {
            throw corrupt("documents after the closing record");
        }
    }
}
