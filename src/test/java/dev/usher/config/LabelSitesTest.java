package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Sites from container labels: read by the file's readers, one container at a time, merged into one table. */
class LabelSitesTest {
    private static final String HASH = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";

    private static UsherConfig file(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "usher.yaml");
    }

    private static UsherConfig docker() throws ConfigException {
        return file("docker: {socket: /run/test.sock}\nsites:\n  file.example.com: 127.0.0.1:9000\n");
    }

    private static DiscoveredContainer container(String name, Map<String, String> labels) {
        return new DiscoveredContainer("id-" + name, name, labels, Map.of("web", address(name)),
                List.of(80));
    }

    /** The address of the container {@code name} on the network web: one per name. */
    private static String address(String name) {
        return "10.1.0." + (Math.floorMod(name.hashCode(), 250) + 2);
    }

    private static List<String> errors(LabelSites.Result result) {
        return result.errors().stream().map(ConfigError::format).toList();
    }

    @Test
    void readsTheDockerSection() throws Exception {
        assertThat(file("docker: {socket: unix:///run/podman/podman.sock, network: web}\n").docker())
                .isEqualTo(new DockerSetting(java.nio.file.Path.of("/run/podman/podman.sock"), "web"));
        assertThat(file("docker: true\n").docker()).isEqualTo(new DockerSetting(DockerSetting.DEFAULT_SOCKET, null));
        assertThat(file("docker: {}\n").docker()).isEqualTo(new DockerSetting(DockerSetting.DEFAULT_SOCKET, null));
        assertThat(file("docker: false\n").docker()).isNull();
        assertThat(file("sites: {}\n").docker()).isNull();
        try {
            file("docker: {socket: tcp://127.0.0.1:2375, netwrk: web}\n");
            throw new AssertionError("accepted");
        } catch (ConfigException e) {
            assertThat(e.errors()).extracting(ConfigError::format).containsExactly(
                    "usher.yaml:1:18: docker.socket: Usher reads the Docker API over a unix socket only, not "
                            + "tcp://127.0.0.1:2375; to limit what it may ask, put a read-only socket proxy in "
                            + "between that listens on a unix socket",
                    "usher.yaml:1:40: docker.netwrk: unknown key \"netwrk\"; did you mean \"network\"?");
        }
    }

    @Test
    void aContainerWithUsherLabelsIsASiteReadAsTheFileWouldBe() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(container("app", Map.of(
                "usher.host", "app.example.com, www.app.example.com",
                "usher.port", "8080",
                "usher.gzip", "false",
                "usher.timeouts.read", "5m",
                "usher.headers.X-Frame-Options", "DENY",
                "usher.basic_auth.alice", HASH))));

        assertThat(result.errors()).isEmpty();
        List<Site> sites = result.config().sites();
        assertThat(sites).extracting(Site::name)
                .containsExactly("file.example.com", "app.example.com", "www.app.example.com");
        Site app = sites.get(1);
        assertThat(app.upstreams()).containsExactly(new UpstreamAddress(address("app"), 8080));
        assertThat(app.traffic().compress()).isFalse();
        assertThat(app.traffic().readTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(app.traffic().responseHeaders()).containsExactly(
                new HeaderRule(HeaderRule.Op.SET, "X-Frame-Options", "DENY"));
        assertThat(app.traffic().access().basicAuth()).containsKey("alice");
        assertThat(app.https()).isTrue();
        assertThat(result.config().labelSite("app.example.com")).contains(new LabelSite("app.example.com",
                List.of(new LabelSite.Backend("app", "web", new UpstreamAddress(address("app"), 8080)))));
        assertThat(result.config().labelSite("file.example.com")).isEmpty();
    }

    @Test
    void aBadLabelIsAnErrorLikeTheFilesThatSkipsOnlyThatContainer() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(
                container("bad", Map.of("usher.host", "bad.example.com", "usher.gzip", "yes",
                        "usher.rate_limt.requests", "5")),
                container("good", Map.of("usher.host", "good.example.com"))));

        assertThat(errors(result)).containsExactly(
                "container bad: label usher.gzip: expected true or false, found a string (\"yes\"); YAML 1.2 reads "
                        + "yes as text, so write true or false",
                "container bad: label usher.rate_limt: unknown key \"rate_limt\"; did you mean \"rate_limit\"?");
        assertThat(result.config().sites()).extracting(Site::name)
                .containsExactly("file.example.com", "good.example.com");
    }

    @Test
    void labelsCannotNameADnsProviderButGetAWildcardThroughTheFilesOwn() throws Exception {
        UsherConfig file = file("docker: {socket: /run/test.sock}\nacme: {dns: {provider: exec, command: /bin/true}}\n"
                + "sites:\n  file.example.com: 127.0.0.1:9000\n");
        LabelSites.Result result = LabelSites.merge(file, List.of(
                container("sneaky", Map.of("usher.host", "sneaky.example.com", "usher.tls.dns.provider", "exec",
                        "usher.tls.dns.command", "/bin/sh")),
                container("shared", Map.of("usher.host", "shared.example.com", "usher.tls.wildcard", "true"))));
        assertThat(errors(result)).containsExactly("container sneaky: label usher.tls.dns: tls.dns cannot come from "
                + "container labels (it names programs and secret files of this machine); set acme.dns, or the "
                + "site's tls.dns, in usher.yaml");
        Site shared = result.config().sites().stream().filter(s -> s.name().equals("shared.example.com"))
                .findFirst().orElseThrow();
        assertThat(shared.tls().certificateName(shared.name())).isEqualTo("*.example.com");
        assertThat(result.config().sites()).extracting(Site::name).doesNotContain("sneaky.example.com");
    }

    @Test
    void labelsCannotNameFilesOfThisMachine() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(
                container("root", Map.of("usher.host", "root.example.com", "usher.root", "/etc")),
                container("pages", Map.of("usher.host", "pages.example.com", "usher.error_pages.502", "/etc/shadow")),
                container("flag", Map.of("usher.host", "flag.example.com", "usher.maintenance", "/etc/passwd")),
                container("path", Map.of("usher.host", "path.example.com", "usher.paths", "{/x/: {root: /etc}}")),
                container("cert", Map.of("usher.host", "cert.example.com", "usher.tls.cert", "/etc/usher/a.pem",
                        "usher.tls.key", "/etc/usher/a.key")),
                container("ca", Map.of("usher.host", "ca.example.com", "usher.upstream_tls.ca", "/etc/ssl/x.pem")),
                container("client", Map.of("usher.host", "client.example.com",
                        "usher.paths", "{/x/: {upstream_tls: {client_key: /etc/k}}}")),
                container("auth", Map.of("usher.host", "auth.example.com", "usher.forward_auth.url", "https://sso:443",
                        "usher.forward_auth.tls.ca", "/etc/ssl/private/ca.pem")),
                container("inline", Map.of("usher.host", "inline.example.com", "usher.tls", "{cert: /a.pem, key: /a.key}")),
                container("fine", Map.of("usher.host", "fine.example.com", "usher.wait_for_backend", "10s"))));
        assertThat(errors(result)).hasSize(11).allSatisfy(e -> assertThat(e).contains("cannot come from container "
                + "labels (it names files of this machine)"));
        assertThat(result.config().sites()).extracting(Site::name).containsExactly("file.example.com",
                "fine.example.com");
    }

    @Test
    void labelsThatCannotBeASiteSayWhy() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(
                container("a", Map.of("usher.gzip", "true")),
                container("b", Map.of("usher.host", "b.example.com", "usher.to", "elsewhere:80")),
                container("c", Map.of("usher.host", "c.example.com", "usher.port", "99999")),
                container("d", Map.of("usher.host", "d.example.com:8080")),
                container("e", Map.of("usher.host", "e.example.com", "usher.health", "{path: /h}",
                        "usher.health.interval", "5s")),
                container("f", Map.of("usher.host", "f.example.com", "usher.respond", "{status: [}")),
                container("g", Map.of("usher.host", "g.example.com", "usher.headers", "{a: [}"))));

        assertThat(errors(result)).containsExactly(
                "container a: has usher.* labels but no usher.host; add usher.host=NAME (several names "
                        + "comma-separated)",
                "container b: label usher.to: a label site forwards to its own container; usher.port picks the port "
                        + "when it exposes several",
                "container c: label usher.port: expected a port number from 1 to 65535, found \"99999\"",
                "container d: label usher.host: a site name cannot include a port (\":8080\"); ports belong in "
                        + "listen:",
                "container e: label usher.health.interval: both usher.health and usher.health.* labels are given; "
                        + "write the setting one way",
                "container f: label usher.respond: a label site forwards to its own container; a site that "
                        + "redirects or answers by itself belongs in usher.yaml",
                "container g: label usher.headers: YAML syntax error: expected the node content, but found '}' "
                        + "(while parsing a flow node at line 1, column 6) (the value is read as YAML, as after the "
                        + "colon in usher.yaml; quote it to keep it text)");
        assertThat(result.config().sites()).extracting(Site::name).containsExactly("file.example.com");
    }

    @Test
    void thePortIsTheOneExposedUnlessALabelPicksIt() throws Exception {
        DiscoveredContainer none = new DiscoveredContainer("1", "none", Map.of("usher.host", "n.example.com"),
                Map.of("web", "10.1.0.2"), List.of());
        DiscoveredContainer two = new DiscoveredContainer("2", "two", Map.of("usher.host", "t.example.com"),
                Map.of("web", "10.1.0.3"), List.of(443, 80));
        DiscoveredContainer one = new DiscoveredContainer("3", "one", Map.of("usher.host", "o.example.com"),
                Map.of("web", "fd00::3"), List.of(3000));
        LabelSites.Result result = LabelSites.merge(docker(), List.of(none, two, one));

        assertThat(errors(result)).containsExactly(
                "container none: exposes no port; add usher.port=PORT",
                "container two: exposes several ports (80, 443); add usher.port=PORT to pick one");
        assertThat(result.config().sites().get(1).upstreams()).containsExactly(new UpstreamAddress("fd00::3", 3000));
    }

    @Test
    void theNetworkIsTheConfiguredOneOrTheLabelledOneOrTheOnlyOne() throws Exception {
        Map<String, String> two = Map.of("front", "10.2.0.5", "back", "10.3.0.5");
        UsherConfig withNetwork = file("docker: {socket: /run/test.sock, network: back}\n");
        DiscoveredContainer c = new DiscoveredContainer("1", "app", Map.of("usher.host", "a.example.com"), two,
                List.of(80));
        assertThat(LabelSites.merge(withNetwork, List.of(c)).config().sites().get(0).upstreams())
                .containsExactly(new UpstreamAddress("10.3.0.5", 80));
        assertThat(errors(LabelSites.merge(docker(), List.of(c)))).containsExactly("container app: is on several "
                + "networks (back, front); say which Usher reaches it on with docker.network in usher.yaml or the "
                + "usher.network label");
        DiscoveredContainer labelled = new DiscoveredContainer("1", "app", Map.of("usher.host", "a.example.com",
                "usher.network", "front"), two, List.of(80));
        assertThat(LabelSites.merge(withNetwork, List.of(labelled)).config().labelSites().get(0).backends().get(0)
                .network()).isEqualTo("front");
        DiscoveredContainer elsewhere = new DiscoveredContainer("1", "app", Map.of("usher.host", "a.example.com"),
                Map.of("other", "10.4.0.2"), List.of(80));
        assertThat(errors(LabelSites.merge(withNetwork, List.of(elsewhere)))).containsExactly("container app: is "
                + "not on the network back (docker.network in usher.yaml); it is on the network(s) other");
    }

    @Test
    void containersWithOneHostAreOneBalancedSiteAndTheFileWinsANameConflict() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(
                container("web-2", Map.of("usher.host", "lb.example.com")),
                container("web-1", Map.of("usher.host", "lb.example.com")),
                container("web-3", Map.of("usher.host", "lb.example.com", "usher.gzip", "false")),
                container("shadow", Map.of("usher.host", "file.example.com"))));

        Site lb = result.config().sites().stream().filter(s -> s.name().equals("lb.example.com")).findFirst()
                .orElseThrow();
        assertThat(lb.upstreams()).hasSize(3);
        assertThat(lb.traffic().compress()).isTrue(); // web-1's labels apply
        assertThat(result.config().labelSite("lb.example.com").orElseThrow().backends())
                .extracting(LabelSite.Backend::container).containsExactly("web-1", "web-2", "web-3");
        assertThat(result.config().sites().get(0).upstreams()).containsExactly(new UpstreamAddress("127.0.0.1",
                9000));
        assertThat(result.notes()).containsExactly(
                "file.example.com is a site in usher.yaml and in the labels of container shadow; the file's site "
                        + "is served",
                "containers web-1 and web-3 both serve lb.example.com with different labels; the labels of web-1 "
                        + "apply");
    }

    @Test
    void traefikLabelsMoveOverUnchanged() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(container("whoami", Map.of(
                "traefik.enable", "true",
                "traefik.http.routers.who.rule", "Host(`who.example.com`) || Host(`whoami.example.com`)",
                "traefik.http.routers.who.entrypoints", "websecure",
                "traefik.http.routers.who.tls.certresolver", "le",
                "traefik.http.routers.plain.rule", "Host(\"plain.example.com\", \"old.example.com\")",
                "traefik.http.services.who.loadbalancer.server.port", "8000",
                "traefik.docker.network", "web"))));

        assertThat(result.errors()).isEmpty();
        assertThat(result.config().sites()).extracting(Site::name, Site::https).containsExactly(
                org.assertj.core.groups.Tuple.tuple("file.example.com", true),
                org.assertj.core.groups.Tuple.tuple("old.example.com", false),
                org.assertj.core.groups.Tuple.tuple("plain.example.com", false),
                org.assertj.core.groups.Tuple.tuple("who.example.com", true),
                org.assertj.core.groups.Tuple.tuple("whoami.example.com", true));
        assertThat(result.config().sites().get(3).upstreams()).containsExactly(new UpstreamAddress(address("whoami"),
                8000));
        assertThat(result.notes()).containsExactly(
                "container whoami: ignored traefik.http.routers.who.entrypoints=websecure (Usher serves on its own "
                        + "ports)",
                "container whoami: ignored traefik.http.routers.who.tls.certresolver=le (Usher gets the certificate "
                        + "itself)");
    }

    @Test
    void traefikLabelsUsherCannotHonourSkipTheContainerNamingTheLabel() throws Exception {
        LabelSites.Result result = LabelSites.merge(docker(), List.of(
                container("auth", Map.of("traefik.http.routers.a.rule", "Host(`a.example.com`)",
                        "traefik.http.routers.a.middlewares", "basic@docker")),
                container("path", Map.of("traefik.enable", "true",
                        "traefik.http.routers.p.rule", "Host(`p.example.com`) && PathPrefix(`/api`)")),
                container("tcp", Map.of("traefik.enable", "true", "traefik.tcp.routers.t.rule", "HostSNI(`*`)")),
                container("off", Map.of("traefik.enable", "false",
                        "traefik.http.routers.o.rule", "Host(`o.example.com`)"))));

        assertThat(errors(result)).containsExactly(
                "container auth: label traefik.http.routers.a.middlewares: not supported: of a router Usher reads "
                        + "rule, tls and service (a middleware left out would change what is served: put the site "
                        + "in usher.yaml with the matching options)",
                "container path: label traefik.http.routers.p.rule: the rule Host(`p.example.com`) && "
                        + "PathPrefix(`/api`) is not supported: Usher reads Host(`name`) matchers joined by ||, "
                        + "nothing else (paths, headers, && and ! are not supported)",
                "container tcp: label traefik.tcp.routers.t.rule: not supported: Usher reads traefik.enable, "
                        + "traefik.http.routers.<r>.rule and .tls, traefik.http.services.<s>.loadbalancer.server.port "
                        + "and traefik.docker.network");
        assertThat(result.config().sites()).extracting(Site::name).containsExactly("file.example.com");
    }

    @Test
    void withoutDockerInTheFileLabelsAreNotRead() throws Exception {
        UsherConfig plain = file("sites:\n  a.example.com: 127.0.0.1:80\n");
        LabelSites.Result result = LabelSites.merge(plain, List.of(container("x", Map.of("usher.host",
                "x.example.com"))));
        assertThat(result.config()).isSameAs(plain);
    }
}
