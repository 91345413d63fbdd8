package dev.usher.migrate;

import dev.usher.json.JsonReader;
import org.sqlite.SQLiteConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Nginx Proxy Manager's {@code database.sqlite}, opened read-only (NPM's own file is never changed) and read table
 * by table into rows of column name to value. Columns NPM added over the years may be missing from an old
 * database: a row answers the default NPM's migration gave them.
 */
final class NpmDatabase implements AutoCloseable {
    private final Connection connection;

    /** One row: typed getters with the defaults of NPM's migrations. */
    record Row(Map<String, Object> values) {
        int integer(String column, int otherwise) {
            Object v = values.get(column);
            return v instanceof Number n ? n.intValue() : v instanceof String s && s.matches("-?\\d+")
                    ? Integer.parseInt(s) : otherwise;
        }

        boolean flag(String column, boolean otherwise) {
            return integer(column, otherwise ? 1 : 0) != 0;
        }

        String text(String column) {
            Object v = values.get(column);
            return v == null ? "" : String.valueOf(v);
        }

        /** A JSON column parsed (lists, maps, strings); null when empty or not JSON. */
        Object json(String column) {
            String t = text(column).strip();
            if (t.isEmpty()) {
                return null;
            }
            try {
                return JsonReader.parse(t);
            } catch (JsonReader.BadJson e) {
                return null;
            }
        }

        /** A JSON array of strings (NPM's {@code domain_names}); empty when absent. */
        List<String> strings(String column) {
            List<String> out = new ArrayList<>();
            if (json(column) instanceof List<?> list) {
                for (Object o : list) {
                    if (o instanceof String s) {
                        out.add(s);
                    }
                }
            }
            return out;
        }

        /** A JSON object column (NPM's {@code meta}); empty when absent. */
        Map<?, ?> object(String column) {
            return json(column) instanceof Map<?, ?> m ? m : Map.of();
        }

        int id() {
            return integer("id", 0);
        }

        boolean deleted() {
            return flag("is_deleted", false);
        }
    }

    private NpmDatabase(Connection connection) {
        this.connection = connection;
    }

    /** Opens {@code file} read-only. */
    static NpmDatabase open(Path file) throws ImportException {
        if (!Files.isRegularFile(file)) {
            throw new ImportException("cannot read " + file + ": no such file (give NPM's database.sqlite, or the "
                    + "data folder that holds it)");
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try {
            Connection c = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
            NpmDatabase db = new NpmDatabase(c);
            if (!db.hasTable("proxy_host")) {
                db.close();
                throw new ImportException(file + " has no proxy_host table: not Nginx Proxy Manager's database");
            }
            return db;
        } catch (SQLException e) {
            throw new ImportException("cannot open " + file + " as an SQLite database: " + e.getMessage());
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            throw new ImportException("the SQLite library cannot load on this platform (" + e.getMessage() + ")");
        }
    }

    boolean hasTable(String table) throws SQLException {
        try (ResultSet r = connection.getMetaData().getTables(null, null, table, null)) {
            return r.next();
        }
    }

    /** Every row of {@code table} in id order; none when the table does not exist (an old NPM). */
    List<Row> rows(String table) throws ImportException {
        try {
            if (!hasTable(table)) {
                return List.of();
            }
            List<Row> rows = new ArrayList<>();
            try (Statement s = connection.createStatement();
                 ResultSet r = s.executeQuery("SELECT * FROM \"" + table + "\" ORDER BY id")) {
                ResultSetMetaData meta = r.getMetaData();
                while (r.next()) {
                    Map<String, Object> values = new LinkedHashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        values.put(meta.getColumnName(i).toLowerCase(Locale.ROOT), r.getObject(i));
                    }
                    rows.add(new Row(values));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new ImportException("cannot read the table " + table + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // read-only; nothing to lose
        }
    }
}
