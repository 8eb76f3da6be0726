package org.subgraphexport.read;

import org.neo4j.exceptions.KernelException;
import org.neo4j.internal.kernel.api.TokenRead;
import org.subgraphexport.wire.TokenNames;

/** Token names from the transaction's {@link TokenRead}; writers ask once per distinct id. */
final class KernelTokenNames implements TokenNames {
    private final TokenRead tokens;

    KernelTokenNames(TokenRead tokens) {
        this.tokens = tokens;
    }

    @Override
    public String label(int id) {
        try {
            return tokens.nodeLabelName(id);
        } catch (KernelException e) {
            throw new IllegalStateException("unknown label id " + id, e);
        }
    }

    @Override
    public String relationshipType(int id) {
        try {
            return tokens.relationshipTypeName(id);
        } catch (KernelException e) {
            throw new IllegalStateException("unknown relationship type id " + id, e);
        }
    }

    @Override
    public String propertyKey(int id) {
        try {
            return tokens.propertyKeyName(id);
        } catch (KernelException e) {
            throw new IllegalStateException("unknown property key id " + id, e);
        }
    }
}
