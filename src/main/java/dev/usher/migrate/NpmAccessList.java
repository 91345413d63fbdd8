package dev.usher.migrate;

import dev.usher.config.Cidr;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One of NPM's access lists as Usher's {@code basic_auth}, {@code allow} and {@code deny}. NPM renders a list as nginx
 * {@code allow}/{@code deny} lines in order (the first that matches decides) followed by {@code deny all}, plus
 * {@code auth_basic} with an htpasswd file it makes from the passwords it keeps in its database as typed; Usher
 * serves a client that is in {@code allow} (when given) and not in {@code deny}, and that logs in when
 * {@code basic_auth} is given. The passwords are hashed with bcrypt here, since Usher checks bcrypt only.
 */
final class NpmAccessList {
    private static final Pattern BCRYPT = Pattern.compile("^\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}$");
    private static final int COST = 12;
    private static final List<String> EVERYONE = List.of("0.0.0.0/0", "::/0");

    /** What the list comes to for a site, and what could not be said exactly. */
    record Rules(Map<String, String> users, List<String> allow, List<String> deny, boolean passAuth,
                 List<String> differences, List<String> dropped, String refusesEveryone) {
    }

    private NpmAccessList() {
    }

    /**
     * @param list    the {@code access_list} row
     * @param auth    its {@code access_list_auth} rows
     * @param clients its {@code access_list_client} rows, in id order
     */
    static Rules convert(NpmDatabase.Row list, List<NpmDatabase.Row> auth, List<NpmDatabase.Row> clients) {
        List<String> differences = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        Map<String, String> users = new LinkedHashMap<>();
        for (NpmDatabase.Row a : auth) {
            String user = a.text("username");
            String password = a.text("password");
            if (user.isEmpty() || user.contains(":")) {
                dropped.add("user \"" + user + "\": not a user name Usher accepts");
            } else if (password.isEmpty()) {
                dropped.add("user " + user + ": no password in NPM's database (NPM leaves such users out too)");
            } else {
                users.put(user, BCRYPT.matcher(password).matches() ? password : bcrypt(password));
            }
        }
        List<String> allow = new ArrayList<>();
        List<String> deny = new ArrayList<>();
        List<Cidr> allowed = new ArrayList<>();
        boolean hasRules = false;
        for (NpmDatabase.Row c : clients) {
            String directive = c.text("directive").strip().toLowerCase(Locale.ROOT);
            String address = c.text("address").strip();
            if (!directive.equals("allow") && !directive.equals("deny") || address.isEmpty()) {
                continue; // NPM's template writes nothing for these either
            }
            hasRules = true;
            if (address.equalsIgnoreCase("all")) {
                if (directive.equals("allow")) {
                    allow.addAll(EVERYONE);
                }
                break; // nothing after "all" is ever reached
            }
            Cidr cidr;
            try {
                cidr = Cidr.parse(address);
            } catch (RuntimeException e) {
                dropped.add(directive + " " + address + ": not an address or CIDR range Usher reads");
                continue;
            }
            if (directive.equals("allow")) {
                allow.add(address);
                allowed.add(cidr);
            } else {
                if (allowed.stream().anyMatch(a -> overlap(a, cidr))) {
                    differences.add("deny " + address + " comes after an allow that covers some of it: NPM let "
                            + "those addresses in, Usher refuses them");
                }
                deny.add(address);
            }
        }
        boolean satisfyAny = list.flag("satisfy_any", false);
        String refuses = null;
        if (hasRules && allow.isEmpty()) {
            if (satisfyAny && !users.isEmpty()) {
                deny.clear(); // the address check fails for everyone, so only the login decides
            } else {
                refuses = "its access list lets no address in (only deny rules, then NPM's deny all)";
            }
        } else if (satisfyAny && hasRules && !users.isEmpty()) {
            differences.add("Satisfy Any: NPM let a client in with the right address or the right login; Usher asks "
                    + "for both");
        }
        if (hasRules && !allow.isEmpty() && allow.containsAll(EVERYONE) && deny.isEmpty()) {
            allow.clear(); // allow all: no address rule at all
        }
        return new Rules(users, allow, deny, list.flag("pass_auth", true), differences, dropped, refuses);
    }

    private static boolean overlap(Cidr a, Cidr b) {
        return a.network().getClass() == b.network().getClass()
                && (a.contains(b.network()) || b.contains(a.network()));
    }

    private static String bcrypt(String password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, COST);
    }
}
