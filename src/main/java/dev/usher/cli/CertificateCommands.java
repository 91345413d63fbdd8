package dev.usher.cli;

import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.ListenAddress;
import dev.usher.config.UsherConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code usher renew NAME} (asks the running Usher, through its admin endpoint, to order a new certificate now)
 * and {@code usher trust} (where the local CA's root is and how to make browsers and tools trust it).
 */
final class CertificateCommands {
    private final PrintStream out;
    private final PrintStream err;

    CertificateCommands(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int renew(String[] args) {
        CommandArguments arguments = CommandArguments.parse("renew", args, false, 1, err);
        if (arguments == null) {
            return 2;
        }
        Path file = arguments.configOrDefault();
        String name = arguments.words().isEmpty() ? null
                : arguments.words().get(0).toLowerCase(java.util.Locale.ROOT);
        if (name == null) {
            err.println("usher renew: which site? usage: usher renew NAME [--config FILE]");
            return 2;
        }
        UsherConfig config = load(file);
        if (config == null) {
            return 1;
        }
        ListenAddress admin = config.admin();
        if (admin == null) {
            err.println("usher renew: the admin endpoint is off in " + file + " (admin: off), so the running Usher "
                    + "cannot be asked; remove admin: off, or restart Usher after deleting the certificate's folder "
                    + "under " + config.dataDir().resolve("certificates"));
            return 1;
        }
        HttpRequest request = AdminRequests.post(admin, "/certificates/"
                + URLEncoder.encode(name, StandardCharsets.UTF_8) + "/renew", Duration.ofMinutes(5));
        URI uri = request.uri();
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                out.println("usher renew: " + name + ": new certificate in service: " + response.body().strip());
                return 0;
            }
            err.println("usher renew: " + name + ": " + response.statusCode() + " " + response.body().strip());
            return 1;
        } catch (ConnectException e) {
            err.println("usher renew: no Usher answers at " + uri.getAuthority() + " (is it running with " + file
                    + "?)");
            return 1;
        } catch (IOException e) {
            err.println("usher renew: " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    int trust(String[] args) {
        CommandArguments arguments = CommandArguments.parse("trust", args, false, 0, err);
        if (arguments == null) {
            err.println("usage: usher trust [--config FILE]");
            return 2;
        }
        Path file = arguments.configOrDefault();
        UsherConfig config = java.nio.file.Files.exists(file) ? load(file) : defaults();
        if (config == null) {
            return 1;
        }
        // Only looked up, never created here: made by "sudo usher trust" it would belong to root, and the
        // service's own user could then not use it.
        Path root = config.dataDir().resolve("ca").resolve("root.pem").toAbsolutePath();
        if (!java.nio.file.Files.isReadable(root)) {
            err.println("usher trust: there is no local CA in " + config.dataDir() + " yet (or it is not readable "
                    + "by this user): Usher creates it when it first serves a site with a local certificate "
                    + "(localhost, *.localhost, *.test, *.internal, *.lan, *.home.arpa, an IP address, or "
                    + "tls: internal). Start Usher, then run usher trust again as the same user.");
            return 1;
        }
        out.println("""
                Usher's local CA signs the certificates of localhost, *.localhost, IP addresses and names under
                .test, .internal, .lan and .home.arpa (or any site with tls: internal). Its root certificate:

                  %1$s

                Trust it where you browse from (the key never leaves %2$s):
                  Debian/Ubuntu:  sudo cp %1$s /usr/local/share/ca-certificates/usher-local-ca.crt \\
                                    && sudo update-ca-certificates
                  Fedora/RHEL:    sudo cp %1$s /etc/pki/ca-trust/source/anchors/usher-local-ca.pem \\
                                    && sudo update-ca-trust
                  Chrome/Firefox on Linux (own store, needs libnss3-tools):
                                  certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n "Usher local CA" -i %1$s
                  macOS:          sudo security add-trusted-cert -d -r trustRoot \\
                                    -k /Library/Keychains/System.keychain %1$s
                  Windows:        certutil -addstore -f ROOT usher-root.pem   (after copying the file over)
                  curl:           curl --cacert %1$s https://app.localhost/

                This is the data directory of %3$s; run usher trust as the user that runs Usher (or with the same
                --config) so that it shows the same root.""".formatted(root, config.dataDir(), config.source()));
        return 0;
    }

    private UsherConfig load(Path file) {
        return CommandConfig.load(file, "usher", err, count -> file + ": " + count + " error(s)");
    }

    private UsherConfig defaults() {
        try {
            return ConfigLoader.parse("", "<defaults>");
        } catch (ConfigException e) {
            throw new IllegalStateException(e);
        }
    }
}
