package dev.usher.config;

import java.time.Duration;

/**
 * A token bucket per client IP: refilled at {@code requests} per {@code per}, holding at most {@code burst} tokens
 * ({@code requests} when burst is 0).
 * Over the limit: 429 with Retry-After.
 */
public record RateLimit(int requests, Duration per, int burst) {
}
