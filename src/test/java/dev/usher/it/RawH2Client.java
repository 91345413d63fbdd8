package dev.usher.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;

/**
 * A bare HTTP/2 client over TLS for what curl and nghttp cannot do: send exactly the frames a test wants (a CONNECT,
 * a flood of resets) and see exactly the frames that come back (GOAWAY and its error code, RST_STREAM, EOF).
 * Header blocks are coded with Netty's HPACK coder; everything else is written by hand.
 */
final class RawH2Client implements AutoCloseable {
    static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8;

    /** One frame as received; {@code type} -1 stands for the end of the connection. */
    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return (payload[at] & 0xff) << 24 | (payload[at + 1] & 0xff) << 16 | (payload[at + 2] & 0xff) << 8
                    | payload[at + 3] & 0xff;
        }
    }

    private final SSLSocket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

    RawH2Client(int port) throws Exception {
        this(port, null);
    }

    /** @param serverName the name sent in SNI, or null for none */
    RawH2Client(int port, String serverName) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[]{new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        socket = (SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1", port);
        SSLParameters params = socket.getSSLParameters();
        params.setApplicationProtocols(new String[]{"h2"});
        if (serverName != null) {
            params.setServerNames(java.util.List.of(new javax.net.ssl.SNIHostName(serverName)));
        }
        socket.setSSLParameters(params);
        socket.startHandshake();
        if (!"h2".equals(socket.getApplicationProtocol())) {
            throw new IllegalStateException("ALPN chose " + socket.getApplicationProtocol());
        }
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        frame(SETTINGS, 0, 0, new byte[0]);
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] head = {(byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8),
                (byte) stream};
        out.write(head);
        out.write(payload);
        out.flush();
    }

    /** Sends a HEADERS frame (END_HEADERS, and END_STREAM when {@code endStream}). */
    void headers(int stream, Http2Headers headers, boolean endStream) throws Exception {
        ByteBuf block = Unpooled.buffer();
        encoder.encodeHeaders(stream, headers, block);
        byte[] bytes = new byte[block.readableBytes()];
        block.readBytes(bytes);
        block.release();
        frame(HEADERS, 0x4 | (endStream ? 0x1 : 0), stream, bytes);
    }

    void reset(int stream) throws IOException {
        frame(RST_STREAM, 0, stream, new byte[]{0, 0, 0, 8}); // CANCEL
    }

    /** The next frame (SETTINGS are acknowledged on the way), or type -1 at the end of the connection. */
    Frame read() throws IOException {
        while (true) {
            byte[] head = new byte[9];
            try {
                in.readFully(head);
            } catch (EOFException | SocketTimeoutException e) {
                return new Frame(-1, 0, 0, new byte[0]);
            } catch (IOException e) {
                return new Frame(-1, 0, 0, new byte[0]); // reset by the server
            }
            int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            Frame f = new Frame(head[3], head[4] & 0xff, ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16
                    | (head[7] & 0xff) << 8 | head[8] & 0xff, payload);
            if (f.type == SETTINGS && (f.flags & 1) == 0) {
                frame(SETTINGS, 1, 0, new byte[0]);
            }
            return f;
        }
    }

    /** Reads until a frame of {@code type} (or the end, type -1). */
    Frame await(int type) throws IOException {
        Frame f;
        do {
            f = read();
        } while (f.type != type && f.type != -1);
        return f;
    }

    Http2Headers decode(Frame headers) throws Exception {
        return decoder.decodeHeaders(headers.stream(), Unpooled.wrappedBuffer(headers.payload()));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
