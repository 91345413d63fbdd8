package dev.usher.dns;

import dev.usher.config.DnsSettings;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Any DNS host, through a program of the user's: {@code COMMAND... present FQDN VALUE} to add the TXT value and
 * {@code COMMAND... cleanup FQDN VALUE} to remove it, where FQDN is {@code _acme-challenge.NAME.} (after CNAMEs,
 * with its trailing dot), the contract of lego's exec provider, so hook scripts written for lego or certbot work.
 * Exit status 0 is success; otherwise the end of what it printed is the error. Usher waits for the record on every
 * authoritative server itself, so the program need not.
 */
final class ExecProvider implements DnsProvider {
    /** How much of the program's output is kept for an error message. */
    private static final int KEEP = 2000;

    private final DnsSettings.Exec settings;

    ExecProvider(DnsSettings.Exec settings) {
        this.settings = settings;
    }

    @Override
    public String present(ChallengeRecord record) throws DnsException, InterruptedException {
        run("present", record);
        return "";
    }

    @Override
    public void cleanUp(ChallengeRecord record, String handle) throws DnsException, InterruptedException {
        run("cleanup", record);
    }

    private void run(String action, ChallengeRecord record) throws DnsException, InterruptedException {
        List<String> command = new ArrayList<>(settings.command());
        command.addAll(List.of(action, record.fqdn(), record.value()));
        String program = settings.command().get(0);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new DnsException("exec: cannot run " + program + ": " + e.getMessage(), e);
        }
        Output output = new Output(process.getInputStream());
        Thread reader = Thread.ofVirtual().name("dns-hook-output").start(output);
        try {
            if (!process.waitFor(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new DnsException("exec: " + program + " " + action + " " + record.fqdn() + " did not finish "
                        + "within " + (settings.timeout().toMillis() < 1000 ? settings.timeout().toMillis() + " ms"
                        : settings.timeout().toSeconds() + " s") + " and was stopped" + output.tail());
            }
            reader.join(1000);
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw e;
        }
        int status = process.exitValue();
        if (status != 0) {
            throw new DnsException("exec: " + program + " " + action + " " + record.fqdn() + " exited with " + status
                    + output.tail());
        }
    }

    /** Reads everything the program prints, keeping the last {@link #KEEP} characters. */
    private static final class Output implements Runnable {
        private final InputStream in;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        Output(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            byte[] buffer = new byte[4096];
            try (in) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    synchronized (kept) {
                        kept.write(buffer, 0, n);
                        if (kept.size() > 4 * KEEP) {
                            byte[] all = kept.toByteArray();
                            kept.reset();
                            kept.write(all, all.length - KEEP, KEEP);
                        }
                    }
                }
            } catch (IOException e) {
                // the process went away; what was read is kept
            }
        }

        /** ": LAST LINES" or "" when it printed nothing. */
        String tail() {
            String text;
            synchronized (kept) {
                text = kept.toString(StandardCharsets.UTF_8).strip();
            }
            if (text.isEmpty()) {
                return " (it printed nothing)";
            }
            return ": " + (text.length() > KEEP ? "…" + text.substring(text.length() - KEEP) : text);
        }
    }
}
