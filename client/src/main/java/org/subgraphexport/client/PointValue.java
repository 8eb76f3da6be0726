package org.subgraphexport.client;

import java.util.Arrays;

/**
 * A spatial point: its coordinate reference system as an SRID (7203 cartesian, 9157 cartesian-3d, 4326 WGS-84,
 * 4979 WGS-84-3d) and 2 or 3 coordinates. Equality and hash code go by the coordinates' content.
 */
public record PointValue(int srid, double[] coordinates) {
    @Override
    public boolean equals(Object o) {
        return o instanceof PointValue p && srid == p.srid && Arrays.equals(coordinates, p.coordinates);
    }

    @Override
    public int hashCode() {
        return srid * 31 + Arrays.hashCode(coordinates);
    }

    @Override
    public String toString() {
        return "PointValue[srid=" + srid + ", coordinates=" + Arrays.toString(coordinates) + "]";
    }
}
