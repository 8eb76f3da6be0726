package org.subgraphexport.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link IsoTemporals} against the ISO formatters it stands in for: the same value (equal, and the same string
 * form, so the same zone object kind) for every value the writer prints, seeded random over the whole range of
 * years, fractions, offsets and regions; and the same exception class for malformed or out-of-range text.
 */
class IsoTemporalsTest {
    private static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneOffset.ofHours(14),
            ZoneOffset.ofHoursMinutes(-9, -30), ZoneOffset.ofHoursMinutes(5, 45), ZoneOffset.ofTotalSeconds(-3723),
            ZoneId.of("Europe/Berlin"), ZoneId.of("America/St_Johns"), ZoneId.of("UTC"), ZoneId.of("GMT+02:00"));

    @Test
    void sameValuesAsTheFormattersOnRandomValues() {
        Random random = new Random(20261123);
        for (int i = 0; i < 200_000; i++) {
            LocalDateTime ldt = LocalDateTime.of(year(random), 1 + random.nextInt(12), 1 + random.nextInt(28),
                    random.nextInt(24), random.nextInt(60), random.nextInt(4) == 0 ? 0 : random.nextInt(60),
                    nanos(random));
            ZoneId zone = ZONES.get(random.nextInt(ZONES.size()));
            ZoneOffset offset = zone instanceof ZoneOffset o ? o : ZoneOffset.ofTotalSeconds(900 * (random.nextInt(97) - 48));
            same(DateTimeFormatter.ISO_LOCAL_DATE, LocalDate::from, IsoTemporals::date, ldt.toLocalDate());
            same(DateTimeFormatter.ISO_LOCAL_TIME, LocalTime::from, IsoTemporals::localTime, ldt.toLocalTime());
            same(DateTimeFormatter.ISO_OFFSET_TIME, OffsetTime::from, IsoTemporals::time,
                    OffsetTime.of(ldt.toLocalTime(), offset));
            same(DateTimeFormatter.ISO_LOCAL_DATE_TIME, LocalDateTime::from, IsoTemporals::localDateTime, ldt);
            same(DateTimeFormatter.ISO_ZONED_DATE_TIME, ZonedDateTime::from, IsoTemporals::dateTime,
                    ZonedDateTime.of(ldt, zone));
        }
    }

    @Test
    void sameValuesOnEdges() {
        for (String s : List.of("0000-01-01", "9999-12-31", "2020-02-29", "+10000-01-01", "-0001-12-31")) {
            assertEquals(DateTimeFormatter.ISO_LOCAL_DATE.parse(s, LocalDate::from), IsoTemporals.date(s), s);
        }
        for (String s : List.of("00:00", "23:59", "23:59:59", "23:59:59.9", "00:00:00.000000001", "12:34:56.123450")) {
            assertEquals(DateTimeFormatter.ISO_LOCAL_TIME.parse(s, LocalTime::from), IsoTemporals.localTime(s), s);
        }
        for (String s : List.of("10:15Z", "10:15:30+01:00", "10:15:30.000000001+14:00", "00:00-18:00", "10:15+00:00",
                "10:15-00:00", "10:15:30+01:02:03")) {
            assertEquals(DateTimeFormatter.ISO_OFFSET_TIME.parse(s, OffsetTime::from), IsoTemporals.time(s), s);
        }
        for (String s : List.of("1970-01-01T00:00:00Z", "2015-07-04T19:32:24.123456789+02:00[Europe/Berlin]",
                "2015-07-04T19:32:24+05:30", "2015-07-04T19:32Z", "2015-07-04T19:32:24-00:00",
                "2015-07-04T19:32:24+01:00[UTC]", "+12345-01-01T00:00Z", "2015-07-04T19:32:24Z[UTC]")) {
            ZonedDateTime expected = DateTimeFormatter.ISO_ZONED_DATE_TIME.parse(s, ZonedDateTime::from);
            assertEquals(expected, IsoTemporals.dateTime(s), s);
            assertEquals(expected.toString(), IsoTemporals.dateTime(s).toString(), s);
        }
    }

    @Test
    void malformedAndOutOfRangeAsTheFormatters() {
        List<String> bad = List.of("", "2020-13-01", "2020-02-30", "2021-02-29", "2020-1-01", "2020/01/01",
                "24:00", "23:60", "23:59:60", "12:00:00.", "12:00:00.1234567890", "1:00", "12:0", "ab:cd",
                "2020-01-01T", "2020-01-01T12:00", "2020-01-01T12:00+25:00", "2020-01-01T12:00+01:60",
                "2020-01-01T12:00+1:00", "2020-01-01T12:00z", "2020-01-01T12:00ZZ", "2020-01-01 12:00Z",
                "2020-01-01T12:00Z[Nowhere/Else]", "12:00+01:00x", "١٢:٠٠", "2020-01-01T12:00:00.5-0100");
        for (String s : bad) {
            asTheFormatter(s, DateTimeFormatter.ISO_LOCAL_DATE, LocalDate::from, IsoTemporals::date);
            asTheFormatter(s, DateTimeFormatter.ISO_LOCAL_TIME, LocalTime::from, IsoTemporals::localTime);
            asTheFormatter(s, DateTimeFormatter.ISO_OFFSET_TIME, OffsetTime::from, IsoTemporals::time);
            asTheFormatter(s, DateTimeFormatter.ISO_LOCAL_DATE_TIME, LocalDateTime::from, IsoTemporals::localDateTime);
            asTheFormatter(s, DateTimeFormatter.ISO_ZONED_DATE_TIME, ZonedDateTime::from, IsoTemporals::dateTime);
        }
    }

    private static int year(Random random) {
        return switch (random.nextInt(10)) {
            case 0 -> random.nextInt(2_000_001) - 1_000_000;
            case 1 -> random.nextInt(10_000);
            default -> 1900 + random.nextInt(200);
        };
    }

    private static int nanos(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1000;
            default -> random.nextInt(1_000_000_000);
        };
    }

    private static <T> void same(DateTimeFormatter format, java.time.temporal.TemporalQuery<T> query,
            Function<String, T> fast, T value) {
        String s = format.format((java.time.temporal.TemporalAccessor) value);
        T expected = format.parse(s, query);
        T actual = fast.apply(s);
        assertEquals(expected, actual, s);
        assertEquals(expected.toString(), actual.toString(), s);
    }

    /** The formatter's value if it accepts {@code s}, else an exception of the same class. */
    private static <T> void asTheFormatter(String s, DateTimeFormatter format,
            java.time.temporal.TemporalQuery<T> query, Function<String, T> fast) {
        T expected;
        try {
            expected = format.parse(s, query);
        } catch (RuntimeException e) {
            assertThrows(e.getClass(), () -> fast.apply(s), s);
            return;
        }
        assertEquals(expected, fast.apply(s), s);
    }
}
