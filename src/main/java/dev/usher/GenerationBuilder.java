package dev.usher;

import dev.usher.admin.AdminListener;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertStorage;
import dev.usher.cert.CertStore;
import dev.usher.config.InsecureBackends;
import dev.usher.config.ListenAddress;
import dev.usher.config.StreamSetting;
import dev.usher.config.UsherConfig;
import dev.usher.observe.AccessLog;
import dev.usher.protocol.Http1Initializer;
import dev.usher.protocol.Http3Pipeline;
import dev.usher.protocol.HttpsInitializer;
import dev.usher.protocol.HttpsProtocols;
import dev.usher.protocol.QuicHandshakes;
import dev.usher.reload.Reloader;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.server.HttpListener;
import dev.usher.server.ListenException;
import dev.usher.server.QuicListener;
import dev.usher.rules.Networks;
import dev.usher.stream.PassthroughRoutes;
import dev.usher.stream.ProxyHeaderGate;
import dev.usher.stream.StreamTable;
import dev.usher.stream.TcpStreamInitializer;
import dev.usher.stream.UdpStreamListener;
import dev.usher.tls.QuicContexts;
import dev.usher.tls.TlsContexts;
import dev.usher.tls.TlsInitializer;
import io.netty.channel.ChannelHandler;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Makes the {@link Generation} for a config out of the one in service: the one path for start
 * ({@code prepare(NONE, config)}) and reload. Everything that can fail happens here, and nothing that the
 * generation in service notices: route tables are compiled (with the shared backend pools, keeping the backend
 * groups of sites whose backends did not change, so that a reload does not forget which backends are down),
 * listeners whose address changed are bound but do not accept yet, a changed access log is opened. Parts whose
 * settings did not change are taken over as they are. A failure closes what was made and leaves the generation in
 * service untouched.
 *
 * <p>Runs on the thread that starts or reloads (never an event loop: binding waits).
 */
final class GenerationBuilder {
    private static final System.Logger LOG = System.getLogger(GenerationBuilder.class.getName());

    private final Shared shared;
    /** Read per request by the listeners' pipelines: the route tables of the generation in service. */
    private final RouteTableHolder plainRoutes;
    private final RouteTableHolder secureRoutes;
    /** The admin endpoint's view of the server, asked per request. */
    private final Supplier<Generation> current;
    private final Supplier<Reloader> reloader;

    GenerationBuilder(Shared shared, Supplier<Generation> current, Supplier<Reloader> reloader) {
        this.shared = shared;
        this.current = current;
        this.reloader = reloader;
        this.plainRoutes = () -> current.get().plain();
        this.secureRoutes = () -> current.get().secure();
    }

    /** A prepare that failed: {@code setting} names the config setting it was preparing (may be empty). */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        private final String setting;

        Failure(String setting, String message, Throwable cause) {
            super(message, cause);
            this.setting = setting;
        }

        String setting() {
            return setting;
        }
    }

    /**
     * The generation for {@code next}, not yet in service.
     *
     * @param listeners filled with what changes in the listeners ({@code https 127.0.0.1:8443}, {@code admin closed})
     */
    Generation prepare(Generation previous, UsherConfig next, List<String> listeners) throws Failure {
        return new Preparation(previous, next, listeners).run();
    }

    /** The state of one prepare: the parts made so far, so that a failure can close them. */
    private final class Preparation {
        private final Generation previous;
        private final UsherConfig old;
        private final UsherConfig next;
        private final List<String> listeners;
        private final boolean httpsNext;
        private String preparing = "";
        private AccessLog accessLog;
        private CertManager certificates;
        private RouteTable secure;
        private RouteTable plain;
        private HttpListener http;
        private HttpListener https;
        private QuicListener quic;
        private AdminListener admin;
        private StreamTable streams;
        private final List<StreamSocket> streamSockets = new ArrayList<>();
        private Networks proxyHeaders;

        Preparation(Generation previous, UsherConfig next, List<String> listeners) {
            this.previous = previous;
            this.old = previous.config();
            this.next = next;
            this.listeners = listeners;
            this.httpsNext = next.listen().httpsOn() && next.anyHttps();
        }

        Generation run() throws Failure {
            for (String warning : InsecureBackends.warnings(next)) {
                LOG.log(Level.WARNING, warning);
            }
            try {
                proxyHeaders = Networks.of(next.listen().proxyProtocolFrom());
                accessLog = accessLog();
                certificates = certificates();
                secure = httpsNext || previous.secure() != null
                        ? RouteTable.compileSecure(next, shared.pools(), shared.services(), previous.secure())
                        : null;
                https = httpsListener();
                quic = quicListener();
                plain = https != null
                        ? RouteTable.compilePlain(next, shared.pools(), shared.services(), https.address().getPort(),
                        shared.answers()::http01, previous.plain())
                        : RouteTable.compile(next, shared.pools(), shared.services(), previous.plain());
                http = httpListener();
                admin = adminListener();
                streams = StreamTable.compile(next, shared.pools(), previous.streams());
                streamSockets();
                return generation();
            } catch (ListenException | RuntimeException e) {
                generation().closeAllBut(previous);
                if (e instanceof ListenException) {
                    throw new Failure(preparing, e.getMessage(), e);
                }
                LOG.log(Level.ERROR, "compiling the config failed", e);
                throw new Failure(preparing, "cannot compile the new config: " + e, e);
            }
        }

        private Generation generation() {
            return new Generation(next, plain, secure, certificates, http, https, quic, admin, accessLog,
                    streams == null ? StreamTable.EMPTY : streams, streamSockets,
                    proxyHeaders == null ? Networks.of(List.of()) : proxyHeaders);
        }

        /** A new access log when its setting changed (or the first one), else the one in service. */
        private AccessLog accessLog() {
            boolean first = old == null;
            if (!first && next.accessLog().equals(old.accessLog())
                    && next.anyAccessLog() == (previous.accessLog() != null)) {
                return previous.accessLog();
            }
            if (shared.accessLogs() == null) {
                if (next.anyAccessLog()) {
                    LOG.log(Level.WARNING, "reload: access logging starts at the next start (with the admin endpoint "
                            + "and the access log both off at start, requests are not observed at all)");
                }
                return null;
            }
            if (!next.anyAccessLog()) {
                return null;
            }
            preparing = "access_log";
            try {
                return new AccessLog(next.accessLog().file(), next.accessLog().on());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot open the access log " + next.accessLog().file(), e);
            } finally {
                preparing = "";
            }
        }

        /** The manager in service, or a new one (not started) when HTTPS starts now. */
        private CertManager certificates() {
            if (next.admin() != null && shared.metrics() == null) {
                LOG.log(Level.WARNING, "reload: the admin endpoint starts now, but /metrics only from the next start");
            }
            CertManager inService = previous.certificates();
            if (!httpsNext || inService != null) {
                if (old != null && !java.util.Objects.equals(next.storage(), old.storage())) {
                    LOG.log(Level.WARNING, "reload: storage: takes effect at the next start");
                }
                if (httpsNext && !next.dataDir().equals(old.dataDir())) {
                    LOG.log(Level.WARNING, "reload: data: {0} takes effect at the next start; certificates stay in "
                            + "{1}", next.dataDir(), old.dataDir());
                }
                return inService; // also when HTTPS is switched off: its names are retired when this one commits
            }
            CertStorage storage = shared.fleet() != null ? shared.fleet().storage() : new CertStore(next.dataDir());
            return new CertManager(storage, shared.answers(), shared.retry(), shared.filePoll());
        }

        private HttpListener httpsListener() throws ListenException {
            if (!httpsNext) {
                if (previous.https() != null) {
                    listeners.add("https closed");
                }
                return null;
            }
            if (previous.https() != null && next.listen().https().equals(old.listen().https())) {
                return previous.https();
            }
            preparing = "listen.https";
            ChannelHandler tls = new TlsInitializer(certificates, shared.answers(),
                    new TlsContexts(TlsContexts.HTTP_PROTOCOLS), () -> new HttpsProtocols(secureRoutes,
                    shared.compression(), shared.observer(), shared.altSvc()),
                    new PassthroughRoutes(() -> current.get().streams(), shared.streamObserver()));
            HttpListener bound = HttpListener.bind(next.listen().https(), shared.transport(), shared.loops(),
                    shared.connections().track(proxyHeaderGate(new HttpsInitializer(shared.limiter(), tls))));
            listeners.add("https " + Usher.hostPort(bound.address()));
            preparing = "";
            return bound;
        }

        /** HTTP/3 follows the HTTPS listener: same host, same actual port, over UDP. */
        private QuicListener quicListener() throws ListenException {
            if (!httpsNext || !shared.servesHttp3(next)) {
                if (previous.quic() != null) {
                    listeners.add("http3 closed");
                }
                return null;
            }
            if (previous.quic() != null && https == previous.https()) {
                return previous.quic();
            }
            preparing = "http3";
            QuicHandshakes handshakes = new QuicHandshakes();
            ChannelHandler codec = Http3Pipeline.codec(new QuicContexts(certificates), next, handshakes,
                    shared.connections().track(Http3Pipeline.connectionInitializer(secureRoutes, shared.limiter(),
                            shared.compression(), shared.observer(), shared.quicConnections(), handshakes)));
            InetSocketAddress tcp = https.address();
            QuicListener bound = QuicListener.bind(next.listen().https().host(), tcp.getPort(), shared.transport(),
                    shared.loops(), codec);
            listeners.add("http3 UDP " + Usher.hostPort(bound.address()));
            preparing = "";
            return bound;
        }

        private HttpListener httpListener() throws ListenException {
            if (previous.http() != null && next.listen().http().equals(old.listen().http())) {
                return previous.http();
            }
            preparing = "listen.http";
            HttpListener bound = HttpListener.bind(next.listen().http(), shared.transport(), shared.loops(),
                    shared.connections().track(proxyHeaderGate(new Http1Initializer(plainRoutes, shared.limiter(),
                            shared.compression(), shared.observer(), shared.httpConnections()))));
            listeners.add("http " + Usher.hostPort(bound.address()));
            preparing = "";
            return bound;
        }

        /**
         * One socket per stream: the one in service when the stream's address and transport stay (a changed stream
         * gets the new settings through the table, for new connections), else bound now, paused.
         */
        private void streamSockets() throws ListenException {
            for (StreamSetting stream : next.streams()) {
                StreamSocket kept = previous.streamSockets().stream().filter(s -> s.serves(stream)).findFirst()
                        .orElse(null);
                streamSockets.add(kept != null ? kept : bindStream(stream));
            }
            for (StreamSocket old : previous.streamSockets()) {
                if (!streamSockets.contains(old)) {
                    listeners.add("stream " + old.describe() + " closed");
                }
            }
        }

        private StreamSocket bindStream(StreamSetting stream) throws ListenException {
            preparing = "streams." + stream.name();
            Supplier<StreamTable> tables = () -> current.get().streams();
            StreamSocket bound;
            if (stream.protocol() == StreamSetting.Protocol.TCP) {
                TcpStreamInitializer initializer = new TcpStreamInitializer(stream.listen(), tables,
                        shared.streamObserver());
                HttpListener listener = HttpListener.bind(stream.listen(), shared.transport(), shared.loops(),
                        shared.connections().track(proxyHeaderGate(initializer)));
                bound = new StreamSocket(stream.listen(), stream.protocol(), listener, initializer, null);
            } else {
                try {
                    bound = new StreamSocket(stream.listen(), stream.protocol(), null, null, UdpStreamListener.bind(
                            stream.listen(), shared.transport(), shared.loops(), tables, shared.streamObserver()));
                } catch (java.io.UncheckedIOException e) {
                    throw new ListenException("cannot listen on " + stream.listen() + "/udp: "
                            + e.getCause().getMessage(), e);
                }
            }
            listeners.add("stream " + bound.describe());
            preparing = "";
            return bound;
        }

        /**
         * {@code next} behind the PROXY header reader for connections from {@code listen.proxy_protocol}'s load
         * balancers, as the generation in service lists them (a reload that keeps the listener changes the list).
         */
        private ChannelHandler proxyHeaderGate(ChannelHandler next) {
            return new ProxyHeaderGate(() -> current.get().proxyHeaders(), next);
        }

        private AdminListener adminListener() throws ListenException {
            ListenAddress address = next.admin();
            if (address == null) {
                if (previous.admin() != null) {
                    listeners.add("admin closed");
                }
                return null;
            }
            if (previous.admin() != null && Objects.equals(address, old.admin())) {
                return previous.admin();
            }
            preparing = "admin";
            AdminListener bound = AdminListener.bind(address, shared.transport(), shared.loops(),
                    () -> current.get().certificates(), reloader, shared.metrics(),
                    () -> current.get().config().adminSecret(), () -> current.get().tables(),
                    () -> current.get().streams().groups(),
                    shared.fleetForAdmin());
            listeners.add("admin " + Usher.hostPort(bound.address()));
            preparing = "";
            return bound;
        }
    }
}
