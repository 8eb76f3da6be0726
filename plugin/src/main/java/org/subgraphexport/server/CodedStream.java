package org.subgraphexport.server;

import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Consumer;
import org.subgraphexport.encode.AsyncBlockOutputStream;
import org.subgraphexport.encode.ContentCoding;

/**
 * The response body in its negotiated content coding ({@link AcceptEncoding.Choice}): everything an encoder writes
 * goes through here to the client. The coding is decided before the first byte reaches the target and announced
 * once ({@code announce} sets {@code Content-Encoding} and the ETag): at once, unless a small response could go out
 * as identity; then the first bytes are held, at most {@code minSize} of them, until either more arrive (the
 * preferred coding) or {@link #finish} comes first (identity). An encoder hands its buffer over at the end of a
 * record once it holds 64 KiB or more, so holding back costs no latency beyond what the encoder holds anyway.
 *
 * <p>Compression runs on a compressor thread ({@link AsyncBlockOutputStream}); {@link #finish} completes the frame,
 * also after an error record, so a client always gets a whole frame. {@link #abort} drops it.
 */
final class CodedStream extends OutputStream {
    private final OutputStream target;
    private final AcceptEncoding.Choice choice;
    private final Consumer<ContentCoding> announce;
    /** Until the coding is decided: the bytes held back. */
    private byte[] held;
    private int heldLength;
    /** Where bytes go once the coding is decided: the target or the compressor; null before. */
    private OutputStream sink;
    private AsyncBlockOutputStream compressor;
    private ContentCoding coding;

    CodedStream(OutputStream target, AcceptEncoding.Choice choice, Consumer<ContentCoding> announce)
            throws IOException {
        this.target = target;
        this.choice = choice;
        this.announce = announce;
        if (choice.preferred() == ContentCoding.IDENTITY || !choice.identityAcceptable() || choice.minSize() == 0) {
            decide(choice.preferred());
        } else {
            held = new byte[(int) choice.minSize()];
        }
    }

    /** The coding the body went out in; null before it is decided. */
    ContentCoding coding() {
        return coding;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (sink == null) {
            if (heldLength + len <= held.length) {
                System.arraycopy(b, off, held, heldLength, len);
                heldLength += len;
                return;
            }
            decide(choice.preferred());
        }
        sink.write(b, off, len);
    }

    /** Before the coding is decided nothing has gone out, so there is nothing to flush. */
    @Override
    public void flush() throws IOException {
        if (sink != null) sink.flush();
    }

    /** Decides the coding if that is still open (the body ended small), completes the frame and flushes. */
    void finish() throws IOException {
        if (sink == null) decide(choice.forSize(heldLength));
        if (compressor != null) {
            compressor.finish();
        } else {
            target.flush();
        }
    }

    /** Stops the compressor, if any, without completing the frame; safe at any time, also after {@link #finish}. */
    void abort() {
        if (compressor != null) compressor.abort();
    }

    private void decide(ContentCoding chosen) throws IOException {
        coding = chosen;
        announce.accept(chosen);
        if (chosen == ContentCoding.IDENTITY) {
            sink = target;
        } else {
            compressor = AsyncBlockOutputStream.open(chosen, target, choice.zstdLevel());
            sink = compressor;
        }
        if (heldLength > 0) sink.write(held, 0, heldLength);
        held = null;
    }
}
