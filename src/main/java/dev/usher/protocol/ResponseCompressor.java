package dev.usher.protocol;

import dev.usher.proxy.Http1ProxyHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.Zstd;
import io.netty.handler.codec.http.HttpContentEncoder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * Compresses HTTP/1.1 response bodies on their way to the client, streaming: zstd when the client takes it and the
 * native library loaded, else gzip (JDK zlib). Sits between the HTTP codec and the proxy handler; built on Netty's
 * {@link HttpContentEncoder}, which runs one encoder per response body and turns a compressed response into a
 * chunked one (a full response keeps a recounted Content-Length).
 *
 * <p>A response is compressed only when all hold: the site allows it ({@link #ALLOWED}); it is a
 * {@linkplain CompressPolicy#candidate candidate} (a compressible Content-Type, not encoded already, no
 * {@code no-transform}, not a range, at least {@value CompressPolicy#MIN_LENGTH} bytes when its length is known);
 * and its request was not HEAD, was HTTP/1.1 (an HTTP/1.0 client cannot take the chunked body a compressed stream
 * needs) and {@linkplain CompressAcceptEncoding accepts} zstd or gzip. Then Content-Length goes, Content-Encoding
 * is set, a strong ETag becomes weak and Vary gains Accept-Encoding; a candidate left uncompressed only because of
 * its request gains the Vary too. Anything else passes untouched.
 *
 * <p>Levels: gzip 5 and zstd 3, good ratios for little CPU on a small server. Every piece of body is compressed
 * and flushed as it comes, so streams stay live and memory per response is the codec's state (about 300 KiB for
 * gzip, 2 MiB for zstd), never the body.
 *
 * <p>Interim responses (1xx) pass untouched and use up nothing, so a 100-continue or a 101 before a switch to a raw
 * relay is safe. After a 101 this handler can be removed with the codec: it holds no bytes (its inbound side only
 * looks at requests) and frees any encoder on removal.
 *
 * <p>Threading: one instance per connection, used on its event loop only.
 */
final class ResponseCompressor extends HttpContentEncoder {
    /**
     * Whether the site of the current request allows compression: the proxy sets it on the channel before writing
     * a response; it is read, and cleared, when that response's head passes here, so it applies to that one
     * response only. Absent means allowed. Interim (1xx) responses neither read nor clear it.
     */
    public static final AttributeKey<Boolean> ALLOWED = Http1ProxyHandler.COMPRESS;

    static final int GZIP_LEVEL = 5;
    static final int ZSTD_LEVEL = 3;
    /**
     * Requests answered by nothing yet. The proxy reads one socket read at a time, so this is bounded by the
     * smallest requests that fit in one read; a pipeline deeper than this is abuse and closes the connection.
     */
    private static final int MAX_PIPELINE_DEPTH = 4096;
    /** Stands for "compress nothing for this request" in the queue, which takes no nulls. */
    private static final String IDENTITY = "identity";
    private static final System.Logger LOG = System.getLogger(ResponseCompressor.class.getName());
    /** Decided once per process, with one log line when zstd cannot be used. */
    private static final boolean ZSTD_LOADED = loadZstd();

    private final boolean zstd;
    private final CompressBudget budget;
    /**
     * For each request still unanswered, in order: the coding its response gets if it is a candidate. It runs beside
     * Netty's own queue (private, and holding only the raw header) and is pushed and popped at the same points: one
     * entry per decoded request, failed ones included, popped by each final (non-1xx) response head.
     */
    private final ArrayDeque<String> codings = new ArrayDeque<>(4);
    private ChannelHandlerContext ctx;
    /** The coding chosen for the response head being encoded now; taken by {@link #beginEncode}. */
    private String chosen;

    /** A compressor offering zstd (when its native library loaded) and gzip, with its own stream budget. */
    public ResponseCompressor() {
        this(true, new CompressBudget());
    }

    /** A compressor sharing {@code budget} with every other connection of the listener. */
    ResponseCompressor(CompressBudget budget) {
        this(true, budget);
    }

    /**
     * @param zstd   whether to offer zstd at all (it is offered only if its native library loaded too)
     * @param budget the cap on compression streams open at once, shared by a listener's connections
     */
    ResponseCompressor(boolean zstd, CompressBudget budget) {
        super(MAX_PIPELINE_DEPTH);
        this.zstd = zstd && ZSTD_LOADED;
        this.budget = budget;
    }

    /** @param zstd whether to offer zstd at all (it is offered only if its native library loaded too) */
    ResponseCompressor(boolean zstd) {
        this(zstd, new CompressBudget());
    }

    private static boolean loadZstd() {
        if (Zstd.isAvailable()) {
            return true;
        }
        LOG.log(Level.WARNING, "zstd compression is unavailable ({0}); responses are compressed with gzip only",
                String.valueOf(Zstd.cause()));
        return false;
    }

    /** True when this process can compress with zstd. */
    static boolean zstdLoaded() {
        return ZSTD_LOADED;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        super.handlerAdded(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, HttpRequest request, List<Object> out) throws Exception {
        super.decode(ctx, request, out);
        // Decided now, while the request is as the client sent it (the proxy rewrites it afterwards).
        String coding = null;
        HttpMethod method = request.method();
        if (!HttpMethod.HEAD.equals(method) && !HttpMethod.CONNECT.equals(method)
                && !HttpVersion.HTTP_1_0.equals(request.protocolVersion())) {
            // Usually one Accept-Encoding header, read as it is; several are joined (RFC 9110 §5.3).
            Iterator<? extends CharSequence> accepted = request.headers().valueCharSequenceIterator(
                    HttpHeaderNames.ACCEPT_ENCODING);
            if (accepted.hasNext()) {
                CharSequence first = accepted.next();
                coding = CompressAcceptEncoding.choose(accepted.hasNext() ? joined(first, accepted) : first, zstd);
            }
        }
        codings.add(coding == null ? IDENTITY : coding);
    }

    private static String joined(CharSequence first, Iterator<? extends CharSequence> rest) {
        StringBuilder all = new StringBuilder(first);
        while (rest.hasNext()) {
            all.append(',').append(rest.next());
        }
        return all.toString();
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, HttpObject msg, List<Object> out) throws Exception {
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            chosen = decide(response);
        }
        super.encode(ctx, msg, out);
    }

    /** Applies the header rules to a final response head and returns its coding, or null to pass it through. */
    private String decide(HttpResponse response) {
        String coding = codings.poll(); // null only when there are more responses than requests: super refuses it
        Boolean allowed = ctx.channel().attr(ALLOWED).getAndSet(null);
        if (coding == null || Boolean.FALSE.equals(allowed) || !CompressPolicy.candidate(response)) {
            return null;
        }
        CompressPolicy.addVary(response.headers());
        if (coding == IDENTITY || !HttpVersion.HTTP_1_1.equals(response.protocolVersion())) {
            return null;
        }
        if (!budget.take(coding)) {
            return null; // too many streams open at once: this one goes out as it is
        }
        CompressPolicy.weakenEtag(response.headers());
        return coding;
    }

    @Override
    protected Result beginEncode(HttpResponse response, String acceptEncoding) {
        String coding = chosen;
        chosen = null;
        if (coding == null) {
            return null;
        }
        // Like HttpContentCompressor: the encoder's channel shares the connection's allocator and id.
        Channel channel = ctx.channel();
        return new Result(coding, EmbeddedChannel.builder()
                .channelId(channel.id())
                .hasDisconnect(channel.metadata().hasDisconnect())
                .config(channel.config())
                .handlers(budget.releaser(coding), newEncoder(coding))
                .build());
    }

    private ChannelHandler newEncoder(String coding) {
        if (coding.equals(CompressAcceptEncoding.ZSTD)) {
            return new CompressZstdEncoder(ZSTD_LEVEL);
        }
        // JDK zlib, windowBits 15 and memLevel 8 (its fixed values): no extra library, about 260 KiB per stream,
        // reused from response to response.
        return new CompressGzipEncoder(budget.deflaters());
    }
}
