package dev.usher.cert;

import dev.usher.config.AcmeSettings;
import dev.usher.dns.DnsChallenges;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.shredzone.acme4j.AccountBuilder;
import org.shredzone.acme4j.Certificate;
import org.shredzone.acme4j.Identifier;
import org.shredzone.acme4j.Login;
import org.shredzone.acme4j.Order;
import org.shredzone.acme4j.OrderBuilder;
import org.shredzone.acme4j.Problem;
import org.shredzone.acme4j.RenewalInfo;
import org.shredzone.acme4j.Session;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.connector.Resource;
import org.shredzone.acme4j.exception.AcmeException;
import org.shredzone.acme4j.exception.AcmeLazyLoadingException;
import org.shredzone.acme4j.exception.AcmeProtocolException;
import org.shredzone.acme4j.exception.AcmeServerException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Security;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Obtains certificates from an ACME CA (RFC 8555) such as Let's Encrypt, answering HTTP-01 or TLS-ALPN-01 challenges
 * through {@link ChallengeAnswers}, which Usher's HTTP and TLS listeners serve.
 *
 * <p>One {@code issue(name)}: account (created on first use with the key from the {@link AccountStore}, terms of
 * service agreed), a new order for the one name (a wildcard validated over DNS-01 also names its base:
 * {@code *.example.com} and {@code example.com}), its authorizations proven together by a {@link ChallengeRound},
 * then a CSR for a new EC P-256 key, and the chain downloaded. Every step is logged at INFO on one line.
 *
 * <p>Renewal: {@link #renewalTime} asks the CA's ARI endpoint (RFC 9773) when it has one. The certificate asked
 * about is remembered by name, and the next order for that name is marked as replacing it ({@code replaces}), which
 * lets the CA exempt the renewal from rate limits; an order the CA refuses with {@code replaces} is retried without.
 *
 * <p>Threading: calls block on the network and on polling; make them off the event loops (a virtual thread).
 * Several {@code issue} calls may run at once, for different names: each uses its own acme4j {@link Session}, and
 * they share one HTTP client.
 */
final class AcmeIssuer implements Issuer {
    private static final System.Logger LOG = System.getLogger(AcmeIssuer.class.getName());

    /** How long the CA may take to validate one challenge (Let's Encrypt: seconds; several perspectives). */
    static final Duration CHALLENGE_TIMEOUT = Duration.ofMinutes(3);
    /** How long an order may take to become ready once its authorizations are valid. */
    static final Duration READY_TIMEOUT = Duration.ofMinutes(1);
    /** How long the CA may take to sign after the CSR was sent. */
    static final Duration FINALIZE_TIMEOUT = Duration.ofMinutes(3);

    private final AcmeSettings settings;
    private final AccountStore accounts;
    private final ChallengeAnswers answers;
    private final String id;
    /** Lazily made: reading acme.trust can fail, and that failure belongs to an issue() call, not to start-up. */
    private AcmeConnections connections;
    /** The account URL last seen for the account key: ARI queries need a Login but not a fresh account lookup. */
    private volatile KnownAccount account;
    /** Certificates asked about in renewalTime(), by name: the next order for the name replaces them (ARI). */
    private final Map<String, X509Certificate> replacing = new ConcurrentHashMap<>();
    /** The TLS-ALPN-01 challenge certificate key: acme4j signs it with SHA256withRSA, so RSA; one per issuer. */
    private KeyPair challengeKey;
    /** DNS-01 through {@code settings.dns()}: opened at the first order that needs it (loads dnsjava); or null. */
    private DnsChallenges dns;

    private record KnownAccount(KeyPair key, URL location) {
    }

    public AcmeIssuer(AcmeSettings settings, AccountStore accounts, ChallengeAnswers answers) {
        this.settings = settings;
        this.accounts = accounts;
        this.answers = answers;
        this.id = idFor(settings.directory());
        // acme4j's CSR and challenge-certificate helpers build on Bouncy Castle's JCA classes; registering the
        // provider (last, so it changes no default) when nobody has is harmless and makes them work everywhere.
        if (Security.getProvider(BouncyCastleProvider.PROVIDER_NAME) == null) {
            Security.addProvider(new BouncyCastleProvider());
        }
    }

    /**
     * A stable, file-name-safe id from the directory URL: host, port if any, path, with everything but letters,
     * digits and dots turned into single dashes ({@code acme-v02.api.letsencrypt.org-directory},
     * {@code localhost-14000-dir}).
     */
    static String idFor(URI directory) {
        StringBuilder raw = new StringBuilder(directory.getHost() == null ? "acme" : directory.getHost());
        if (directory.getPort() != -1) {
            raw.append('-').append(directory.getPort());
        }
        if (directory.getRawPath() != null) {
            raw.append('-').append(directory.getRawPath());
        }
        String id = raw.toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.]+", "-")
                .replaceAll("^[-.]+|-+$", "");
        return id.isEmpty() ? "acme" : id;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public CertifiedKey issue(String name) throws IssueException {
        URI ca = settings.directory();
        LOG.log(Level.INFO, "ordering a certificate for {0} from {1}", name, ca);
        KeyPair accountKey = accountKey();
        String step = "ordering a certificate for " + name;
        try {
            Session session = session();
            Login login = login(session, accountKey);
            Order order = newOrder(session, login, name);
            new ChallengeRound(settings, answers, this::challengeKey, dnsChallenges()).prove(order.getAuthorizations());
            step = "finishing the order for " + name;
            Status ready = AcmePolling.await(order, Set.of(Status.READY, Status.INVALID), READY_TIMEOUT);
            if (ready != Status.READY) {
                throw failed(name + ": the order is " + status(ready), order.getError());
            }
            step = "finalizing the order for " + name;
            KeyPair leafKey = newLeafKey();
            order.execute(leafKey);
            Status done = AcmePolling.await(order, Set.of(Status.VALID, Status.INVALID), FINALIZE_TIMEOUT);
            if (done != Status.VALID) {
                throw failed(name + ": the CA did not issue the certificate (order " + status(done) + ")",
                        order.getError());
            }
            step = "downloading the certificate for " + name;
            Certificate certificate = order.getCertificate();
            certificate.download();
            CertifiedKey issued = new CertifiedKey(certificate.getCertificateChain(), leafKey.getPrivate());
            replacing.remove(name.toLowerCase(Locale.ROOT));
            LOG.log(Level.INFO, "certificate for {0} issued by {1}, valid until {2}", name,
                    issued.leaf().getIssuerX500Principal().getName(), issued.notAfter());
            return issued;
        } catch (AcmeException | AcmeProtocolException | AcmeLazyLoadingException e) {
            throw AcmeFailures.of(step, ca, e);
        } catch (IOException e) {
            throw new IssueException(step + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IssueException(step + ": interrupted", e);
        }
    }

    /**
     * A random time inside the CA's suggested renewal window for {@code current} (ACME Renewal Information), or now
     * when the window has passed; empty when the CA offers no ARI or the query fails (never throws).
     */
    @Override
    public Optional<Instant> renewalTime(CertifiedKey current) {
        try {
            Session session = session();
            if (session.resourceUrlOptional(Resource.RENEWAL_INFO).isEmpty()) {
                LOG.log(Level.DEBUG, "{0} offers no renewal information (ARI)", settings.directory());
                return Optional.empty();
            }
            KnownAccount known = account;
            KeyPair key = accountKey();
            Login login = known != null && known.key().getPublic().equals(key.getPublic())
                    ? session.login(known.location(), key) : login(session, key);
            RenewalInfo info = login.bindRenewalInfo(current.leaf());
            info.fetch();
            Instant at = info.getRandomProposal(null).orElseGet(Instant::now);
            for (String name : dnsNames(current.leaf())) {
                replacing.put(name.toLowerCase(Locale.ROOT), current.leaf());
            }
            LOG.log(Level.INFO, "{0}: the CA suggests renewing between {1} and {2}; renewing at {3}",
                    current.leaf().getSubjectX500Principal().getName(), info.getSuggestedWindowStart(),
                    info.getSuggestedWindowEnd(), at);
            return Optional.of(at);
        } catch (IssueException | AcmeException | IOException | GeneralSecurityException | RuntimeException e) {
            LOG.log(Level.INFO, "no renewal information from {0}: {1}", settings.directory(), e.getMessage());
            return Optional.empty();
        }
    }

    /** The account URL used by the last issue() or renewalTime(), or null. For tests. */
    URL accountLocation() {
        KnownAccount known = account;
        return known == null ? null : known.location();
    }

    private KeyPair accountKey() throws IssueException {
        try {
            return accounts.accountKey(id);
        } catch (IOException e) {
            throw new IssueException("cannot read or create the ACME account key for " + id + ": " + e.getMessage(),
                    e);
        }
    }

    private Session session() throws IOException {
        AcmeConnections provider;
        synchronized (this) {
            if (connections == null) {
                connections = AcmeConnections.trusting(settings.trust());
            }
            provider = connections;
        }
        Session session = new Session(settings.directory(), provider);
        session.networkSettings().setTimeout(AcmeConnections.TIMEOUT);
        return session;
    }

    /** Finds or creates the account for this key: the CA answers with the existing account when there is one. */
    private Login login(Session session, KeyPair key) throws AcmeException {
        AccountBuilder builder = new AccountBuilder().agreeToTermsOfService().useKeyPair(key);
        if (settings.email() != null && !settings.email().isBlank()) {
            builder.addEmail(settings.email());
        }
        Login login = builder.createLogin(session);
        KnownAccount before = account;
        if (before == null || !before.location().equals(login.getAccountLocation())) {
            LOG.log(Level.INFO, "using ACME account {0}", login.getAccountLocation());
        }
        account = new KnownAccount(key, login.getAccountLocation());
        return login;
    }

    private Order newOrder(Session session, Login login, String name) throws AcmeException {
        X509Certificate old = replacing.get(name.toLowerCase(Locale.ROOT));
        if (old != null && session.resourceUrlOptional(Resource.RENEWAL_INFO).isPresent()) {
            try {
                return login.newOrder().identifiers(identifiers(name)).replaces(old).create();
            } catch (org.shredzone.acme4j.exception.AcmeRateLimitedException e) {
                throw e; // asking again at once would only meet the same limit
            } catch (AcmeServerException e) {
                LOG.log(Level.INFO, "{0}: the CA refused the order as a replacement ({1}); ordering anew", name,
                        AcmeFailures.describe(e.getProblem()));
                replacing.remove(name.toLowerCase(Locale.ROOT), old);
            }
        }
        OrderBuilder builder = login.newOrder().identifiers(identifiers(name));
        return builder.create();
    }

    /** The order's names: the one name, and for a wildcard over DNS-01 its base too (the same TXT record name). */
    private List<Identifier> identifiers(String name) {
        if (name.startsWith("*.") && settings.answersDns01()) {
            return List.of(identifier(name), identifier(name.substring(2)));
        }
        return List.of(identifier(name));
    }

    /** The DNS-01 records' keeper, or null without DNS-01. */
    private synchronized DnsChallenges dnsChallenges() throws IssueException {
        if (dns == null && settings.dns() != null) {
            dns = Dns01Step.open(settings.dns());
        }
        return dns;
    }

    /** An order may take its usual time plus the wait for its DNS records to reach every server. */
    @Override
    public Duration deadline() {
        return settings.dns() == null ? Issuer.super.deadline()
                : Issuer.super.deadline().plus(settings.dns().propagationTimeout());
    }

    /** Removes DNS-01 records still in place (orders being stopped) and lets go of the DNS provider. */
    @Override
    public void close() {
        DnsChallenges open;
        synchronized (this) {
            open = dns;
        }
        if (open != null) {
            open.close();
        }
    }

    private synchronized KeyPair challengeKey() throws GeneralSecurityException {
        if (challengeKey == null) {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            challengeKey = generator.generateKeyPair();
        }
        return challengeKey;
    }

    private static KeyPair newLeafKey() throws IssueException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IssueException("cannot make an EC P-256 key: " + e.getMessage(), e);
        }
    }

    static Identifier identifier(String name) {
        return AcmeChallenge.isIpLiteral(name) ? Identifier.ip(name) : Identifier.dns(name);
    }

    private static List<String> dnsNames(X509Certificate leaf) throws java.security.cert.CertificateParsingException {
        var sans = leaf.getSubjectAlternativeNames();
        if (sans == null) {
            return List.of();
        }
        return sans.stream().filter(san -> (Integer) san.get(0) == 2 || (Integer) san.get(0) == 7)
                .map(san -> String.valueOf(san.get(1))).toList();
    }

    private static IssueException failed(String what, Optional<Problem> problem) {
        return new IssueException(what + problem.map(p -> ": " + AcmeFailures.describe(p)).orElse(""), null);
    }

    private static String status(Status status) {
        return status.name().toLowerCase(Locale.ROOT);
    }
}
