package dev.usher.fleet;

/**
 * The names of what a fleet keeps in Redis, all under {@code usher:}:
 * <pre>
 * usher:cert:ISSUER:NAME         hash: chain (PEM), key (sealed PEM), not_after, sha256, fence, node, saved_at
 * usher:lock:ISSUER:NAME         the order lock: a token, with a lease (PX)
 * usher:fence                    counter of fencing tokens
 * usher:account:ISSUER           the ACME account key pair (sealed PEM)
 * usher:account-lock:ISSUER      held while the account key is made
 * usher:challenge:http-01:TOKEN  an HTTP-01 key authorization in progress (expires after 10 minutes)
 * usher:challenge:tls-alpn-01:NAME  a TLS-ALPN-01 certificate and key in progress (sealed; expires likewise)
 * usher:confirmed:TYPE:ID        the other nodes that hold that answer now (a set of names; expires likewise)
 * usher:node:NODE                a node's heartbeat (hash; expires when the node stops writing it)
 * usher:events                   the channel: "NODE cert ISSUER NAME", "NODE http-01 TOKEN", "NODE tls-alpn-01 NAME"
 * </pre>
 * Names are the certificate names as written (lower case); no part of a key holds a colon but the IPv6 names, which
 * come last.
 */
final class FleetKeys {
    static final String CHANNEL = "usher:events";
    static final String FENCE = "usher:fence";
    static final String CERT_PREFIX = "usher:cert:";
    static final String CHALLENGE_PREFIX = "usher:challenge:";
    static final String NODE_PREFIX = "usher:node:";
    static final String HTTP01 = "http-01";
    static final String TLS_ALPN01 = "tls-alpn-01";

    private FleetKeys() {
    }

    static String cert(String issuerId, String name) {
        return CERT_PREFIX + issuerId + ":" + name;
    }

    static String lock(String issuerId, String name) {
        return "usher:lock:" + issuerId + ":" + name;
    }

    static String account(String issuerId) {
        return "usher:account:" + issuerId;
    }

    static String accountLock(String issuerId) {
        return "usher:account-lock:" + issuerId;
    }

    static String challenge(String type, String id) {
        return CHALLENGE_PREFIX + type + ":" + id;
    }

    static String confirmations(String type, String id) {
        return "usher:confirmed:" + type + ":" + id;
    }

    static String node(String node) {
        return NODE_PREFIX + node;
    }
}
