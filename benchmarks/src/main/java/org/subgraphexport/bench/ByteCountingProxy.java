package org.subgraphexport.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy that counts the bytes the server sends to the client: the bytes on the wire for every row,
 * HTTP (headers and chunk framing included) and Bolt alike. Used in the untimed first pass only; the timed runs
 * connect directly.
 */
final class ByteCountingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final AtomicLong toClient = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    ByteCountingProxy(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofPlatform().daemon().name("proxy-accept-" + target.getPort()).start(this::accept);
    }

    /** {@code original} with host and port replaced by the proxy's. */
    URI via(URI original) {
        return URI.create(original.getScheme() + "://127.0.0.1:" + server.getLocalPort());
    }

    /** Bytes sent from server to client so far, over all connections. */
    long bytesToClient() {
        return toClient.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, null);
                pump(upstream, client, toClient);
            } catch (IOException e) {
                if (!server.isClosed()) {
                    System.err.println("proxy: " + e);
                }
            }
        }
    }

    private static void pump(Socket from, Socket to, AtomicLong counter) {
        Thread.ofPlatform().daemon().start(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (counter != null) counter.addAndGet(n);
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // one side closed: close both
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        });
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
