package dev.usher.cert;

import org.shredzone.acme4j.Problem;
import org.shredzone.acme4j.exception.AcmeException;
import org.shredzone.acme4j.exception.AcmeLazyLoadingException;
import org.shredzone.acme4j.exception.AcmeNetworkException;
import org.shredzone.acme4j.exception.AcmeRateLimitedException;
import org.shredzone.acme4j.exception.AcmeServerException;
import org.shredzone.acme4j.exception.AcmeUserActionRequiredException;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Instant;
import java.util.StringJoiner;

import javax.net.ssl.SSLException;

/**
 * Turns what acme4j throws into an {@link IssueException} whose message an operator can act on: the CA's problem
 * document (type, detail, each subproblem with its identifier), what Usher was doing at the time, and for a network
 * failure, which CA could not be reached.
 */
final class AcmeFailures {
    private AcmeFailures() {
    }

    /**
     * @param doing    what was being done, e.g. "ordering a certificate for app.example.com"
     * @param ca       the directory URL
     */
    static IssueException of(String doing, URI ca, Exception e) {
        if (e instanceof AcmeLazyLoadingException lazy && lazy.getCause() instanceof AcmeException cause) {
            return of(doing, ca, cause);
        }
        if (e instanceof AcmeRateLimitedException limited) {
            Instant retryAfter = limited.getRetryAfter().orElse(null);
            String when = retryAfter == null ? "" : "; the CA accepts a new attempt after " + retryAfter;
            return new IssueException(doing + ": rate limited by the CA at " + ca + ": "
                    + describe(limited.getProblem()) + when, e, retryAfter);
        }
        if (e instanceof AcmeUserActionRequiredException action) {
            String tos = action.getTermsOfServiceUri().map(u -> " (new terms of service: " + u + ")").orElse("");
            return new IssueException(doing + ": the CA at " + ca + " requires an action by the account holder"
                    + tos + ": " + describe(action.getProblem()), e);
        }
        if (e instanceof AcmeServerException server) {
            return new IssueException(doing + ": the CA at " + ca + " refused: " + describe(server.getProblem()), e);
        }
        if (e instanceof AcmeNetworkException) {
            return new IssueException(doing + ": could not reach the ACME CA at " + ca + ": " + networkCause(e), e);
        }
        return new IssueException(doing + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
    }

    /** {@code type: detail}, then {@code [identifier: type: detail; …]} for the subproblems. */
    static String describe(Problem problem) {
        StringBuilder text = new StringBuilder(problem.getType().toString());
        problem.getDetail().ifPresent(d -> text.append(": ").append(d));
        if (!problem.getSubProblems().isEmpty()) {
            StringJoiner subs = new StringJoiner("; ", " [", "]");
            for (Problem sub : problem.getSubProblems()) {
                String who = sub.getIdentifier().map(id -> id.getValue() + ": ").orElse("");
                subs.add(who + describe(sub));
            }
            text.append(subs);
        }
        return text.toString();
    }

    /** What went wrong on the network, in words: the JDK's HTTP client often throws exceptions without a message. */
    static String networkCause(Throwable e) {
        String fallback = null;
        for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            String message = t.getMessage();
            if (t instanceof UnknownHostException) {
                return "unknown host " + message;
            }
            if (t instanceof HttpConnectTimeoutException) {
                return "connection timed out";
            }
            if (t instanceof HttpTimeoutException) {
                return "no answer in time";
            }
            if (t instanceof ConnectException) {
                return message == null ? "connection refused" : "connection failed: " + message;
            }
            if (t instanceof SSLException) {
                return "TLS failed: " + message + " (for a private CA, set acme.trust to its root certificate)";
            }
            if (fallback == null && message != null) {
                fallback = t.getClass().getSimpleName() + ": " + message;
            }
        }
        return fallback != null ? fallback : String.valueOf(e.getCause());
    }
}
