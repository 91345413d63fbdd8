package dev.usher.config;

import java.net.URI;
import java.time.Duration;

/**
 * Where the CrowdSec local API is and how Usher follows its decisions ({@code crowdsec:}).
 *
 * @param url      the local API's base URL, such as {@code http://127.0.0.1:8080}
 * @param apiKey   the bouncer key ({@code cscli bouncers add usher}); never shown in logs or errors
 * @param interval how often the decision stream is asked for changes
 */
public record CrowdSecSetting(URI url, String apiKey, Duration interval) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    @Override
    public String toString() {
        return "CrowdSecSetting[" + url + ", every " + interval + "]";
    }
}
