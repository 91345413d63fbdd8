package dev.usher.cert;

import java.io.IOException;

/**
 * A shared storage cannot be reached right now. Orders wait for it (ordering alone could order a name that another
 * node orders too); what is in service keeps being served from memory and the local copy.
 */
public final class StorageUnavailableException extends IOException {
    private static final long serialVersionUID = 1L;

    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
