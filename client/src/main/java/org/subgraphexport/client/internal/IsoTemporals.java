package org.subgraphexport.client.internal;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The temporal payloads of JSON and BSON ({@code date}, {@code localtime}, {@code time}, {@code localdatetime},
 * {@code datetime}): Java's ISO formatters, with a fast path for the shapes the writer prints for everyday values.
 * {@link DateTimeFormatter#parse} costs about 1.5 µs for a zoned date-time (it copies its parse state into hash
 * maps for every optional section), which was a fifth of the JSON decoder's time on the demo graph, where every
 * Object carries one.
 *
 * <p>The fast path takes only the strict subset: a four-digit year, two-digit fields, seconds with 0-9 fraction
 * digits or no seconds, an offset {@code Z} or {@code ±HH:MM}, no zone region in brackets. The value it builds is
 * the one the formatter's query would return (the same {@code of} factories; a date-time with an offset is the
 * instant at that offset). Anything else, and any field out of range, goes to the formatter, so other shapes,
 * rejects and their exceptions stay exactly the formatter's.
 */
final class IsoTemporals {
    private IsoTemporals() {}

    static LocalDate date(String s) {
        if (s.length() == 10) {
            LocalDate d = date(s, 0);
            if (d != null) {
                return d;
            }
        }
        return DateTimeFormatter.ISO_LOCAL_DATE.parse(s, LocalDate::from);
    }

    static LocalTime localTime(String s) {
        LocalTime t = time(s, 0, s.length());
        return t != null ? t : DateTimeFormatter.ISO_LOCAL_TIME.parse(s, LocalTime::from);
    }

    static OffsetTime time(String s) {
        int o = offsetStart(s, 0);
        if (o > 0) {
            LocalTime t = time(s, 0, o);
            ZoneOffset offset = offset(s, o);
            if (t != null && offset != null) {
                return OffsetTime.of(t, offset);
            }
        }
        return DateTimeFormatter.ISO_OFFSET_TIME.parse(s, OffsetTime::from);
    }

    static LocalDateTime localDateTime(String s) {
        if (s.length() > 11 && s.charAt(10) == 'T') {
            LocalDate d = date(s, 0);
            LocalTime t = d == null ? null : time(s, 11, s.length());
            if (t != null) {
                return LocalDateTime.of(d, t);
            }
        }
        return DateTimeFormatter.ISO_LOCAL_DATE_TIME.parse(s, LocalDateTime::from);
    }

    static ZonedDateTime dateTime(String s) {
        if (s.length() > 11 && s.charAt(10) == 'T') {
            int o = offsetStart(s, 11);
            if (o > 0) {
                LocalDate d = date(s, 0);
                LocalTime t = d == null ? null : time(s, 11, o);
                ZoneOffset offset = t == null ? null : offset(s, o);
                if (offset != null) {
                    // what the formatter's ZonedDateTime.from does with an offset and no region
                    return ZonedDateTime.ofInstant(LocalDateTime.of(d, t), offset, offset);
                }
            }
        }
        return DateTimeFormatter.ISO_ZONED_DATE_TIME.parse(s, ZonedDateTime::from);
    }

    // ---- the strict subset; null for anything else -------------------------------------------------------

    /** {@code yyyy-MM-dd} at {@code at}, or null. */
    private static LocalDate date(String s, int at) {
        int y = digits(s, at, 4), m = digits(s, at + 5, 2), d = digits(s, at + 8, 2);
        if (y < 0 || m < 0 || d < 0 || s.charAt(at + 4) != '-' || s.charAt(at + 7) != '-') {
            return null;
        }
        try {
            return LocalDate.of(y, m, d);
        } catch (DateTimeException outOfRange) {
            return null;
        }
    }

    /** {@code HH:mm}, {@code HH:mm:ss} or {@code HH:mm:ss.f} (1-9 digits) exactly filling {@code [at, end)}. */
    private static LocalTime time(String s, int at, int end) {
        int n = end - at;
        if (n != 5 && (n < 8 || n == 9 || n > 18)) {
            return null;
        }
        int h = digits(s, at, 2), m = digits(s, at + 3, 2);
        if (h < 0 || m < 0 || s.charAt(at + 2) != ':') {
            return null;
        }
        int sec = 0, nanos = 0;
        if (n >= 8) {
            sec = digits(s, at + 6, 2);
            if (sec < 0 || s.charAt(at + 5) != ':') {
                return null;
            }
            if (n > 8) {
                if (s.charAt(at + 8) != '.') {
                    return null;
                }
                int f = digits(s, at + 9, n - 9);
                if (f < 0) {
                    return null;
                }
                for (int i = n - 9; i < 9; i++) {
                    f *= 10;
                }
                nanos = f;
            }
        }
        try {
            return LocalTime.of(h, m, sec, nanos);
        } catch (DateTimeException outOfRange) {
            return null;
        }
    }

    /** Where the offset of a time starting at {@code at} begins ({@code Z} or a sign after it), or -1. */
    private static int offsetStart(String s, int at) {
        int n = s.length();
        if (n > at && s.charAt(n - 1) == 'Z') {
            return n - 1;
        }
        int o = n - 6;
        if (o > at && (s.charAt(o) == '+' || s.charAt(o) == '-')) {
            return o;
        }
        return -1;
    }

    /** {@code Z} or {@code ±HH:MM} from {@code at} to the end, or null. */
    private static ZoneOffset offset(String s, int at) {
        if (s.charAt(at) == 'Z') {
            return at == s.length() - 1 ? ZoneOffset.UTC : null;
        }
        int h = digits(s, at + 1, 2), m = digits(s, at + 4, 2);
        if (h < 0 || m < 0 || s.charAt(at + 3) != ':' || s.length() != at + 6) {
            return null;
        }
        try {
            return s.charAt(at) == '-' ? ZoneOffset.ofHoursMinutes(-h, -m) : ZoneOffset.ofHoursMinutes(h, m);
        } catch (DateTimeException outOfRange) {
            return null;
        }
    }

    /** The {@code count} ASCII digits at {@code at} as a number, or -1. */
    private static int digits(String s, int at, int count) {
        if (at + count > s.length()) {
            return -1;
        }
        int v = 0;
        for (int i = at; i < at + count; i++) {
            int c = s.charAt(i) - '0';
            if (c < 0 || c > 9) {
                return -1;
            }
            v = v * 10 + c;
        }
        return v;
    }
}
