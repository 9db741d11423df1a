package org.outpost.consumer;

/**
 * The two databases the reference consumer runs on. Their tables are the migrations under
 * migrations/&lt;label&gt;/ ({@link Migrations}).
 */
public enum Dialect {
    SQLITE("sqlite"),
    POSTGRESQL("postgresql");

    private final String label;

    Dialect(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The dialect of a JDBC URL; IllegalArgumentException names the two that are supported. */
    public static Dialect ofUrl(String url) {
        if (url.startsWith("jdbc:sqlite:")) return SQLITE;
        if (url.startsWith("jdbc:postgresql:")) return POSTGRESQL;
        throw new IllegalArgumentException("database URL \"" + url
                + "\" is neither jdbc:sqlite:PATH nor jdbc:postgresql://HOST:PORT/DATABASE");
    }

    public static Dialect ofLabel(String label) {
        for (Dialect dialect : values()) {
            if (dialect.label.equals(label)) return dialect;
        }
        throw new IllegalArgumentException("unknown database \"" + label + "\" (sqlite or postgresql)");
    }
}
