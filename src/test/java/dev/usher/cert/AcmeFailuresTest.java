package dev.usher.cert;

import org.junit.jupiter.api.Test;
import org.shredzone.acme4j.Problem;
import org.shredzone.acme4j.exception.AcmeRateLimitedException;
import org.shredzone.acme4j.exception.AcmeServerException;
import org.shredzone.acme4j.toolbox.JSON;

import java.net.URI;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The words an operator reads when the CA says no: problem documents, rate limits. */
class AcmeFailuresTest {
    private static final URI CA = URI.create("https://ca.example/dir");

    @Test
    void namesEverySubproblemWithItsIdentifier() throws Exception {
        Problem problem = new Problem(JSON.parse("""
                {"type": "urn:ietf:params:acme:error:rejectedIdentifier", "detail": "Some identifiers were rejected",
                 "subproblems": [{"type": "urn:ietf:params:acme:error:malformed", "detail": "Invalid underscore",
                                  "identifier": {"type": "dns", "value": "_bad.example.com"}}]}
                """), URI.create("https://ca.example/order").toURL());

        IssueException e = AcmeFailures.of("ordering a certificate for _bad.example.com", CA,
                new AcmeServerException(problem));

        assertThat(e.getMessage()).isEqualTo("ordering a certificate for _bad.example.com: the CA at "
                + "https://ca.example/dir refused: urn:ietf:params:acme:error:rejectedIdentifier: Some identifiers "
                + "were rejected [_bad.example.com: urn:ietf:params:acme:error:malformed: Invalid underscore]");
        assertThat(e.retryAfter()).isEmpty();
    }

    @Test
    void carriesTheRateLimitsRetryAfter() throws Exception {
        Instant later = Instant.parse("2030-01-01T00:00:00Z");
        Problem problem = new Problem(JSON.parse("""
                {"type": "urn:ietf:params:acme:error:rateLimited",
                 "detail": "too many certificates (5) already issued for this exact set of identifiers"}
                """), URI.create("https://ca.example/order").toURL());

        IssueException e = AcmeFailures.of("ordering a certificate for app.example.com", CA,
                new AcmeRateLimitedException(problem, later, List.of()));

        assertThat(e.retryAfter()).contains(later);
        assertThat(e.getMessage()).contains("rate limited", "urn:ietf:params:acme:error:rateLimited",
                "too many certificates", "after 2030-01-01T00:00:00Z");
    }
}
