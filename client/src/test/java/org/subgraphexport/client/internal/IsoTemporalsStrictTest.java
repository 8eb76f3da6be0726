package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalQuery;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link IsoTemporals}' fast path takes only its strict subset: text one character away from it (a wrong separator,
 * a digit that is not one, a field one digit short or long, a part valid on its own next to an invalid one) must be
 * refused as the ISO formatter refuses it, with a {@link DateTimeParseException}, never read as some other value
 * or failing with another exception. Each input is one a mutation of the fast path's checks would misread (issue 29).
 */
class IsoTemporalsStrictTest {
    /** Malformed for every one of the five parsers; the comment names the check each one exercises. */
    private static final List<String> NEAR_MISSES = List.of(
            "20x0-01-01",              // a letter in the year
            "2020/01-01", "2020-01/01", // one separator wrong, the other right
            "2020-01-1/", "2020-01-0:", // the characters just below '0' and just above '9'
            "12x00", "12:00x00", "12:00:00x5", // time separators
            "12:00:0",                 // seconds one digit short (7 characters)
            "12:00:00.0000000001",     // ten fraction digits, the tenth making a valid nanosecond count
            "1:00+01:00", "24:00Z",    // a bad time with a good offset
            "10:15+25:00",             // a good time with a bad offset
            "12:00x01:00", "2020-01-01T12:00x01:00", // an offset without its sign
            "12:00+01x00", "12:00+x1:00", "12:00+00:x0", // offset separator and digits
            "2020-01-01x12:00", "2020-01-01x12:00Z",    // no 'T' between date and time
            "2020-13-01T12:00", "2020-13-01T12:00Z");   // a bad date with a good time

    @Test
    void nearMissesAreRefusedAsTheFormattersRefuseThem() {
        for (String s : NEAR_MISSES) {
            refused(s, DateTimeFormatter.ISO_LOCAL_DATE, LocalDate::from, IsoTemporals::date);
            refused(s, DateTimeFormatter.ISO_LOCAL_TIME, LocalTime::from, IsoTemporals::localTime);
            refused(s, DateTimeFormatter.ISO_OFFSET_TIME, OffsetTime::from, IsoTemporals::time);
            refused(s, DateTimeFormatter.ISO_LOCAL_DATE_TIME, LocalDateTime::from, IsoTemporals::localDateTime);
            refused(s, DateTimeFormatter.ISO_ZONED_DATE_TIME, ZonedDateTime::from, IsoTemporals::dateTime);
        }
    }

    @Test
    void theShapesNextToTheNearMissesAreRead() {
        assertEquals(LocalTime.of(12, 0, 0, 1), IsoTemporals.localTime("12:00:00.000000001"));
        assertEquals(LocalTime.of(12, 0, 0, 500_000_000), IsoTemporals.localTime("12:00:00.5"));
        assertEquals(LocalDate.of(2020, 1, 19), IsoTemporals.date("2020-01-19"));
        assertEquals(LocalDate.of(2020, 1, 10), IsoTemporals.date("2020-01-10"));
        assertEquals(OffsetTime.parse("12:00-00:30"), IsoTemporals.time("12:00-00:30"));
        assertEquals(OffsetTime.parse("12:00+01:00"), IsoTemporals.time("12:00+01:00"));
        assertEquals(LocalDateTime.of(2020, 12, 1, 12, 0), IsoTemporals.localDateTime("2020-12-01T12:00"));
        assertEquals(ZonedDateTime.parse("2020-12-01T12:00Z"), IsoTemporals.dateTime("2020-12-01T12:00Z"));
    }

    private static <T> void refused(String s, DateTimeFormatter format, TemporalQuery<T> query,
            Function<String, T> fast) {
        assertThrows(DateTimeParseException.class, () -> format.parse(s, query), () -> "the formatter takes " + s);
        assertThrows(DateTimeParseException.class, () -> fast.apply(s), s);
    }
}
