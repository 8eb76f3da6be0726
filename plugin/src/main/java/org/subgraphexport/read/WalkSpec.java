package org.subgraphexport.read;

/**
 * What to walk from a root node.
 *
 * @param expand   relationships that lead from a member to further members (depth counts along these only)
 * @param attach   relationships that hang nested data off members and off attached nodes, followed recursively
 * @param maxDepth deepest member depth (root is 0); {@link Long#MAX_VALUE}-like values mean unbounded
 * @param limit    most nodes to emit; the walk stops and reports truncation when one more would exceed it
 * @param reportDepthCut when true, stopping at {@code maxDepth} with members left to expand counts as
 *                 truncation (used when the depth is a server maximum the caller did not ask for)
 */
public record WalkSpec(RelationshipFilter expand, RelationshipFilter attach, int maxDepth, long limit, boolean reportDepthCut) {
    public static final RelationshipFilter DEFAULT_EXPAND = RelationshipFilter.parse("CHILDREN>");
    public static final RelationshipFilter DEFAULT_ATTACH = RelationshipFilter.parse("PROPERTY>");

    public WalkSpec(RelationshipFilter expand, RelationshipFilter attach, int maxDepth, long limit) {
        this(expand, attach, maxDepth, limit, false);
    }

    public WalkSpec {
        if (maxDepth < 0) throw new IllegalArgumentException("maxDepth must be >= 0");
        if (limit < 0) throw new IllegalArgumentException("limit must be >= 0");
        if (!expand.sharedTypes(attach).isEmpty()) {
            throw new IllegalArgumentException("relationship types " + expand.sharedTypes(attach)
                    + " appear in both expand and attach; a type must have one role");
        }
    }
}
