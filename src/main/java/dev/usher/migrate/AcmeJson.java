package dev.usher.migrate;

import dev.usher.json.JsonReader;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Traefik's {@code acme.json}: for each certificate resolver, {@code Certificates} with the {@code domain}
 * ({@code main} and {@code sans}) and the chain and key as base64 of their PEM. Traefik 1's file (one
 * {@code Certificates} list at the top, {@code Domain}/{@code Certificate}/{@code Key}) is read too.
 */
final class AcmeJson {
    private AcmeJson() {
    }

    static void read(Path file, Conversion.Builder out) throws ImportException {
        Object top;
        try {
            top = JsonReader.parse(SourceFiles.text(file));
        } catch (JsonReader.BadJson e) {
            throw new ImportException(file + " is not valid JSON: " + e.getMessage());
        }
        String name = file.getFileName().toString();
        if (Tree.get(top, "Certificates") != null) {
            certificates(Tree.get(top, "Certificates"), name, "Certificates", file, out);
            return;
        }
        for (Map.Entry<String, Object> resolver : Tree.asMap(top).entrySet()) {
            certificates(Tree.get(resolver.getValue(), "Certificates"), name, resolver.getKey(), file, out);
        }
    }

    private static void certificates(Object list, String name, String resolver, Path file, Conversion.Builder out) {
        if (!(list instanceof List<?> certs)) {
            return;
        }
        for (int i = 0; i < certs.size(); i++) {
            Object c = certs.get(i);
            Object domain = Tree.get(c, "domain");
            List<String> names = new ArrayList<>();
            if (Tree.string(domain, "main") != null) {
                names.add(HostText.parse(Tree.string(domain, "main")).ascii());
            }
            Tree.strings(domain, "sans").forEach(s -> names.add(HostText.parse(s).ascii()));
            Origin origin = new Origin(TraefikImport.FORMAT, name, resolver + " certificate " + i + " ("
                    + String.join(", ", names) + ")");
            String cert = decode(Tree.string(c, "certificate"));
            String key = decode(Tree.string(c, "key"));
            if (cert == null || key == null) {
                out.notConverted(origin, "certificate", "its certificate or key is missing or not base64");
                continue;
            }
            String where = file + " " + resolver + " certificate " + i;
            out.certificate(FoundCertificate.acme(origin, names, cert, where, key, where));
        }
    }

    private static String decode(String base64) {
        if (base64 == null) {
            return null;
        }
        try {
            return new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.ISO_8859_1);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
