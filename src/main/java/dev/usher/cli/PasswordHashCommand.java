package dev.usher.cli;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * {@code usher hash-password}: prints a bcrypt hash ({@code $2y$}, cost {@value #COST}) for a {@code basic_auth}
 * entry. The password comes from a terminal prompt (asked twice, not echoed) or, with {@code --password-stdin}, from
 * the first line of standard input; it is never taken from the command line, where {@code ps} and shell history
 * would show it. Exit status: 0 done, 1 empty or mismatched password, 2 misuse.
 */
final class PasswordHashCommand {
    static final int COST = 12;
    /** bcrypt reads at most this many bytes of a password; the rest makes no difference. */
    private static final int BCRYPT_MAX_BYTES = 72;
    private static final int MAX_LINE = 4096;
    private static final String USAGE = """
            usage: usher hash-password [--password-stdin]
              Prints a bcrypt hash for a basic_auth entry or admin.password in usher.yaml.
              Asks for the password twice on the terminal, or reads one line from standard input
              with --password-stdin.
            """;

    /** Reads a password at a prompt without echo; null at end of input. */
    interface Prompt {
        char[] read(String prompt);
    }

    private PasswordHashCommand() {
    }

    /** Runs the command; returns the exit status. Uses the system console when there is one. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        Console console = System.console();
        Prompt prompt = console == null ? null : text -> console.readPassword("%s", text);
        return run(args, in, out, err, prompt, COST);
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Prompt prompt, int cost) {
        boolean fromStdin = false;
        for (String arg : args) {
            switch (arg) {
                case "--password-stdin" -> fromStdin = true;
                case "-h", "--help" -> {
                    out.print(USAGE);
                    return 0;
                }
                default -> {
                    err.print("usher hash-password: unknown argument \"" + arg + "\"\n" + USAGE);
                    return 2;
                }
            }
        }
        char[] password;
        if (fromStdin) {
            try {
                password = firstLine(in);
            } catch (IOException e) {
                err.println("usher hash-password: cannot read standard input: " + e.getMessage());
                return 1;
            }
        } else if (prompt == null) {
            err.print("usher hash-password: no terminal to ask for the password; use --password-stdin\n" + USAGE);
            return 2;
        } else {
            password = prompt.read("Password: ");
            char[] again = password == null ? null : prompt.read("Repeat password: ");
            boolean same = again != null && Arrays.equals(password, again);
            if (again != null) {
                Arrays.fill(again, '\0');
            }
            if (password != null && !same) {
                Arrays.fill(password, '\0');
                err.println("usher hash-password: the passwords do not match");
                return 1;
            }
        }
        if (password == null || password.length == 0) {
            err.println("usher hash-password: the password is empty");
            return 1;
        }
        try {
            if (utf8Length(password) > BCRYPT_MAX_BYTES) {
                err.println("usher hash-password: note: only the first " + BCRYPT_MAX_BYTES
                        + " bytes of the password count");
            }
            byte[] salt = new byte[16];
            new SecureRandom().nextBytes(salt);
            out.println(OpenBSDBCrypt.generate("2y", password, salt, cost));
            return 0;
        } finally {
            Arrays.fill(password, '\0');
        }
    }

    /** The first line, without its line end; an empty array at end of input. */
    private static char[] firstLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (line.size() >= MAX_LINE) {
                throw new IOException("the first line is longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        byte[] bytes = line.toByteArray();
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\r') {
            length--;
        }
        CharBuffer chars = StandardCharsets.UTF_8.decode(ByteBuffer.wrap(bytes, 0, length));
        Arrays.fill(bytes, (byte) 0);
        char[] password = new char[chars.remaining()];
        chars.get(password);
        if (chars.hasArray()) {
            Arrays.fill(chars.array(), '\0');
        }
        return password;
    }

    private static int utf8Length(char[] password) {
        int bytes = 0;
        for (int i = 0; i < password.length; i++) {
            char c = password[i];
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < password.length
                    && Character.isLowSurrogate(password[i + 1])) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
