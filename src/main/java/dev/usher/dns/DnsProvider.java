package dev.usher.dns;

/**
 * Puts a DNS-01 TXT record in place and takes it away again, through one DNS provider's interface. Calls block on
 * the network (or a process) with bounded timeouts; they are made on virtual threads, several at once.
 */
interface DnsProvider {
    /**
     * Adds {@code record.value} to the TXT records at {@code record.name}, beside any that are there (a wildcard
     * and its base name need two values at one name at once).
     *
     * @return what {@link #cleanUp} needs to find the record again (a provider's record id), or "" when nothing
     */
    String present(ChallengeRecord record) throws DnsException, InterruptedException;

    /**
     * Removes that one value again. {@code handle} is what {@link #present} returned, or "" when present failed
     * or did not return (it may have added the record all the same): then the record is looked up by name and
     * value.
     */
    void cleanUp(ChallengeRecord record, String handle) throws DnsException, InterruptedException;
}
