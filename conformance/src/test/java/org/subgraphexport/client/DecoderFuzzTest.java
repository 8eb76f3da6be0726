package org.subgraphexport.client;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.ning.compress.lzf.LZFEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.subgraphexport.encode.Encoders;
import org.subgraphexport.encode.FixtureStream;
import org.subgraphexport.wire.Format;
import org.subgraphexport.wire.GraphWriter;

/**
 * A bounded, seeded, mutation-based fuzzer for the four decoders. The corpus is the valid streams the format tests
 * already trust (the golden files, {@link FixtureStream#small()} and {@link FixtureStream#compact()}, a stream that
 * ends with an error record, the golden rows stream when there is one, and for 1 case in 32
 * {@link FixtureStream#full()} with its large values). Each case takes one of them and applies
 * 1 to 4 seeded mutations: bit flips, byte overwrites, inserts and deletes, duplication of a chunk, splicing with
 * another stream of the format, truncation, and tampering with length fields (Kryo varints, BSON int32 document and
 * string lengths, LZF chunk headers, JSON numbers and nesting). For {@code kryo-lzf} half the cases mutate the inner
 * Kryo stream and compress it again, so that the Kryo decoder behind LZF is reached, not only the LZF layer.
 *
 * <p>Every decode (all records, then one more {@code next()}) must end in success, {@link CorruptStreamException} or
 * {@link ExportFailedException}; anything else is a failure: another exception, an {@link Error} (OutOfMemoryError,
 * StackOverflowError), more than {@value #MAX_CASE_ALLOCATION_MB} MB allocated by one case (measured with
 * {@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}), or a batch that does not finish in time
 * (a hang). Failures are collected and reported with their case seed; replay one with
 * {@code -Dsubgraphexport.fuzz.replay=<FORMAT>:<seed>} (prints the bytes and the stack trace).
 *
 * <p>{@code -Dsubgraphexport.fuzz.cases=N} changes the number of cases per format (default {@value #DEFAULT_CASES}),
 * {@code -Dsubgraphexport.fuzz.seed=S} the base seed.
 */
public class DecoderFuzzTest {
    static final int DEFAULT_CASES = 25_000;
    static final long DEFAULT_SEED = 0x5EED_2026_1122L;
    static final int MAX_CASE_ALLOCATION_MB = 64;
    private static final int REPORTED_FAILURES = 10;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What one decode did. */
    enum Outcome { DECODED, CORRUPT, EXPORT_FAILED }

    record Failure(long seed, String mutations, byte[] bytes, Throwable thrown, String problem) {}

    @ParameterizedTest
    @ClientFormats
    void mutatedStreamsDecodeOrFailCleanly(Format format) {
        int cases = Integer.getInteger("subgraphexport.fuzz.cases", DEFAULT_CASES);
        long baseSeed = Long.getLong("subgraphexport.fuzz.seed", DEFAULT_SEED);
        // 0.1-0.4 ms per decode on 2 busy cores, two decodes per case (the record and the streaming API): a batch
        // takes 10-90 s on a loaded machine; the limit only has to catch a hang
        Duration limit = Duration.ofSeconds(Math.max(180, cases / 130));
        List<byte[]> corpus = corpus(format);
        assertTrue(THREADS.isThreadAllocatedMemorySupported(), "the allocation check needs thread allocation counting");
        THREADS.setThreadAllocatedMemoryEnabled(true);

        Map<Outcome, Integer> outcomes = new LinkedHashMap<>();
        List<Failure> failures = new ArrayList<>();
        int[] pastHeader = {0};
        long[] maxAllocated = {0};
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(limit, () -> {
            for (int i = 0; i < cases; i++) {
                long seed = caseSeed(baseSeed, format, i);
                Mutated m = mutate(format, corpus, seed);
                Result r = decode(format, m.bytes());
                maxAllocated[0] = Math.max(maxAllocated[0], r.allocated());
                if (r.records() > 0) pastHeader[0]++;
                if (r.problem() != null) {
                    failures.add(new Failure(seed, m.description(), m.bytes(), r.thrown(), r.problem()));
                } else {
                    outcomes.merge(r.outcome(), 1, Integer::sum);
                }
            }
        }, () -> format + ": a batch of " + cases + " cases did not finish within " + limit.toSeconds()
                + " s (a hang? replay cases with -Dsubgraphexport.fuzz.replay=" + format + ":<seed>)");
        System.out.printf("DecoderFuzzTest %-8s %,d cases from %d streams in %.1f s: %s, %,d got past the header, "
                        + "largest allocation of one case %.1f MB, %d failures%n",
                format, cases, corpus.size(), (System.nanoTime() - t0) / 1e9, outcomes, pastHeader[0],
                maxAllocated[0] / 1048576.0, failures.size());
        if (!failures.isEmpty()) {
            fail(report(format, failures));
        }
        // The mutations must reach the records, not only break the magic or the header.
        assertTrue(pastHeader[0] > cases / 4, () -> format + ": only " + pastHeader[0] + " of " + cases
                + " cases decoded a record after the header; the mutations do not reach the decoder's depths");
    }

    // ---- one decode ----

    record Result(Outcome outcome, int records, long allocated, Throwable thrown, String problem,
            List<ExportRecord> decoded, String message) {}

    /**
     * Decodes {@code bytes} with the record API, then with the streaming API ({@link StreamedReader}); the two must
     * agree: the same outcome after the same records (equal record by record), the same exception message.
     */
    static Result decode(Format format, byte[] bytes) {
        Result records = decode(bytes, in -> ExportReader.open(format, in));
        if (records.problem() != null) {
            return records;
        }
        Result streamed = decode(bytes, in -> StreamedReader.open(format, in));
        String problem = streamed.problem();
        if (problem == null && (records.outcome() != streamed.outcome() || records.records() != streamed.records()
                || !records.decoded().equals(streamed.decoded())
                || !String.valueOf(records.message()).equals(String.valueOf(streamed.message())))) {
            problem = "the APIs disagree: record API " + records.outcome() + " after " + records.records()
                    + " records (" + records.message() + "), streaming API " + streamed.outcome() + " after "
                    + streamed.records() + " records (" + streamed.message() + ")";
        }
        return new Result(records.outcome(), records.records(), Math.max(records.allocated(), streamed.allocated()),
                streamed.thrown(), problem, records.decoded(), records.message());
    }

    interface Opener {
        ExportReader open(InputStream in) throws IOException;
    }

    private static Result decode(byte[] bytes, Opener opener) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        List<ExportRecord> decoded = new ArrayList<>();
        Outcome outcome;
        Throwable thrown = null;
        String problem = null;
        String message = null;
        try (ExportReader reader = opener.open(new ByteArrayInputStream(bytes))) {
            for (ExportRecord r; (r = reader.next()) != null; ) {
                decoded.add(r);
            }
            if (reader.next() != null) {
                problem = "a record after null";
            }
            outcome = Outcome.DECODED;
        } catch (CorruptStreamException e) {
            outcome = Outcome.CORRUPT;
            message = e.getMessage();
        } catch (ExportFailedException e) {
            outcome = Outcome.EXPORT_FAILED;
            message = e.getMessage();
        } catch (Throwable t) {
            outcome = null;
            thrown = t;
            problem = "raised " + t.getClass().getName();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        if (problem == null && allocated > ((long) MAX_CASE_ALLOCATION_MB << 20)) {
            problem = String.format("allocated %.1f MB decoding %d bytes", allocated / 1048576.0, bytes.length);
        }
        return new Result(outcome, decoded.size(), allocated, thrown, problem, decoded, message);
    }

    private static String report(Format format, List<Failure> failures) {
        StringBuilder sb = new StringBuilder(format + ": " + failures.size() + " of the cases failed; replay one with "
                + "-Dsubgraphexport.fuzz.replay=" + format + ":<seed>\n");
        for (Failure f : failures.subList(0, Math.min(REPORTED_FAILURES, failures.size()))) {
            sb.append("---- seed ").append(f.seed()).append(": ").append(f.problem()).append(" after ")
                    .append(f.mutations()).append(", ").append(f.bytes().length).append(" bytes\n");
            sb.append(hex(f.bytes())).append('\n');
            if (f.thrown() != null) {
                StringWriter trace = new StringWriter();
                f.thrown().printStackTrace(new PrintWriter(trace));
                sb.append(trace.toString().lines().limit(25).reduce("", (a, b) -> a + b + "\n"));
            }
        }
        return sb.toString();
    }

    private static String hex(byte[] bytes) {
        int shown = Math.min(bytes.length, 600);
        return HexFormat.of().formatHex(bytes, 0, shown) + (shown < bytes.length ? "…" : "");
    }

    // ---- the corpus ----

    public static List<byte[]> corpus(Format format) {
        List<byte[]> streams = new ArrayList<>();
        streams.add(FixtureStream.small().bytes(format));
        streams.add(FixtureStream.compact().bytes(format));
        streams.add(errorStream(format));
        for (String golden : List.of("golden/fixture.", "golden/rows.")) {
            byte[] b = resource(golden + format.pathSegment());
            if (b != null) streams.add(b);
        }
        // last: the large values (100k-char strings, a 200 KB byte array); picked for 1 case in 32 only
        streams.add(FixtureStream.full().bytes(format));
        return streams;
    }

    /** Header, the small fixture's records, then an error record instead of the end record. */
    private static byte[] errorStream(Format format) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            GraphWriter w = Encoders.open(format, out);
            FixtureStream f = FixtureStream.small();
            f.write(w, f.tokens());
            w.error("Neo.TransientError.Transaction.Terminated", "terminated ✓");
            w.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static byte[] resource(String name) {
        try (InputStream in = DecoderFuzzTest.class.getClassLoader().getResourceAsStream(name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- mutations ----

    public record Mutated(byte[] bytes, String description) {}

    public static long caseSeed(long base, Format format, int i) {
        long h = base ^ (format.ordinal() + 1L) * 0x9E3779B97F4A7C15L ^ i * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        return h ^ h >>> 33;
    }

    public static Mutated mutate(Format format, List<byte[]> corpus, long seed) {
        Random random = new Random(seed);
        byte[] original = random.nextInt(32) == 0 ? corpus.getLast() : corpus.get(random.nextInt(corpus.size() - 1));
        List<String> applied = new ArrayList<>();
        byte[] bytes;
        if (format == Format.KRYO_LZF && random.nextBoolean()) {
            // mutate the Kryo stream inside, then compress it again
            byte[] inner = decompress(original);
            inner = mutateAll(Format.KRYO, inner, corpus, random, applied);
            bytes = inner.length == 0 ? inner : LZFEncoder.encode(inner);
            applied.add("LZF-encoded");
        } else {
            bytes = mutateAll(format, original, corpus, random, applied);
        }
        return new Mutated(bytes, "stream " + corpus.indexOf(original) + " " + applied);
    }

    private static byte[] mutateAll(Format format, byte[] bytes, List<byte[]> corpus, Random random, List<String> applied) {
        int count = 1 + random.nextInt(4);
        for (int k = 0; k < count; k++) {
            bytes = mutateOnce(format, bytes, corpus, random, applied);
        }
        return bytes;
    }

    private static final long[] INTERESTING = {0, 1, 2, 3, 4, 5, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF,
        0x10000, 1 << 20, (1 << 28) - 1, 1 << 28, (1 << 28) + 1, Integer.MAX_VALUE, 0x80000000L, 0xFFFFFFFFL, -1, -2,
        Long.MAX_VALUE, Long.MIN_VALUE};

    private static byte[] mutateOnce(Format format, byte[] b, List<byte[]> corpus, Random random, List<String> applied) {
        if (b.length == 0) {
            applied.add("insert into empty");
            return new byte[] {(byte) random.nextInt()};
        }
        int at = random.nextInt(b.length);
        switch (random.nextInt(10)) {
            case 0 -> {
                byte[] c = b.clone();
                int flips = 1 + random.nextInt(8);
                for (int i = 0; i < flips; i++) {
                    int p = i == 0 ? at : random.nextInt(c.length);
                    c[p] ^= (byte) (1 << random.nextInt(8));
                }
                applied.add(flips + " bit flips from " + at);
                return c;
            }
            case 1 -> {
                byte[] c = b.clone();
                c[at] = (byte) random.nextInt();
                applied.add("byte at " + at);
                return c;
            }
            case 2 -> {
                int n = 1 + random.nextInt(16);
                byte[] insert = new byte[n];
                random.nextBytes(insert);
                applied.add("insert " + n + " at " + at);
                return splice(b, at, 0, insert);
            }
            case 3 -> {
                int n = 1 + random.nextInt(Math.min(16, b.length - at));
                applied.add("delete " + n + " at " + at);
                return splice(b, at, n, new byte[0]);
            }
            case 4 -> {
                int from = random.nextInt(b.length);
                int n = 1 + random.nextInt(Math.min(256, b.length - from));
                applied.add("duplicate " + n + " from " + from + " at " + at);
                return splice(b, at, 0, Arrays.copyOfRange(b, from, from + n));
            }
            case 5 -> {
                applied.add("truncate at " + at);
                return Arrays.copyOf(b, at);
            }
            case 6 -> {
                byte[] other = corpus.get(random.nextInt(corpus.size()));
                if (format == Format.KRYO && other.length > 0 && other[0] == 'Z') other = decompress(other);
                int from = random.nextInt(other.length);
                applied.add("splice at " + at + " with another stream from " + from);
                return concat(Arrays.copyOf(b, at), Arrays.copyOfRange(other, from, other.length));
            }
            default -> {
                return tamperLength(format, b, random, applied);
            }
        }
    }

    /** Format-aware: writes an interesting value where a length or count is (or may be). */
    private static byte[] tamperLength(Format format, byte[] b, Random random, List<String> applied) {
        long value = INTERESTING[random.nextInt(INTERESTING.length)];
        switch (format) {
            case KRYO -> {
                // a varint over whatever is at a random offset (lengths, counts, token refs, ids are varints)
                int at = random.nextInt(b.length);
                byte[] varint = varint(value);
                int replaced = Math.min(b.length - at, random.nextInt(varint.length + 1));
                applied.add("varint " + value + " at " + at);
                return splice(b, at, replaced, varint);
            }
            case KRYO_LZF -> {
                // the chunk header: type, compressed or uncompressed length
                List<Integer> chunks = lzfChunkStarts(b);
                int chunk = chunks.isEmpty() ? 0 : chunks.get(random.nextInt(chunks.size()));
                int field = chunk + 2 + random.nextInt(5);
                if (field + 1 >= b.length) field = Math.max(0, b.length - 2);
                byte[] c = b.clone();
                c[field] = (byte) (value >>> 8);
                if (field + 1 < c.length) c[field + 1] = (byte) value;
                applied.add("LZF header byte " + (field - chunk) + " of chunk at " + chunk + " := " + (value & 0xFFFF));
                return c;
            }
            case BSON -> {
                // an int32 (document length, string or binary length) at a document start or anywhere
                List<Integer> docs = bsonDocumentStarts(b);
                int at = random.nextBoolean() && !docs.isEmpty() ? docs.get(random.nextInt(docs.size()))
                        : random.nextInt(Math.max(1, b.length - 3));
                byte[] c = b.clone();
                for (int i = 0; i < 4 && at + i < c.length; i++) c[at + i] = (byte) (value >>> 8 * i);
                applied.add("int32 " + (int) value + " at " + at);
                return c;
            }
            case JSON -> {
                String text = new String(b, StandardCharsets.ISO_8859_1);
                int at = random.nextInt(b.length);
                String insert = switch (random.nextInt(5)) {
                    case 0 -> Long.toString(value);
                    case 1 -> "9".repeat(1 + random.nextInt(2000));
                    case 2 -> "[".repeat(1 + random.nextInt(3000));
                    case 3 -> "{\"a\":".repeat(1 + random.nextInt(3000));
                    default -> "1e" + value;
                };
                // replace a number if one starts here, else insert
                int end = at;
                while (end < text.length() && (Character.isDigit(text.charAt(end)) || text.charAt(end) == '-')) end++;
                applied.add("JSON " + abbreviate(insert) + " at " + at);
                return splice(b, at, end - at, insert.getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        throw new AssertionError(format);
    }

    private static String abbreviate(String s) {
        return s.length() <= 12 ? s : s.substring(0, 6) + "…(" + s.length() + ")";
    }

    static byte[] varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 8 && (v & ~0x7FL) != 0; i++) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    private static List<Integer> lzfChunkStarts(byte[] b) {
        List<Integer> starts = new ArrayList<>();
        int at = 0;
        while (at + 5 <= b.length && b[at] == 'Z' && b[at + 1] == 'V') {
            starts.add(at);
            int type = b[at + 2];
            int len = (b[at + 3] & 0xFF) << 8 | b[at + 4] & 0xFF;
            at += type == 0 ? 5 + len : 7 + len;
        }
        return starts;
    }

    private static List<Integer> bsonDocumentStarts(byte[] b) {
        List<Integer> starts = new ArrayList<>();
        int at = 0;
        while (at + 4 <= b.length) {
            starts.add(at);
            int len = (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
            if (len < 5 || len > b.length - at) break;
            at += len;
        }
        return starts;
    }

    private static byte[] decompress(byte[] lzf) {
        try (InputStream in = new com.ning.compress.lzf.LZFInputStream(new ByteArrayInputStream(lzf))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
        byte[] c = new byte[b.length - remove + insert.length];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(insert, 0, c, at, insert.length);
        System.arraycopy(b, at + remove, c, at + insert.length, b.length - at - remove);
        return c;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    // ---- replay ----

    /** {@code -Dsubgraphexport.fuzz.replay=KRYO:1234}: decodes that one case and prints what happened. */
    @org.junit.jupiter.api.Test
    void replay() {
        String spec = System.getProperty("subgraphexport.fuzz.replay");
        org.junit.jupiter.api.Assumptions.assumeTrue(spec != null, "no -Dsubgraphexport.fuzz.replay=<FORMAT>:<seed>");
        Format format = Format.valueOf(spec.substring(0, spec.indexOf(':')));
        long seed = Long.parseLong(spec.substring(spec.indexOf(':') + 1));
        Mutated m = mutate(format, corpus(format), seed);
        System.out.println("replay " + format + " seed " + seed + ": " + m.description() + "\n" + hex(m.bytes()));
        Result r = decode(format, m.bytes());
        if (r.thrown() != null) r.thrown().printStackTrace(System.out);
        System.out.println("outcome " + r.outcome() + ", " + r.records() + " records, allocated " + r.allocated()
                + " bytes, problem: " + r.problem());
        assertTrue(r.problem() == null, r.problem());
    }
}
