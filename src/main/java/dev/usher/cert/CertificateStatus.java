package dev.usher.cert;

import java.time.Instant;

/**
 * One managed name's certificate, or nulls when there is none yet.
 *
 * @param state       {@code valid} (a current certificate is served), {@code failed} (none, and the last order
 *                    failed: {@code error} says why) or {@code pending} (none yet)
 * @param nextRenewal when the next renewal check or retry runs; null for certificate files
 * @param error       why the last order failed, or null
 */
public record CertificateStatus(String name, String policy, String issuer, Instant notAfter, String sha256,
                                Instant notBefore, String state, Instant nextRenewal, String error) {
}
