package dev.usher.config;

import java.util.List;
import java.util.Map;

/**
 * Who may use a site.
 *
 * @param allow     when not empty, only client IPs in these networks are served (others get 403)
 * @param deny      client IPs in these networks get 403 (checked after allow)
 * @param basicAuth user name → bcrypt hash ({@code usher hash-password} makes one); empty for no auth
 */
public record Access(List<Cidr> allow, List<Cidr> deny, Map<String, String> basicAuth) {
    /** No restrictions. */
    public static final Access OPEN = new Access(List.of(), List.of(), Map.of());

    public Access {
        allow = List.copyOf(allow);
        deny = List.copyOf(deny);
        basicAuth = Map.copyOf(basicAuth);
    }
}
