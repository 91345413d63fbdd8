package dev.usher.config;

import java.nio.file.Path;
import java.util.List;

/**
 * A whole, validated configuration: what {@link ConfigLoader} makes of one {@code usher.yaml}.
 * Immutable; a reload builds a new one beside the old.
 *
 * @param source   the file it was read from, or a name such as {@code <embedded demo>}
 * @param listen   the addresses Usher binds
 * @param dataDir  where certificates, keys and other state live
 * @param timeouts global time limits; sites may override some
 * @param limits   global size and count limits
 * @param sites    the sites, in file order
 * @param trustedProxies networks whose {@code X-Forwarded-For} (and {@code CF-Connecting-IP}) Usher believes;
 *                       empty: the client is the TCP peer, always
 * @param acme     the ACME CA and how to talk to it ({@code email:} and {@code acme:})
 * @param admin    where the admin endpoint listens ({@code admin:}), or null when off; a non-loopback address only
 *                 with a secret
 * @param accessLog the top-level {@code access_log:} (sites carry their effective choice in {@link Site#accessLog})
 * @param adminSecret bcrypt hash of the token every admin request must carry ({@code admin: {secret: ...}}), or
 *                 null for none (then the endpoint is on loopback only)
 * @param docker   where to discover label sites ({@code docker:}), or null when off
 * @param labelSites where each site announced by container labels comes from; those sites are in {@code sites} too
 *                 (after the file's). Empty for a config as read from the file ({@link LabelSites} adds them)
 * @param streams  the TCP and UDP ports relayed as they are ({@code streams:}), in file order
 * @param errorPages the top-level {@code error_pages:} (for requests that match no site; every site carries them
 *                 under its own in its traffic options)
 * @param crowdsec  the CrowdSec local API whose bans Usher enforces ({@code crowdsec:}), or null when off
 * @param storage  the Redis a fleet shares certificates through ({@code storage:}), or null: the data directory only
 */
public record UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                          List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin,
                          AccessLogSetting accessLog, String adminSecret, DockerSetting docker,
                          List<LabelSite> labelSites, List<StreamSetting> streams, ErrorPageSet errorPages,
                          CrowdSecSetting crowdsec, StorageSetting storage) {
    /** The admin endpoint's default address. */
    public static final ListenAddress DEFAULT_ADMIN = new ListenAddress("127.0.0.1", 2019);

    /** A config with the default admin endpoint. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, DEFAULT_ADMIN);
    }

    /** A config with no access log. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, admin, AccessLogSetting.OFF);
    }

    /** A config whose admin endpoint needs no secret. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin,
                       AccessLogSetting accessLog) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, admin, accessLog, null);
    }

    /** A config without container discovery. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin,
                       AccessLogSetting accessLog, String adminSecret) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, admin, accessLog, adminSecret,
                null, List.of());
    }

    /** A config without streams, top-level error pages or CrowdSec. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin,
                       AccessLogSetting accessLog, String adminSecret, DockerSetting docker,
                       List<LabelSite> labelSites) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, admin, accessLog, adminSecret,
                docker, labelSites, List.of(), ErrorPageSet.NONE, null);
    }

    /** A config that keeps certificates in the data directory only (no {@code storage:}). */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites, List<Cidr> trustedProxies, AcmeSettings acme, ListenAddress admin,
                       AccessLogSetting accessLog, String adminSecret, DockerSetting docker,
                       List<LabelSite> labelSites, List<StreamSetting> streams, ErrorPageSet errorPages,
                       CrowdSecSetting crowdsec) {
        this(source, listen, dataDir, timeouts, limits, sites, trustedProxies, acme, admin, accessLog, adminSecret,
                docker, labelSites, streams, errorPages, crowdsec, null);
    }

    public UsherConfig {
        sites = List.copyOf(sites);
        trustedProxies = List.copyOf(trustedProxies);
        labelSites = List.copyOf(labelSites);
        streams = List.copyOf(streams);
        errorPages = errorPages == null ? ErrorPageSet.NONE : errorPages;
    }

    /** This config with {@code more} sites announced by labels, after the file's, and where they come from. */
    UsherConfig withLabelSites(List<Site> more, List<LabelSite> origins) {
        List<Site> all = new java.util.ArrayList<>(sites);
        all.addAll(more);
        return new UsherConfig(source, listen, dataDir, timeouts, limits, all, trustedProxies, acme, admin, accessLog,
                adminSecret, docker, origins, streams, errorPages, crowdsec, storage);
    }

    /** Where the site {@code name} comes from when labels announced it; empty for a site of the file. */
    public java.util.Optional<LabelSite> labelSite(String name) {
        return labelSites.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** A config that trusts no proxy. */
    public UsherConfig(String source, Listen listen, Path dataDir, Timeouts timeouts, Limits limits,
                       List<Site> sites) {
        this(source, listen, dataDir, timeouts, limits, sites, List.of(), AcmeSettings.DEFAULTS);
    }

    /**
     * True when any request or stream may be logged: the top-level access log is on, or a site or stream turns it on
     * for itself.
     */
    public boolean anyAccessLog() {
        return accessLog.on() || sites.stream().anyMatch(Site::accessLog)
                || streams.stream().anyMatch(StreamSetting::accessLog);
    }

    /** True when a site's TLS connections are relayed unopened by server name ({@code passthrough: true}). */
    public boolean anyPassthrough() {
        return sites.stream().anyMatch(Site::passthrough);
    }

    /** True when at least one site is served over HTTPS. */
    public boolean anyHttps() {
        return sites.stream().anyMatch(Site::https);
    }
}
