package dev.usher.dns;

import dev.usher.config.DnsSettings;
import dev.usher.json.JsonText;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cloudflare's API (v4) with an API token that may edit the zone's DNS. The endpoints used:
 * <ul>
 *   <li>{@code GET /zones?name=ZONE}: the zone's id, unless {@code zone_id} is given;</li>
 *   <li>{@code POST /zones/{zone_id}/dns_records} with {@code {"type": "TXT", "name", "content", "ttl"}}: add;</li>
 *   <li>{@code DELETE /zones/{zone_id}/dns_records/{id}}: remove (a 404, already gone, is fine);</li>
 *   <li>{@code GET /zones/{zone_id}/dns_records?type=TXT&name=NAME}: find the record to remove when the id of an add
 *       was never learnt.</li>
 * </ul>
 * Every answer is the envelope {@code {"success", "errors": [{"code", "message"}], "messages", "result"}}; a
 * refusal is reported with Cloudflare's codes and messages.
 */
final class CloudflareProvider implements DnsProvider {
    /** TTL of the challenge records: Cloudflare's shortest for every plan but Enterprise is 60; 120 as lego uses. */
    static final int TTL = 120;

    private final DnsSettings.Cloudflare settings;
    private final JsonApi api;
    private final Map<String, String> zoneIds = new ConcurrentHashMap<>();

    CloudflareProvider(DnsSettings.Cloudflare settings, JsonApi api) {
        this.settings = settings;
        this.api = api;
    }

    @Override
    public String present(ChallengeRecord record) throws DnsException, InterruptedException {
        String zone = zoneId(record.zone());
        String body = "{\"type\":\"TXT\",\"name\":" + JsonText.quote(record.name()) + ",\"content\":"
                + JsonText.quote(record.value()) + ",\"ttl\":" + TTL + "}";
        JsonApi.Reply reply = call("POST", "/zones/" + zone + "/dns_records", body, "add " + record.describe());
        if (reply.get("result") instanceof Map<?, ?> result && result.get("id") instanceof String id) {
            return id;
        }
        throw new DnsException("Cloudflare answered the add of " + record.describe() + " without a record id: "
                + JsonApi.excerpt(reply.body()));
    }

    @Override
    public void cleanUp(ChallengeRecord record, String handle) throws DnsException, InterruptedException {
        String zone = zoneId(record.zone());
        if (!handle.isEmpty()) {
            delete(zone, handle, record);
            return;
        }
        JsonApi.Reply found = call("GET", "/zones/" + zone + "/dns_records?type=TXT&name=" + encode(record.name()),
                null, "look up " + record.describe() + " to remove it");
        if (found.get("result") instanceof List<?> records) {
            for (Object o : records) {
                if (o instanceof Map<?, ?> r && r.get("id") instanceof String id && r.get("content") instanceof String c
                        && (c.equals(record.value()) || c.equals("\"" + record.value() + "\""))) {
                    delete(zone, id, record);
                }
            }
        }
    }

    private void delete(String zone, String id, ChallengeRecord record) throws DnsException, InterruptedException {
        JsonApi.Reply reply = api.call("DELETE", uri("/zones/" + zone + "/dns_records/" + encode(id)), null,
                authorization());
        if (reply.status() != 404) {
            check(reply, "remove " + record.describe());
        }
    }

    /** The zone's id: given, or looked up by name once. */
    private String zoneId(String zone) throws DnsException, InterruptedException {
        if (settings.zoneId() != null) {
            return settings.zoneId();
        }
        String known = zoneIds.get(zone);
        if (known != null) {
            return known;
        }
        JsonApi.Reply reply = call("GET", "/zones?name=" + encode(zone), null, "find the zone " + zone);
        if (reply.get("result") instanceof List<?> zones && !zones.isEmpty()
                && zones.get(0) instanceof Map<?, ?> first && first.get("id") instanceof String id) {
            zoneIds.put(zone, id);
            return id;
        }
        throw new DnsException("Cloudflare shows no zone named " + zone + " to this token: it needs the "
                + "permissions Zone:Read and DNS:Edit on that zone (or set zone_id)");
    }

    private JsonApi.Reply call(String method, String path, String body, String doing)
            throws DnsException, InterruptedException {
        return check(api.call(method, uri(path), body, authorization()), doing);
    }

    private JsonApi.Reply check(JsonApi.Reply reply, String doing) throws DnsException {
        if (reply.ok() && Boolean.TRUE.equals(reply.get("success"))) {
            return reply;
        }
        StringJoiner errors = new StringJoiner("; ");
        if (reply.get("errors") instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> e) {
                    Object code = e.get("code");
                    String number = code instanceof Double d ? String.valueOf(d.longValue()) : String.valueOf(code);
                    errors.add("[" + number + "] " + e.get("message"));
                }
            }
        }
        String said = errors.length() > 0 ? errors.toString()
                : reply.json() == null ? JsonApi.excerpt(reply.body()) : "no error given";
        String hint = reply.status() == 401 || reply.status() == 403
                ? " (check the API token and that it may edit this zone's DNS)" : reply.status() == 429
                ? " (rate limited; Usher tries again later)" : "";
        throw new DnsException("Cloudflare refused to " + doing + ": " + said + " (HTTP " + reply.status() + ")"
                + hint);
    }

    private String[] authorization() {
        return new String[] {"Authorization", "Bearer " + settings.token().reveal()};
    }

    private URI uri(String path) {
        return URI.create(settings.api().toString().replaceFirst("/+$", "") + path);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
