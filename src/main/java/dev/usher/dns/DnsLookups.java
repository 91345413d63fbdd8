package dev.usher.dns;

import dev.usher.config.DnsServer;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.ResolverConfig;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The DNS queries DNS-01 needs, made with dnsjava: through the recursive resolvers, where {@code _acme-challenge}
 * really points (CNAMEs), which zone holds it (SOA) and which servers are authoritative for that zone (NS, then
 * their addresses); and straight to one authoritative server, which TXT values it answers with right now. No
 * answer is cached here: a cached TXT answer is exactly what a propagation check must not see.
 */
final class DnsLookups {
    /** How long one query may take (a lost UDP packet is retried within it). */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(4);
    private static final int MAX_CNAMES = 8;

    private final Resolver resolvers;
    private final String resolverNames;

    /** @param resolvers the recursive resolvers to ask; empty: the system's ({@code /etc/resolv.conf}) */
    DnsLookups(List<DnsServer> resolvers) throws DnsException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        if (resolvers.isEmpty()) {
            addresses.addAll(ResolverConfig.getCurrentConfig().servers());
        } else {
            for (DnsServer server : resolvers) {
                try {
                    addresses.add(new InetSocketAddress(InetAddress.getByName(server.host()), server.port()));
                } catch (UnknownHostException e) {
                    throw new DnsException("the resolver " + server + " is not an IP address", e);
                }
            }
        }
        if (addresses.isEmpty()) {
            throw new DnsException("no DNS resolver to ask: /etc/resolv.conf lists none; set acme.dns.resolvers");
        }
        List<Resolver> each = new ArrayList<>();
        for (InetSocketAddress address : addresses) {
            SimpleResolver one = new SimpleResolver(address);
            one.setTimeout(QUERY_TIMEOUT);
            each.add(one);
        }
        ExtendedResolver extended = new ExtendedResolver(each);
        extended.setTimeout(QUERY_TIMEOUT);
        extended.setRetries(2);
        this.resolvers = extended;
        this.resolverNames = String.join(", ", addresses.stream().map(DnsLookups::show).toList());
    }

    /** Where {@code name}'s records really live: the end of its CNAME chain (itself when it has no CNAME). */
    String followCnames(String name) throws DnsException, InterruptedException {
        String current = name;
        for (int i = 0; i < MAX_CNAMES; i++) {
            Message answer = ask(current, Type.CNAME, "follow the CNAME at " + current);
            String next = null;
            for (Record r : answer.getSection(Section.ANSWER)) {
                if (r instanceof CNAMERecord cname && sameName(r.getName(), current)) {
                    next = text(cname.getTarget());
                }
            }
            if (next == null) {
                return current;
            }
            current = next;
        }
        throw new DnsException("the CNAMEs from " + name + " go on for more than " + MAX_CNAMES + " steps (a loop?)");
    }

    /** The zone that holds {@code name}: the owner of the SOA record a query for {@code name}'s SOA brings back. */
    String zoneOf(String name) throws DnsException, InterruptedException {
        String candidate = name;
        while (true) {
            Message answer = ask(candidate, Type.SOA, "find the zone of " + name);
            for (int section : new int[] {Section.ANSWER, Section.AUTHORITY}) {
                for (Record r : answer.getSection(section)) {
                    if (r.getType() == Type.SOA) {
                        return text(r.getName());
                    }
                }
            }
            int dot = candidate.indexOf('.');
            if (dot < 0) {
                throw new DnsException("no zone holds " + name + ": the resolvers (" + resolverNames + ") know no SOA "
                        + "record above it");
            }
            candidate = candidate.substring(dot + 1);
        }
    }

    /** One authoritative server of a zone: its name and addresses. */
    record Nameserver(String name, List<InetAddress> addresses) {
    }

    /** The zone's authoritative servers (its NS records) with their addresses. */
    List<Nameserver> nameservers(String zone) throws DnsException, InterruptedException {
        Message answer = ask(zone, Type.NS, "find the name servers of " + zone);
        List<String> names = new ArrayList<>();
        for (Record r : answer.getSection(Section.ANSWER)) {
            if (r instanceof NSRecord ns && sameName(r.getName(), zone)) {
                names.add(text(ns.getTarget()));
            }
        }
        if (names.isEmpty()) {
            throw new DnsException("the zone " + zone + " has no NS records (asked " + resolverNames + ")");
        }
        List<Nameserver> result = new ArrayList<>();
        for (String ns : names) {
            Set<InetAddress> addresses = new LinkedHashSet<>();
            for (int type : new int[] {Type.A, Type.AAAA}) {
                for (Record r : ask(ns, type, "find the address of " + ns).getSection(Section.ANSWER)) {
                    if (r instanceof org.xbill.DNS.ARecord a) {
                        addresses.add(a.getAddress());
                    } else if (r instanceof org.xbill.DNS.AAAARecord aaaa) {
                        addresses.add(aaaa.getAddress());
                    }
                }
            }
            if (addresses.isEmpty()) {
                throw new DnsException("the name server " + ns + " of " + zone + " has no address (A or AAAA record)");
            }
            result.add(new Nameserver(ns, List.copyOf(addresses)));
        }
        return result;
    }

    /** What one server answers, right now, for the TXT records at a name. */
    record TxtAnswer(Set<String> values, String problem) {
        /** Why the answer says nothing about the zone: no answer, not authoritative; null for a real answer. */
        boolean usable() {
            return problem == null;
        }
    }

    /** The TXT values {@code server} itself holds for {@code name} (no recursion): empty for NXDOMAIN or NODATA. */
    static TxtAnswer txtAt(InetSocketAddress server, String name) throws InterruptedException {
        SimpleResolver direct = new SimpleResolver(server);
        direct.setTimeout(QUERY_TIMEOUT);
        Message query;
        try {
            query = Message.newQuery(Record.newRecord(Name.fromString(absolute(name)), Type.TXT, DClass.IN));
        } catch (TextParseException e) {
            return new TxtAnswer(Set.of(), "not a DNS name: " + name);
        }
        query.getHeader().unsetFlag(Flags.RD);
        Message answer;
        try {
            answer = send(direct, query);
        } catch (IOException e) {
            return new TxtAnswer(Set.of(), "no answer (" + e.getMessage() + ")");
        }
        int rcode = answer.getRcode();
        if (rcode != Rcode.NOERROR && rcode != Rcode.NXDOMAIN) {
            return new TxtAnswer(Set.of(), "answers " + Rcode.string(rcode));
        }
        if (!answer.getHeader().getFlag(Flags.AA)) {
            return new TxtAnswer(Set.of(), "is not authoritative for the name (no AA flag)");
        }
        Set<String> values = new LinkedHashSet<>();
        for (Record r : answer.getSection(Section.ANSWER)) {
            if (r instanceof TXTRecord txt && sameName(r.getName(), name)) {
                values.add(String.join("", txt.getStrings()));
            }
        }
        return new TxtAnswer(values, null);
    }

    private Message ask(String name, int type, String doing) throws DnsException, InterruptedException {
        Message query;
        try {
            query = Message.newQuery(Record.newRecord(Name.fromString(absolute(name)), type, DClass.IN));
        } catch (TextParseException e) {
            throw new DnsException("cannot " + doing + ": \"" + name + "\" is not a DNS name", e);
        }
        Message answer;
        try {
            answer = send(resolvers, query);
        } catch (IOException e) {
            throw new DnsException("cannot " + doing + ": no answer from the resolvers (" + resolverNames + "): "
                    + e.getMessage(), e);
        }
        int rcode = answer.getRcode();
        if (rcode != Rcode.NOERROR && rcode != Rcode.NXDOMAIN) {
            throw new DnsException("cannot " + doing + ": the resolvers (" + resolverNames + ") answer "
                    + Rcode.string(rcode) + (rcode == Rcode.REFUSED ? " (is it a recursive resolver? set "
                    + "acme.dns.resolvers to one)" : ""));
        }
        return answer;
    }

    /** dnsjava's send, with an interrupt (Usher stopping) ending the wait. */
    private static Message send(Resolver resolver, Message query) throws IOException, InterruptedException {
        try {
            return resolver.sendAsync(query).toCompletableFuture().get();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(cause), cause);
        }
    }

    private static String absolute(String name) {
        return name.endsWith(".") ? name : name + ".";
    }

    private static boolean sameName(Name a, String b) {
        return text(a).equals(b.toLowerCase(Locale.ROOT).replaceFirst("\\.$", ""));
    }

    /** A name as the rest of Usher writes it: lower-case, no trailing dot. */
    static String text(Name name) {
        return name.toString(true).toLowerCase(Locale.ROOT);
    }

    static String show(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        if (host.indexOf(':') < 0) {
            return host + ":" + address.getPort();
        }
        // the JDK writes every group of an IPv6 address: 0:0:0:0:0:0:0:1; people write ::1
        String compact = host.replaceFirst("%.*$", "").replaceFirst("(^|:)(0(:|$)){2,8}", "::");
        return "[" + compact + "]:" + address.getPort();
    }
}
