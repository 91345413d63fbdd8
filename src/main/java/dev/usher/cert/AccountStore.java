package dev.usher.cert;

import java.io.IOException;
import java.security.KeyPair;

/** Where ACME account keys are kept: one per CA, created once and reused on every start. */
public interface AccountStore {
    /** The account key pair for the CA with this issuer id, created and saved (mode 0600) the first time. */
    KeyPair accountKey(String issuerId) throws IOException;
}
