package org.outpost.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The consumer's settings: one table ({@link #OPTIONS}) names each setting once, with its JSON key
 * (in a --config file), its flag, its default and its help text; flags override the file.
 */
public final class Config {
    /** One setting. {@code key} is also its flag: "--" + key with '_' as '-'. */
    public record Option(String key, String defaultValue, String help, boolean required) {
        String flag() {
            return "--" + key.replace('_', '-');
        }
    }

    public static final List<Option> OPTIONS = List.of(
            new Option("name_servers", null, "RocketMQ name server(s), host:port[;host:port]", true),
            new Option("topic", null, "RocketMQ topic the bridge maps alarms to (e.g. outpost_alarms)", true),
            new Option("group", null, "RocketMQ consumer group; its offsets live at the broker", true),
            new Option("tags", "*", "tag filter, e.g. \"critical || major\" (\"*\": every message)", false),
            new Option("instance_name", null,
                    "client instance name, unique per running process and stable across its restarts, so a "
                            + "restarted consumer retakes its queue locks at once (default: the group)", false),
            new Option("access_key", null,
                    "RocketMQ ACL user: every request is signed with it and its secret (secret_file or secret_env)", false),
            new Option("secret_file", null, "file holding access_key's secret (not readable by every user)", false),
            new Option("secret_env", null, "environment variable holding access_key's secret", false),
            new Option("tls_enabled", "false", "TLS to every name server and broker (true or false)", false),
            new Option("tls_ca_file", null,
                    "PEM CA the RocketMQ servers' certificates must chain to (default: the JVM's trust store)", false),
            new Option("tls_insecure_skip_verify", "false",
                    "accept any RocketMQ server certificate (test brokers only; warned at every start)", false),
            new Option("allow_plaintext_credentials", "false",
                    "allow access_key without TLS to name servers that are not loopback (warned at every start)", false),
            new Option("database", null,
                    "JDBC URL: jdbc:sqlite:/path/alarms.db (embedded default) or "
                            + "jdbc:postgresql://host:port/db (production)", true),
            new Option("database_user", null, "database user (PostgreSQL)", false),
            new Option("database_password_env", "OUTPOST_CONSUMER_DB_PASSWORD",
                    "environment variable holding the database password (never a flag: ps shows flags)", false),
            new Option("consumer_name", null,
                    "dedupe namespace: processed_event rows are keyed (consumer_name, gatewayId, eventId) (default: the group)", false),
            new Option("dedupe_retention_hours", "720",
                    "hours a dedupe record is kept; older ones are purged (0: never; see docs/CONSUMING.md)", false),
            new Option("purge_interval_ms", "60000", "how often the dedupe record purge runs", false),
            new Option("purge_batch_rows", "1000", "dedupe records deleted per purge transaction (1..100000)", false),
            new Option("batch_size", "16", "messages of one queue applied in one transaction (1..1024)", false),
            new Option("threads", "1", "consumer threads; each serves one queue at a time (1..64)", false),
            new Option("version_retries", "3",
                    "redeliveries of an unknown schemaVersion before it is quarantined (0..1000000)", false),
            new Option("retry_pause_ms", "1000", "pause of a queue before a retry (DB error, unknown version)", false),
            new Option("start_timeout_ms", "60000",
                    "how long a start keeps retrying an unreachable name server or broker before exit 1", false),
            new Option("offset_persist_interval_ms", "5000", "how often acknowledged offsets are sent to the broker", false),
            new Option("status_interval_ms", "0", "print a status line with the counters and the queues held this often (0: never)", false),
            new Option("client_log_dir", null, "directory of the RocketMQ client's own log (default: ~/logs/rocketmqlogs)", false));

    private final Map<String, String> values = new LinkedHashMap<>();

    private Config() {}

    /** Settings from {@code --config FILE} (if given) then the flags; throws with what is wrong. */
    public static Config parse(List<String> flags) throws IllegalArgumentException {
        Config config = new Config();
        for (Option option : OPTIONS) {
            if (option.defaultValue() != null) config.values.put(option.key(), option.defaultValue());
        }
        for (int i = 0; i < flags.size(); i++) {
            if (flags.get(i).equals("--config")) {
                if (i + 1 >= flags.size()) throw new IllegalArgumentException("--config needs a file");
                config.readFile(Path.of(flags.get(i + 1)));
            }
        }
        for (int i = 0; i < flags.size(); i++) {
            String flag = flags.get(i);
            if (flag.equals("--config")) {
                i++;
                continue;
            }
            Option option = byFlag(flag);
            if (option == null) throw new IllegalArgumentException("unknown option " + flag + " (try --help)");
            if (i + 1 >= flags.size()) throw new IllegalArgumentException(flag + " needs a value");
            config.values.put(option.key(), flags.get(++i));
        }
        config.check();
        return config;
    }

    private static Option byFlag(String flag) {
        for (Option option : OPTIONS) {
            if (option.flag().equals(flag)) return option;
        }
        return null;
    }

    private void readFile(Path path) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readAllBytes(path));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read --config " + path + ": " + e.getMessage());
        }
        if (root == null || !root.isObject()) throw new IllegalArgumentException(path + ": must hold one JSON object");
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            if (OPTIONS.stream().noneMatch(option -> option.key().equals(field.getKey()))) {
                throw new IllegalArgumentException(path + ": unknown key \"" + field.getKey() + "\" (see --help)");
            }
            JsonNode value = field.getValue();
            if (!value.isTextual() && !value.isNumber()) {
                throw new IllegalArgumentException(path + ": \"" + field.getKey() + "\" must be a string or a number");
            }
            values.put(field.getKey(), value.asText());
        }
    }

    private void check() {
        List<String> problems = new ArrayList<>();
        for (Option option : OPTIONS) {
            if (option.required() && (get(option.key()) == null || get(option.key()).isBlank())) {
                problems.add(option.key() + " is required (" + option.flag() + " or \"" + option.key() + "\" in --config)");
            }
        }
        if (get("database") != null) {
            try {
                Dialect.ofUrl(get("database"));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        for (String key : List.of("tls_enabled", "tls_insecure_skip_verify", "allow_plaintext_credentials")) {
            if (!get(key).equals("true") && !get(key).equals("false")) {
                problems.add(key + " must be true or false (is \"" + get(key) + "\")");
            }
        }
        RocketMqAccess.check(this, problems);
        checkRange(problems, "dedupe_retention_hours", 0, 876_000);
        checkRange(problems, "purge_interval_ms", 1000, 86_400_000);
        checkRange(problems, "purge_batch_rows", 1, 100_000);
        checkRange(problems, "batch_size", 1, 1024);
        checkRange(problems, "threads", 1, 64);
        checkRange(problems, "version_retries", 0, 1_000_000);
        checkRange(problems, "retry_pause_ms", 10, 600_000);
        checkRange(problems, "offset_persist_interval_ms", 100, 600_000);
        checkRange(problems, "start_timeout_ms", 0, 86_400_000);
        checkRange(problems, "status_interval_ms", 0, 86_400_000);
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    }

    private void checkRange(List<String> problems, String key, long min, long max) {
        try {
            long value = Long.parseLong(get(key));
            if (value < min || value > max) problems.add(key + " must be " + min + ".." + max + " (is " + value + ")");
        } catch (NumberFormatException e) {
            problems.add(key + " must be an integer (is \"" + get(key) + "\")");
        }
    }

    public String get(String key) {
        return values.get(key);
    }

    /** A true/false setting (checked at parse). */
    public boolean flag(String key) {
        return "true".equals(values.get(key));
    }

    public int integer(String key) {
        return Integer.parseInt(values.get(key));
    }

    public String group() {
        return get("group");
    }

    public String consumerName() {
        return get("consumer_name") != null ? get("consumer_name") : get("group");
    }

    public String instanceName() {
        return get("instance_name") != null ? get("instance_name") : get("group");
    }

    public String databasePassword() {
        String variable = get("database_password_env");
        return variable == null ? null : System.getenv(variable);
    }

    /** The settings as one JSON object, password left out (for --check-config and the start line). */
    public String describe() {
        var node = new ObjectMapper().createObjectNode();
        values.forEach(node::put);
        node.put("consumer_name", consumerName());
        node.put("instance_name", instanceName());
        return node.toString();
    }
}
