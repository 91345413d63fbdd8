package dev.usher.rules;

import dev.usher.config.Access;
import dev.usher.config.Cidr;
import dev.usher.config.ErrorPageSet;
import dev.usher.config.Site;
import dev.usher.config.SiteTraffic;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Everything a site does to a request before (or instead of) forwarding it, compiled once per site per config
 * generation. Thread-safe: every field is immutable, shared state lives in {@link RuleServices}.
 *
 * <p>Checks run in this order, the first that answers wins: a CrowdSec ban (403), allow/deny (403), rate limit (429
 * with Retry-After), maintenance (503 with Retry-After, except for its allowed networks), basic auth (401, or 429
 * when one address tries too many passwords, or 503 when the password checker is saturated), forward auth (the auth
 * server's own answer, or 502/504 when it cannot be asked), redirect, fixed answer. Null means: go on and forward.
 *
 * <p>Calling: bcrypt must never run on an event loop, nor may a loop wait for an auth server, so a site with basic
 * auth or forward auth may have to wait for a verdict. Such a site reports {@link #needsAsync()} and must be checked
 * with {@link #checkAsync}; every other site may use {@link #check}, which never allocates for a site without
 * rules. {@code checkAsync} works for every site and completes inline whenever nothing is to be waited for (no
 * auth, a refusal before auth, a recently verified password, Authentik's outpost path), so a caller may also always
 * use it and look at {@link Future#isDone()}.
 */
public final class SiteRules {
    private final String name;
    private final boolean compress;
    private final boolean securityHeaders;
    private final ClientAddresses clients;
    private final IpNetworks allow;
    private final IpNetworks deny;
    private final RateLimiter rateLimiter;
    private final BasicAuth auth;
    private final RedirectAnswer redirect;
    private final FixedReply fixed;
    private final HeaderEdits requestEdits;
    private final HeaderEdits responseEdits;
    private final LocalAnswers answers;
    private final AcmeChallenges challenges;
    private final MaintenanceCheck maintenance;
    private final ForwardAuthCheck forwardAuth;
    private final Bans bans;
    /** The site's pages for Usher's own answers. */
    private final ErrorPageSet pages;
    /** True when any check but the bans needs the client address; false lets {@link #check} skip reading it. */
    private final boolean gated;

    private SiteRules(Site site, String limitKey, List<Cidr> trustedProxies, RuleServices services,
                      AcmeChallenges challenges, AuthServer authServer) {
        SiteTraffic traffic = site.traffic() == null ? SiteTraffic.DEFAULTS : site.traffic();
        Access access = traffic.access() == null ? Access.OPEN : traffic.access();
        this.name = site.name();
        this.compress = traffic.compress();
        this.securityHeaders = traffic.securityHeaders();
        this.clients = new ClientAddresses(trustedProxies);
        this.allow = access.allow().isEmpty() ? null : new IpNetworks(access.allow());
        this.deny = access.deny().isEmpty() ? null : new IpNetworks(access.deny());
        this.rateLimiter = traffic.rateLimit() == null ? null
                : new RateLimiter(traffic.rateLimit(), services.siteId(limitKey), services.rateBuckets,
                        services.nanoTime);
        this.auth = access.basicAuth().isEmpty() ? null : new BasicAuth(site.name(), access.basicAuth(), services);
        this.redirect = traffic.redirect() == null ? null : new RedirectAnswer(traffic.redirect());
        this.fixed = traffic.respond() == null ? null : new FixedReply(traffic.respond());
        this.requestEdits = new HeaderEdits(traffic.requestHeaders());
        this.responseEdits = new HeaderEdits(traffic.responseHeaders());
        this.answers = services.answers;
        this.challenges = challenges;
        this.maintenance = traffic.maintenance() == null ? null
                : new MaintenanceCheck(traffic.maintenance(), services.nanoTime);
        if (traffic.forwardAuth() != null && authServer == null) {
            throw new IllegalArgumentException("site " + name + " has forward_auth but no auth server to ask");
        }
        this.forwardAuth = traffic.forwardAuth() == null ? null
                : new ForwardAuthCheck(traffic.forwardAuth(), authServer);
        this.bans = services.bans;
        this.pages = traffic.errorPages();
        this.gated = allow != null || deny != null || rateLimiter != null || maintenance != null || auth != null;
    }

    /** Compiles a site's rules; {@code trustedProxies} comes from the whole config. */
    public static SiteRules compile(Site site, List<Cidr> trustedProxies, RuleServices services) {
        return new SiteRules(site, site.name(), trustedProxies, services, null, null);
    }

    /** As the other {@code compile}; {@code authServer} is what the site's {@code forward_auth:} asks. */
    public static SiteRules compile(Site site, List<Cidr> trustedProxies, RuleServices services,
                                    AuthServer authServer) {
        return new SiteRules(site, site.name(), trustedProxies, services, null, authServer);
    }

    /**
     * Compiles the rules of one of a site's paths ({@code site} as that path sees it). Its rate limit counts in the
     * budget named {@code limitKey}: the site's name to share the site's, another key for a limit of its own.
     */
    public static SiteRules compile(Site site, String limitKey, List<Cidr> trustedProxies, RuleServices services) {
        return new SiteRules(site, limitKey, trustedProxies, services, null, null);
    }

    /** As the other {@code compile} for a path; {@code authServer} is what its {@code forward_auth:} asks. */
    public static SiteRules compile(Site site, String limitKey, List<Cidr> trustedProxies, RuleServices services,
                                    AuthServer authServer) {
        return new SiteRules(site, limitKey, trustedProxies, services, null, authServer);
    }

    /**
     * The rules of an HTTPS site as seen on the plain-HTTP listener: ACME HTTP-01 validation requests are answered
     * from {@code keyAuthorizations} (token → key authorization), everything else gets a 308 to the same URL on
     * https (port {@code httpsPort}, left out when 443).
     */
    public static SiteRules redirectToHttps(Site site, int httpsPort, java.util.function.Function<String, String>
            keyAuthorizations, RuleServices services) {
        String target = "https://{host}" + (httpsPort == 443 ? "" : ":" + httpsPort) + "{uri}";
        dev.usher.config.SiteTraffic redirect = dev.usher.config.SiteTraffic.DEFAULTS
                .withKeepAliveIdle(site.traffic().keepAliveIdle()).withRedirect(new dev.usher.config.Redirect(target, 308));
        Site plain = new Site(site.name(), true, List.of(), site.maxBody(), site.connectTimeout(),
                site.responseTimeout(), site.line(), site.column(), redirect, dev.usher.config.TlsPolicy.NONE);
        return new SiteRules(plain, plain.name(), List.of(), services, new AcmeChallenges(keyAuthorizations), null);
    }

    /**
     * The client's real address: the TCP peer, or — only when the peer is in trustedProxies — CF-Connecting-IP if
     * present, else the right-most X-Forwarded-For entry that is not itself a trusted proxy (the left-most when all
     * are). Only IP literals are read; never DNS, never an exception.
     */
    public InetAddress clientAddress(InetAddress peer, HttpHeaders requestHeaders) {
        return clients.resolve(peer, requestHeaders);
    }

    /** True when the site has basic auth or forward auth: use {@link #checkAsync}, since {@link #check} would throw. */
    public boolean needsAsync() {
        return auth != null || forwardAuth != null;
    }

    /**
     * True for a request that forward auth sends to the auth server itself instead of the site (Authentik's
     * outpost path, {@code /outpost.goauthentik.io/}): it is not checked, and goes to {@code Route.outpost()}.
     */
    public boolean toAuthServer(HttpRequest request) {
        return forwardAuth != null && forwardAuth.outpost(request);
    }

    /**
     * A complete local answer (403, 429 with Retry-After, a redirect with Location, the site's fixed answer), or
     * null to go on and forward. {@code scheme} is "http"/"https"; {@code keepAlive} false adds Connection: close.
     *
     * @throws IllegalStateException when {@link #needsAsync()}: a password check cannot be answered inline
     */
    public FullHttpResponse check(HttpRequest request, InetAddress client, String scheme, boolean keepAlive) {
        if (challenges != null) {
            FullHttpResponse validation = challenges.answer(request, keepAlive);
            if (validation != null) {
                return validation;
            }
        }
        if (needsAsync()) {
            throw new IllegalStateException("site " + name + " has basic_auth or forward_auth; use checkAsync");
        }
        if (gated || bans.active()) {
            byte[] ip = client.getAddress();
            FullHttpResponse refused = gate(ip.length == 16, IpBits.hi(ip), IpBits.lo(ip), keepAlive);
            if (refused != null) {
                return refused;
            }
        }
        return answer(request, scheme, keepAlive);
    }

    /**
     * Like {@link #check}, for every site including those with basic auth (401 with WWW-Authenticate for missing
     * or wrong credentials). The future completes on {@code executor} (the connection's event loop) with the answer,
     * or with null to forward: at once when no bcrypt is needed, otherwise after the password has been checked on
     * {@link RuleServices}' bcrypt threads. The caller should not read more of the request meanwhile.
     */
    public Future<FullHttpResponse> checkAsync(HttpRequest request, InetAddress client, String scheme,
                                               boolean keepAlive, EventExecutor executor) {
        if (!needsAsync()) {
            return executor.newSucceededFuture(check(request, client, scheme, keepAlive));
        }
        byte[] ip = client.getAddress();
        long hi = IpBits.hi(ip);
        long lo = IpBits.lo(ip);
        FullHttpResponse refused = gate(ip.length == 16, hi, lo, keepAlive);
        if (refused != null) {
            return executor.newSucceededFuture(refused);
        }
        if (auth == null) {
            return afterPassword(request, client, scheme, keepAlive, executor);
        }
        CompletableFuture<BasicAuth.Outcome> outcome = auth.authenticate(request.headers(), hi,
                limitBits(ip.length == 16, lo));
        if (outcome.isDone()) {
            BasicAuth.Outcome decided = outcome.join();
            return decided.kind() == BasicAuth.Kind.PASS ? afterPassword(request, client, scheme, keepAlive, executor)
                    : executor.newSucceededFuture(refusal(decided, keepAlive));
        }
        Promise<FullHttpResponse> promise = executor.newPromise();
        // Completes on a bcrypt thread; the answer is built back on the event loop that owns the connection.
        outcome.whenComplete((result, failure) -> {
            BasicAuth.Outcome decided = failure == null ? result : new BasicAuth.Outcome(BasicAuth.Kind.BUSY, 1);
            try {
                executor.execute(() -> {
                    try {
                        if (decided.kind() == BasicAuth.Kind.PASS) {
                            afterPassword(request, client, scheme, keepAlive, executor).addListener(f -> {
                                if (f.isSuccess()) {
                                    promise.trySuccess((FullHttpResponse) f.getNow());
                                } else {
                                    promise.tryFailure(f.cause());
                                }
                            });
                        } else {
                            promise.trySuccess(refusal(decided, keepAlive));
                        }
                    } catch (RuntimeException e) {
                        promise.tryFailure(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                // The event loop is shutting down; nobody is left to answer.
                promise.tryFailure(e);
            }
        });
        return promise;
    }

    /**
     * After the password (if any) passed: forward auth (if any), then the redirect or fixed answer. Called on
     * {@code executor}, the connection's event loop.
     */
    private Future<FullHttpResponse> afterPassword(HttpRequest request, InetAddress client, String scheme,
                                                   boolean keepAlive, EventExecutor executor) {
        if (forwardAuth == null) {
            return executor.newSucceededFuture(answer(request, scheme, keepAlive));
        }
        if (forwardAuth.outpost(request)) {
            forwardAuth.strip(request.headers());
            return executor.newSucceededFuture(null);
        }
        if (!(executor instanceof EventLoop loop)) {
            throw new IllegalArgumentException("forward auth runs on an event loop");
        }
        Future<FullHttpResponse> asked = forwardAuth.server().ask(
                forwardAuth.question(request, client.getHostAddress(), scheme), loop);
        Promise<FullHttpResponse> verdict = executor.newPromise();
        asked.addListener(f -> {
            if (f.isSuccess()) {
                FullHttpResponse refused = forwardAuth.verdict(asked.getNow(), request, keepAlive);
                verdict.trySuccess(refused != null ? refused : answer(request, scheme, keepAlive));
            } else {
                boolean timedOut = f.cause() instanceof AuthServer.Unavailable u && u.timedOut();
                verdict.trySuccess(answers.authUnavailable(timedOut, keepAlive, pages));
            }
        });
        return verdict;
    }

    /** Applies request_headers edits in place (after Usher set its X-Forwarded-* headers). */
    public void editRequest(HttpHeaders headers) {
        requestEdits.apply(headers);
    }

    /**
     * Applies, in place, the security headers when enabled (each only when absent; HSTS only when {@code https}),
     * then the site's {@code headers:} edits, which thus win. For any response about to go to the client, proxied
     * or local.
     */
    public void editResponse(HttpHeaders headers, boolean https) {
        if (securityHeaders) {
            SecurityHeaders.addMissing(headers, https);
        }
        responseEdits.apply(headers);
    }

    /** True when the site may compress responses (gzip option). */
    public boolean compress() {
        return compress;
    }

    /**
     * The low 64 bits that rate and guess limits count by: all of an IPv4 address, none of an IPv6 one. A home IPv6
     * connection gets a whole /64, so counting single addresses would give one attacker billions of fresh budgets.
     * (Allow and deny lists still match the whole address.)
     */
    private static long limitBits(boolean v6, long lo) {
        return v6 ? 0 : lo;
    }

    private FullHttpResponse gate(boolean v6, long hi, long lo, boolean keepAlive) {
        if (bans.banned(v6, hi, lo)
                || allow != null && !allow.contains(v6, hi, lo) || deny != null && deny.contains(v6, hi, lo)) {
            return answers.forbidden(keepAlive, pages);
        }
        if (rateLimiter != null) {
            long wait = rateLimiter.waitNanos(hi, limitBits(v6, lo));
            if (wait > 0) {
                return answers.tooManyRequests(RateLimiter.retryAfterSeconds(wait), keepAlive, pages);
            }
        }
        if (maintenance != null && maintenance.applies(v6, hi, lo)) {
            return answers.maintenance(maintenance.retryAfterSeconds(), maintenance.settings().page(), keepAlive,
                    pages);
        }
        return null;
    }

    /** The answer to a password that did not pass. */
    private FullHttpResponse refusal(BasicAuth.Outcome outcome, boolean keepAlive) {
        return switch (outcome.kind()) {
            case PASS -> throw new IllegalStateException("a password that passed is no refusal");
            case DENY -> answers.unauthorized(auth.challenge(), keepAlive, pages);
            case LOCKED_OUT -> answers.tooManyRequests(outcome.retryAfterSeconds(), keepAlive, pages);
            case BUSY -> answers.busy(outcome.retryAfterSeconds(), keepAlive, pages);
        };
    }

    private FullHttpResponse answer(HttpRequest request, String scheme, boolean keepAlive) {
        if (redirect != null) {
            return redirect.response(request, scheme, keepAlive);
        }
        if (fixed != null) {
            return fixed.response(keepAlive);
        }
        return null;
    }
}
