package dev.usher.testing;

import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A JUnit 5 extension that starts real Ushers and real whoami backends for a test class and stops them afterwards,
 * newest first: what a test method starts is closed after that test, what {@code @BeforeAll} (or a static
 * initialiser) starts is closed after the class. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final Servers servers = new Servers();
 *
 * @BeforeAll
 * static void start() throws Exception {
 *     Whoami backend = servers.backend("b");
 *     usher = servers.usher("sites:\n  app.example.com: " + servers.address(backend) + "\n");
 * }
 * }</pre>
 */
public final class Servers implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Deque<AutoCloseable> classScope = new ArrayDeque<>();
    private final Deque<AutoCloseable> testScope = new ArrayDeque<>();
    private boolean inTest;

    /** A whoami backend on an ephemeral loopback port that answers with the request it saw; {@code name} is its Hostname. */
    public Whoami backend(String name) {
        return track(Whoami.start("127.0.0.1", 0, name));
    }

    /** {@code 127.0.0.1:PORT} of {@code backend}, as a site's upstream. */
    public static String address(Whoami backend) {
        return "127.0.0.1:" + backend.port();
    }

    /**
     * A real Usher started in-process from {@code yaml} (plain HTTP on an ephemeral loopback port and no admin endpoint
     * unless the text says otherwise; see {@link RunningUsher#start}).
     */
    public RunningUsher usher(String yaml) throws Exception {
        return track(RunningUsher.start(yaml));
    }

    /** Closes {@code resource} when its scope ends (the test that made it, or the class). */
    public <T extends AutoCloseable> T track(T resource) {
        (inTest ? testScope : classScope).push(resource);
        return resource;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        inTest = false;
        closeAll(testScope);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        closeAll(classScope);
    }

    private static void closeAll(Deque<AutoCloseable> scope) throws Exception {
        Exception first = null;
        AutoCloseable next;
        while ((next = scope.poll()) != null) {
            try {
                next.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
