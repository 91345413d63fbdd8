package dev.usher.dns;

import dev.usher.config.DnsSettings;
import dev.usher.json.JsonText;

import java.net.URI;

/**
 * An acme-dns server. {@code _acme-challenge.NAME} is a CNAME to the account's {@code fulldomain} (set once at the
 * registrar), so Usher never needs the registrar's credentials. The endpoint used: {@code POST /update} with the
 * headers {@code X-Api-User} and {@code X-Api-Key} and the body {@code {"subdomain", "txt"}}; it answers
 * {@code {"txt"}}, or an error {@code {"error": "forbidden" | "bad_subdomain" | "bad_txt" | "db_error"}}.
 *
 * <p>acme-dns keeps the two latest values of an account (a wildcard and its base name need two at once) and has no
 * delete: cleaning up leaves them, under the account's own subdomain, where they can validate nothing else.
 */
final class AcmeDnsProvider implements DnsProvider {
    private final DnsSettings.AcmeDns settings;
    private final JsonApi api;

    AcmeDnsProvider(DnsSettings.AcmeDns settings, JsonApi api) {
        this.settings = settings;
        this.api = api;
    }

    @Override
    public String present(ChallengeRecord record) throws DnsException, InterruptedException {
        if (!record.name().equals(settings.fulldomain())) {
            throw new DnsException("acme-dns: " + record.name() + " is not the account's " + settings.fulldomain()
                    + "; add the record \"" + record.name() + ". CNAME " + settings.fulldomain() + ".\" at the "
                    + "domain's DNS host (once; Usher follows it from then on)");
        }
        String body = "{\"subdomain\":" + JsonText.quote(settings.subdomain()) + ",\"txt\":"
                + JsonText.quote(record.value()) + "}";
        JsonApi.Reply reply = api.call("POST", URI.create(settings.server() + "/update"), body,
                "X-Api-User", settings.username(), "X-Api-Key", settings.password().reveal());
        if (reply.ok() && record.value().equals(reply.get("txt"))) {
            return "";
        }
        String error = reply.get("error") instanceof String e ? e
                : reply.json() == null ? JsonApi.excerpt(reply.body()) : "no error given";
        throw new DnsException("acme-dns at " + settings.server() + " refused the update of " + record.describe()
                + ": " + error + " (HTTP " + reply.status() + ")" + hint(error));
    }

    @Override
    public void cleanUp(ChallengeRecord record, String handle) {
        // acme-dns has no delete: the two latest values stay under the account's subdomain (see the class comment)
    }

    private static String hint(String error) {
        return switch (error) {
            case "forbidden" -> " (wrong username or password, or this machine's address is not in the account's "
                    + "allowfrom)";
            case "bad_subdomain" -> " (the fulldomain does not belong to this account)";
            case "bad_txt" -> " (acme-dns takes 43-character challenge values only)";
            default -> "";
        };
    }
}
