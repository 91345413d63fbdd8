package dev.usher.server;

import dev.usher.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramChannelConfig;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.Locale;

/**
 * The UDP socket HTTP/3 (QUIC) is served on: the HTTPS listener's address and port, over UDP. Binding it checks the
 * socket buffers and warns when they are too small for QUIC to go fast (the Linux default of about 208 KiB drops
 * packets under load; quic-go and Caddy ask for 7.5 MB).
 *
 * <p>All QUIC connections of the socket run on the one event loop it is registered on.
 */
public final class QuicListener implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(QuicListener.class.getName());
    /** The socket buffer size asked for, as quic-go recommends (the kernel caps it at net.core.[rw]mem_max). */
    static final int WANTED_BUFFER = 7_500_000;
    /** The fix the warning names. */
    static final String SYSCTL = "sysctl -w net.core.rmem_max=7500000 net.core.wmem_max=7500000";

    private final Channel channel;

    private QuicListener(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds UDP {@code host:port} with {@code codec} (the QUIC server codec) as its handler; throws
     * {@link ListenException} naming the port and protocol when it cannot (most often: another process has the UDP
     * port). Datagrams are read once {@link #startAccepting} is called.
     *
     * @param host the HTTPS listener's host, empty for every interface
     * @param port the HTTPS listener's actual port
     */
    public static QuicListener bind(String host, int port, Transport transport, EventLoopGroup loops,
                                    ChannelHandler codec) throws ListenException {
        Bootstrap bootstrap = new Bootstrap()
                .group(loops)
                .channel(transport.datagramChannel())
                .option(ChannelOption.SO_RCVBUF, WANTED_BUFFER)
                .option(ChannelOption.SO_SNDBUF, WANTED_BUFFER)
                .option(ChannelOption.AUTO_READ, false)
                .handler(codec);
        InetSocketAddress socket = host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        Channel bound;
        try {
            bound = bootstrap.bind(socket).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new ListenException(explain(host, port, e), e);
        }
        QuicListener listener = new QuicListener(bound);
        listener.checkBuffers();
        return listener;
    }

    private static String explain(String host, int port, Exception e) {
        String where = "cannot listen on UDP " + (host.isEmpty() ? "" : host) + ":" + port + " for HTTP/3 (QUIC)";
        String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        if (message.contains("already in use")) {
            return where + ": the UDP port is already in use (another server with HTTP/3, e.g. Caddy?); stop it, "
                    + "or set http3: false to serve HTTPS over TCP only";
        }
        if (message.contains("permission denied") || message.contains("eacces")) {
            return where + ": permission denied (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability)";
        }
        if (e instanceof BindException || e instanceof SocketException) {
            return where + ": " + e.getMessage();
        }
        return where + ": " + e;
    }

    /** One warning when the kernel gave smaller socket buffers than asked for. */
    private void checkBuffers() {
        DatagramChannelConfig config = (DatagramChannelConfig) channel.config();
        int receive = config.getReceiveBufferSize();
        int send = config.getSendBufferSize();
        String advice = bufferAdvice(receive, send);
        if (advice != null) {
            LOG.log(System.Logger.Level.WARNING, advice);
        }
    }

    /** The warning for these buffer sizes (as the kernel reports them), or null when they are big enough. */
    static String bufferAdvice(int receive, int send) {
        if (receive >= WANTED_BUFFER && send >= WANTED_BUFFER) {
            return null;
        }
        return "HTTP/3: the UDP socket buffers are small (receive " + kib(receive) + ", send " + kib(send)
                + ", wanted " + kib(WANTED_BUFFER) + "), so QUIC may drop packets and be slow under load; as root: "
                + SYSCTL + " (and in /etc/sysctl.d/ to keep it)";
    }

    private static String kib(int bytes) {
        return bytes / 1024 + " KiB";
    }

    /** Starts reading datagrams (bound, but not read until the config it serves is in place, as for TCP). */
    public void startAccepting() {
        channel.config().setAutoRead(true);
    }

    /** The address actually bound. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Closes the UDP socket: every QUIC connection on it ends with it (drain them first for a graceful stop). */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
