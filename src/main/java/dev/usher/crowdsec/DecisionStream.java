package dev.usher.crowdsec;

import dev.usher.config.CrowdSecSetting;
import dev.usher.json.JsonReader;
import dev.usher.net.Backoff;
import dev.usher.rules.Bans;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Follows one CrowdSec local API's decision stream into the {@link Bans} table, on a virtual thread of its own: the
 * whole list at the start ({@code startup=true}), then every {@code interval} what changed. When the local API is
 * down or refuses the key, the bans last known stay in force, the stream is tried again with backoff (1 s doubling
 * to 1 min), and it is logged once, not at every try; the first answer after that asks for the whole list again and
 * is logged once more.
 */
final class DecisionStream {
    private static final System.Logger LOG = System.getLogger(DecisionStream.class.getName());
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final CrowdSecSetting setting;
    private final Bans bans;
    private final HttpClient client;
    private final Decisions decisions = new Decisions();
    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1));
    private volatile boolean stopped;
    private Thread thread;
    /** The last pull failed: the next one asks for the whole list, and its success is logged. */
    private boolean failing;
    private boolean synced;

    DecisionStream(CrowdSecSetting setting, Bans bans) {
        this.setting = setting;
        this.bans = bans;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    CrowdSecSetting setting() {
        return setting;
    }

    void start() {
        thread = Thread.ofVirtual().name("crowdsec-stream").start(this::run);
    }

    /** Stops following; the bans stay as they are (the caller decides what becomes of them). */
    void stop() {
        stopped = true;
        if (thread != null) {
            thread.interrupt();
        }
        client.shutdownNow();
    }

    private void run() {
        while (!stopped) {
            Duration wait;
            try {
                pull(!synced);
                synced = true;
                backoff.reset();
                wait = setting.interval();
            } catch (IOException | JsonReader.BadJson | Refused e) {
                if (stopped) {
                    return;
                }
                synced = false;
                if (!failing) {
                    failing = true;
                    LOG.log(Level.WARNING, "CrowdSec local API {0}: {1}; keeping the {2} bans known and trying again "
                            + "with backoff", setting.url(), e.getMessage(), bans.size());
                } else {
                    LOG.log(Level.DEBUG, "CrowdSec local API {0} still failing: {1}", setting.url(), e.getMessage());
                }
                wait = backoff.next();
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The local API answered, but not with decisions: a refused key, a missing endpoint. */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private void pull(boolean startup) throws IOException, InterruptedException, JsonReader.BadJson, Refused {
        URI uri = setting.url().resolve("/v1/decisions/stream?startup=" + startup);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET()
                .header("X-Api-Key", setting.apiKey()).header("User-Agent", "usher-bouncer/1").build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 401 || response.statusCode() == 403) {
            throw new Refused("the bouncer key was refused (HTTP " + response.statusCode() + "; cscli bouncers add "
                    + "makes one)");
        }
        if (response.statusCode() != 200) {
            throw new Refused("HTTP " + response.statusCode() + " from /v1/decisions/stream");
        }
        if (startup) {
            decisions.clear();
        }
        decisions.apply(response.body());
        bans.replace(decisions.addresses(), decisions.ranges());
        if (failing || startup) {
            LOG.log(failing ? Level.INFO : Level.DEBUG, "CrowdSec local API {0}: {1} decisions enforced",
                    setting.url(), decisions.size());
            failing = false;
        }
    }
}
