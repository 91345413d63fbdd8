package dev.usher.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a TSIG key file as {@code tsig-keygen} (and {@code rndc-confgen}, {@code ddns-confgen}) write it:
 * <pre>key "usher" { algorithm hmac-sha256; secret "BASE64"; };</pre>
 * The file may hold several keys; {@link #pick} chooses one by name.
 */
final class TsigKeyFile {
    private static final Pattern KEY = Pattern.compile("key\\s+\"?([^\"\\s{]+)\"?\\s*\\{([^}]*)}\\s*;?");
    private static final Pattern ALGORITHM = Pattern.compile("algorithm\\s+\"?([A-Za-z0-9-]+)\"?\\s*;");
    private static final Pattern SECRET = Pattern.compile("secret\\s+\"([^\"]+)\"\\s*;");

    /** One key: its name (without a trailing dot), algorithm (lower-case) and secret. */
    record Key(String name, String algorithm, Secret secret) {
    }

    private TsigKeyFile() {
    }

    static List<Key> parse(String content, Path file) throws BadValue {
        String text = content.replaceAll("(?m)(#|//).*$", "");
        List<Key> keys = new ArrayList<>();
        Matcher m = KEY.matcher(text);
        while (m.find()) {
            String name = m.group(1).endsWith(".") ? m.group(1).substring(0, m.group(1).length() - 1) : m.group(1);
            Matcher algorithm = ALGORITHM.matcher(m.group(2));
            Matcher secret = SECRET.matcher(m.group(2));
            if (!algorithm.find() || !secret.find()) {
                throw new BadValue(file + ": the key \"" + name + "\" needs both \"algorithm\" and \"secret\"");
            }
            try {
                Base64.getDecoder().decode(secret.group(1));
            } catch (IllegalArgumentException e) {
                throw new BadValue(file + ": the secret of the key \"" + name + "\" is not base64");
            }
            keys.add(new Key(name, algorithm.group(1).toLowerCase(Locale.ROOT), new Secret(secret.group(1),
                    "the file " + file)));
        }
        if (keys.isEmpty()) {
            throw new BadValue(file + " holds no TSIG key; expected key \"NAME\" { algorithm hmac-sha256; secret "
                    + "\"...\"; }; as tsig-keygen writes it");
        }
        return keys;
    }

    /** The key named {@code wanted}, or the only key when {@code wanted} is null. */
    static Key pick(List<Key> keys, String wanted, Path file, List<String> algorithms) throws BadValue {
        Key key;
        if (wanted == null) {
            if (keys.size() > 1) {
                throw new BadValue(file + " holds " + keys.size() + " keys (" + String.join(", ",
                        keys.stream().map(Key::name).toList()) + "); say which with key_name");
            }
            key = keys.get(0);
        } else {
            String name = wanted.endsWith(".") ? wanted.substring(0, wanted.length() - 1) : wanted;
            key = keys.stream().filter(k -> k.name().equalsIgnoreCase(name)).findFirst()
                    .orElseThrow(() -> new BadValue(file + " holds no key named \"" + wanted + "\" (it has "
                            + String.join(", ", keys.stream().map(Key::name).toList()) + ")"));
        }
        if (!algorithms.contains(key.algorithm())) {
            throw new BadValue(file + ": the key \"" + key.name() + "\" uses " + key.algorithm() + "; Usher signs "
                    + "with " + String.join(", ", algorithms));
        }
        return key;
    }
}
