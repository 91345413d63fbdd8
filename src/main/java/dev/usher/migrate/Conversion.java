package dev.usher.migrate;

import java.util.ArrayList;
import java.util.List;

/**
 * What a converter made of a source set-up: the sites, the certificates found beside them, the top-level settings,
 * and what was not converted (or was converted with a difference), each with where it came from.
 *
 * @param source       what was read, for the file's header ({@code NPM database /data/database.sqlite})
 * @param globals      top-level settings
 * @param sites        the sites in source order
 * @param streams      the TCP and UDP ports relayed, in source order
 * @param certificates certificates found, unchecked
 * @param findings     what was not converted, or differs
 */
public record Conversion(String source, Globals globals, List<SiteEntry> sites, List<StreamEntry> streams,
                         List<FoundCertificate> certificates, List<Finding> findings) {
    public Conversion {
        sites = List.copyOf(sites);
        streams = List.copyOf(streams);
        certificates = List.copyOf(certificates);
        findings = List.copyOf(findings);
    }

    /** Collects a conversion while a converter reads its source. */
    public static final class Builder {
        private final String source;
        private Globals globals = Globals.NONE;
        private final List<SiteEntry> sites = new ArrayList<>();
        private final List<StreamEntry> streams = new ArrayList<>();
        private final List<FoundCertificate> certificates = new ArrayList<>();
        private final List<Finding> findings = new ArrayList<>();

        public Builder(String source) {
            this.source = source;
        }

        public Globals globals() {
            return globals;
        }

        public Builder globals(Globals value) {
            this.globals = value;
            return this;
        }

        public Builder site(SiteEntry site) {
            sites.add(site);
            return this;
        }

        public Builder stream(StreamEntry stream) {
            streams.add(stream);
            return this;
        }

        public Builder certificate(FoundCertificate cert) {
            certificates.add(cert);
            return this;
        }

        /** Records something not converted. */
        public Builder notConverted(Origin origin, String what, String why) {
            findings.add(new Finding(Finding.Kind.NOT_CONVERTED, origin, what, why));
            return this;
        }

        /** Records something converted with a difference. */
        public Builder changed(Origin origin, String what, String why) {
            findings.add(new Finding(Finding.Kind.CHANGED, origin, what, why));
            return this;
        }

        public Conversion build() {
            return new Conversion(source, globals, sites, streams, certificates, findings);
        }
    }
}
