package dev.usher.migrate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An Nginx Proxy Manager data folder for tests: {@code database.sqlite} made from NPM's own schema
 * ({@code src/test/resources/migrate/npm/schema.sql}, derived from its migrations), rows written the way NPM's models
 * write them (JSON columns as JSON text, booleans as 0/1, {@code created_on} by SQLite's clock), and certificate
 * files where NPM and certbot keep them.
 */
public final class NpmFixture implements AutoCloseable {
    static final Path SCHEMA = Path.of("src/test/resources/migrate/npm/schema.sql");

    private final Path data;
    private final Connection db;

    private NpmFixture(Path data, Connection db) {
        this.data = data;
        this.db = db;
    }

    /** A fresh data folder {@code data} (created) with an empty NPM database. */
    public static NpmFixture create(Path data) throws IOException, SQLException {
        Files.createDirectories(data);
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("database.sqlite"));
        try (Statement s = c.createStatement()) {
            for (String statement : Files.readString(SCHEMA).split(";\\s*\n")) {
                String sql = statement.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + b + "\n");
                if (!sql.isBlank()) {
                    s.execute(sql);
                }
            }
        }
        return new NpmFixture(data, c);
    }

    /** The database file. */
    public Path database() {
        return data.resolve("database.sqlite");
    }

    /** Inserts a row (with {@code created_on}, {@code modified_on}, {@code owner_user_id} and {@code meta} filled in). */
    public int insert(String table, Map<String, Object> values) throws SQLException {
        Map<String, Object> row = new LinkedHashMap<>(values);
        boolean settings = table.equals("setting");
        if (!settings) {
            row.putIfAbsent("meta", "{}");
        }
        if (!settings && !table.startsWith("access_list_")) {
            row.putIfAbsent("owner_user_id", 1);
        }
        List<String> columns = new ArrayList<>(row.keySet());
        String sql = "insert into `" + table + "` (" + (settings ? "" : "`created_on`, `modified_on`, ")
                + String.join(", ", columns.stream().map(c -> "`" + c + "`").toList()) + ") values ("
                + (settings ? "" : "datetime('now','localtime'), datetime('now','localtime'), ")
                + String.join(", ", columns.stream().map(c -> "?").toList()) + ")";
        try (PreparedStatement p = db.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            for (int i = 0; i < columns.size(); i++) {
                p.setObject(i + 1, row.get(columns.get(i)));
            }
            p.executeUpdate();
            try (ResultSet keys = p.getGeneratedKeys()) {
                return keys.next() ? keys.getInt(1) : 0;
            }
        }
    }

    /** A certbot certificate for NPM's certificate {@code id}: {@code archive/} files and {@code live/} links. */
    public void letsencrypt(Path letsencrypt, int id, TestCerts.Pair pair) throws IOException {
        Path archive = Files.createDirectories(letsencrypt.resolve("archive").resolve("npm-" + id));
        Path live = Files.createDirectories(letsencrypt.resolve("live").resolve("npm-" + id));
        Files.writeString(archive.resolve("fullchain1.pem"), pair.certPem());
        Files.writeString(archive.resolve("privkey1.pem"), pair.keyPem());
        Files.createSymbolicLink(live.resolve("fullchain.pem"), Path.of("../../archive/npm-" + id + "/fullchain1.pem"));
        Files.createSymbolicLink(live.resolve("privkey.pem"), Path.of("../../archive/npm-" + id + "/privkey1.pem"));
    }

    /** A certificate uploaded into NPM, written where NPM writes it ({@code custom_ssl/npm-N/}). */
    public void customSsl(int id, TestCerts.Pair pair) throws IOException {
        Path dir = Files.createDirectories(data.resolve("custom_ssl").resolve("npm-" + id));
        Files.writeString(dir.resolve("fullchain.pem"), pair.certPem());
        Files.writeString(dir.resolve("privkey.pem"), pair.keyPem());
    }

    /** NPM's JSON form of a list of names. */
    public static String names(String... names) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < names.length; i++) {
            b.append(i == 0 ? "" : ",").append('"').append(names[i]).append('"');
        }
        return b.append(']').toString();
    }

    @Override
    public void close() throws SQLException {
        db.close();
    }
}
