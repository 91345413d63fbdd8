package dev.usher.dns;

import dev.usher.config.DnsSettings;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Update;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * RFC 2136 dynamic updates signed with TSIG (RFC 8945), sent to the zone's primary: one UPDATE adds the TXT value,
 * another deletes exactly that value (other TXT records at the name stay). BIND ({@code allow-update { key ...; }}
 * or {@code update-policy}), Knot, PowerDNS and many routers accept them. A refusal is reported with the server's
 * own words: its RCODE (REFUSED, NOTAUTH, ...) and the TSIG error (BADKEY, BADSIG, BADTIME).
 */
final class Rfc2136Provider implements DnsProvider {
    /** TTL of the challenge records: short, so a resolver that saw one forgets it soon. */
    static final long TTL = 60;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final DnsSettings.Rfc2136 settings;
    private final TSIG key;

    Rfc2136Provider(DnsSettings.Rfc2136 settings) throws DnsException {
        this.settings = settings;
        try {
            this.key = new TSIG(Name.fromString(settings.keyAlgorithm() + "."), Name.fromString(settings.keyName()
                    + "."), settings.keySecret().reveal());
        } catch (TextParseException | IllegalArgumentException e) {
            throw new DnsException("the TSIG key " + settings.keyName() + " cannot be used: " + e.getMessage(), e);
        }
    }

    @Override
    public String present(ChallengeRecord record) throws DnsException, InterruptedException {
        Update update = update(record);
        update.add(txt(record, TTL));
        send(update, record, "add " + record.describe());
        return "";
    }

    @Override
    public void cleanUp(ChallengeRecord record, String handle) throws DnsException, InterruptedException {
        Update update = update(record);
        update.delete(txt(record, 0));
        send(update, record, "delete " + record.describe());
    }

    private Update update(ChallengeRecord record) throws DnsException {
        try {
            return new Update(Name.fromString(record.zone() + "."));
        } catch (TextParseException e) {
            throw new DnsException("\"" + record.zone() + "\" is not a zone name", e);
        }
    }

    private static TXTRecord txt(ChallengeRecord record, long ttl) throws DnsException {
        try {
            return new TXTRecord(Name.fromString(record.fqdn()), DClass.IN, ttl, record.value());
        } catch (TextParseException e) {
            throw new DnsException("\"" + record.name() + "\" is not a DNS name", e);
        }
    }

    private void send(Update update, ChallengeRecord record, String what) throws DnsException, InterruptedException {
        String server = settings.server().toString();
        SimpleResolver resolver;
        try {
            resolver = new SimpleResolver(new InetSocketAddress(InetAddress.getByName(settings.server().host()),
                    settings.server().port()));
        } catch (UnknownHostException e) {
            throw new DnsException("rfc2136: cannot find the address of the DNS server " + settings.server().host(), e);
        }
        resolver.setTSIGKey(key);
        resolver.setTimeout(TIMEOUT);
        resolver.setTCP(true); // updates are small, but TCP needs no retry logic and passes where UDP is filtered
        Message answer;
        try {
            answer = resolver.sendAsync(update).toCompletableFuture().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof IOException io ? io : e;
            throw new DnsException("rfc2136: could not " + what + " at " + server + ": no answer ("
                    + cause.getMessage() + ")", cause);
        }
        int rcode = answer.getRcode();
        TSIGRecord tsig = answer.getTSIG();
        if (rcode != Rcode.NOERROR) {
            String tsigError = tsig != null && tsig.getError() != Rcode.NOERROR
                    ? ", TSIG " + Rcode.TSIGstring(tsig.getError()) : "";
            throw new DnsException("rfc2136: " + server + " refused to " + what + " in the zone "
                    + record.zone() + ": " + Rcode.string(rcode) + tsigError
                    + hint(rcode, tsig));
        }
        if (!answer.isVerified()) {
            throw new DnsException("rfc2136: the answer of " + server + " to " + what + " is not signed with the key "
                    + settings.keyName() + "; is that the server holding the key?");
        }
    }

    private String hint(int rcode, TSIGRecord tsig) {
        if (tsig != null && tsig.getError() == Rcode.BADTIME) {
            return " (the clocks of this machine and the server differ by more than 5 minutes)";
        }
        if (tsig != null && tsig.getError() != Rcode.NOERROR || rcode == Rcode.NOTAUTH) {
            return " (the server does not know the key " + settings.keyName() + " with that secret and algorithm)";
        }
        if (rcode == Rcode.REFUSED) {
            return " (the key may not update this zone: check allow-update or update-policy)";
        }
        if (rcode == Rcode.NOTZONE) {
            return " (the name is outside the zone; set acme.dns.zone if the zone was found wrong)";
        }
        return "";
    }
}
