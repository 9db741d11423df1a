package org.outpost.consumer;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** outpost-consumer: the reference idempotent consumer of Outpost alarm events. */
public final class Main {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILURE = 1;
    static final int EXIT_USAGE = 2;

    private Main() {}

    /** Set once run() returned: the shutdown that follows is main's own, with run()'s status. */
    private static volatile boolean returning;

    public static void main(String[] args) {
        int status = run(Arrays.asList(args));
        returning = true;
        System.exit(status);
    }

    static int run(List<String> args) {
        if (args.contains("--help") || args.contains("-h")) {
            System.out.print(help());
            return EXIT_OK;
        }
        if (args.size() == 2 && args.get(0).equals("--print-ddl")) {
            try {
                System.out.print(Migrations.script(Dialect.ofLabel(args.get(1))));
                return EXIT_OK;
            } catch (IllegalArgumentException e) {
                System.err.println("outpost-consumer: " + e.getMessage());
                return EXIT_USAGE;
            }
        }
        if (args.size() == 1 && args.get(0).equals("--list-fault-points")) {
            for (int i = 0; i < FaultPoints.POINTS.size(); i++) {
                System.out.println(FaultPoints.POINTS.get(i) + "\t" + FaultPoints.WHERE.get(i));
            }
            return EXIT_OK;
        }
        boolean checkOnly = args.contains("--check-config");
        Config config;
        try {
            config = Config.parse(args.stream().filter(arg -> !arg.equals("--check-config")).toList());
        } catch (IllegalArgumentException e) {
            System.err.println("outpost-consumer: " + e.getMessage());
            return EXIT_USAGE;
        }
        EnvelopeSchema schema;
        try {
            schema = EnvelopeSchema.load();
        } catch (IllegalStateException e) {
            System.err.println("outpost-consumer: " + e.getMessage());
            return EXIT_FAILURE;
        }
        if (checkOnly) {
            System.out.println("outpost-consumer: configuration ok " + config.describe());
            return EXIT_OK;
        }
        return consume(config, schema);
    }

    private static int consume(Config config, EnvelopeSchema schema) {
        if (config.get("client_log_dir") != null) System.setProperty("rocketmq.log.root", config.get("client_log_dir"));
        FaultPoints faults = FaultPoints.fromEnvironment();
        Ledger ledger = new Ledger(config.get("database"), config.get("database_user"), config.databasePassword(),
                config.consumerName(), true, faults);
        try {
            ledger.open();
        } catch (Exception e) {
            System.err.println("outpost-consumer: cannot open the database " + config.get("database") + ": " + e.getMessage());
            return EXIT_FAILURE;
        }
        for (String warning : RocketMqAccess.warnings(config)) Log.warn(warning);
        Stats stats = new Stats();
        ConsumerService service = startWithRetries(config, ledger, stats, new EnvelopeReader(schema));
        if (service == null) {
            ledger.close();
            return EXIT_FAILURE;
        }
        Purger purger = config.integer("dedupe_retention_hours") == 0 ? null
                : new Purger(config.get("database"), config.get("database_user"), config.databasePassword(),
                        config.consumerName(), config.integer("dedupe_retention_hours"), config.integer("purge_batch_rows"));
        if (purger != null) purger.start(config.integer("purge_interval_ms"));
        Log.info("consuming " + config.get("topic") + " as group " + config.group() + " into " + ledger.dialect().label()
                + (faults.armed() != null ? " (OUTPOST_FAULT " + faults.armed() + " armed)" : "") + " " + config.describe());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Read before waking run(): only a signal (SIGTERM, SIGINT) starts
            // a shutdown while run() still waits on `stopped`.
            boolean bySignal = !returning;
            service.stop();  // persists the acknowledged offsets
            if (purger != null) purger.close();
            ledger.close();
            Log.info("stopped " + stats.json());
            stopped.countDown();
            if (bySignal) {
                // A signalled JVM ends with 128 + the signal once its hooks
                // are done; a stop asked for by a signal is clean, so exit 0
                // (the reference page's exit status).
                System.out.flush();
                System.err.flush();
                Runtime.getRuntime().halt(EXIT_OK);
            }
        }, "outpost-consumer-stop"));
        long interval = config.integer("status_interval_ms");
        try {
            while (!stopped.await(interval > 0 ? interval : 3_600_000, TimeUnit.MILLISECONDS)) {
                if (interval > 0) Log.info("status " + stats.json());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return EXIT_OK;
    }

    /**
     * Starts the RocketMQ consumer, retrying with capped backoff while the name server or broker
     * cannot be reached (a restart during a broker hiccup must not end the process) for up to
     * start_timeout_ms; null once that passed, every failure logged.
     */
    private static ConsumerService startWithRetries(Config config, Ledger ledger, Stats stats, EnvelopeReader reader) {
        long deadline = System.nanoTime() + config.integer("start_timeout_ms") * 1_000_000L;
        long pauseMs = 250;
        for (int attempt = 1;; attempt++) {
            try {
                return ConsumerService.start(config, ledger, stats, reader);
            } catch (Exception e) {
                if (System.nanoTime() + pauseMs * 1_000_000L > deadline) {
                    System.err.println("outpost-consumer: cannot start the RocketMQ consumer (" + attempt
                            + " attempts over start_timeout_ms " + config.get("start_timeout_ms") + "): " + e.getMessage());
                    return null;
                }
                Log.warn("cannot start the RocketMQ consumer (attempt " + attempt + "): " + e.getMessage() + "; retry in "
                        + pauseMs + " ms");
            }
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            pauseMs = Math.min(pauseMs * 2, 5_000);
        }
    }

    static String help() {
        StringBuilder out = new StringBuilder();
        out.append("outpost-consumer: the reference idempotent consumer of Outpost alarm events\n\n")
                .append("Reads a RocketMQ topic the Outpost bridge writes (orderly, queue by queue), validates\n")
                .append("each envelope against schema/event.schema.json, and writes the alarm, the device's latest\n")
                .append("state and the dedupe record (consumer, gatewayId, eventId) in ONE transaction; the offset\n")
                .append("is acknowledged only after that COMMIT. Redeliveries change nothing; per-device seq gaps\n")
                .append("and late arrivals are applied, logged and recorded in seq_anomaly; invalid messages and\n")
                .append("unknown schemaVersions (after retries) go to the quarantine table with the reason.\n")
                .append("The contract: docs/CONSUMING.md.\n\n")
                .append("Usage:\n")
                .append("  outpost-consumer [--config FILE] [--OPTION VALUE ...]   consume until SIGTERM/SIGINT\n")
                .append("  outpost-consumer --check-config [--config FILE] [...]    validate the settings, exit\n")
                .append("  outpost-consumer --print-ddl sqlite|postgresql          the schema, as one script\n")
                .append("  outpost-consumer --list-fault-points                    test kill points (OUTPOST_FAULT)\n\n")
                .append("Options (flag, or the same key with '_' in a --config JSON object; flags win):\n");
        for (Config.Option option : Config.OPTIONS) {
            out.append(String.format("  %-30s %s%s%s%n", option.flag() + " V", option.help(),
                    option.required() ? " [required]" : "",
                    option.defaultValue() != null ? " [default " + option.defaultValue() + "]" : ""));
        }
        out.append("\nExample:\n")
                .append("  outpost-consumer --name-servers 127.0.0.1:9876 --topic outpost_alarms \\\n")
                .append("      --group alarm-ledger --database jdbc:sqlite:/var/lib/outpost/alarms.db\n\n")
                .append("Exit status: 0 stopped cleanly, 1 could not start (database, RocketMQ), 2 bad usage.\n")
                .append("At start the consumer creates or migrates its tables (versioned, forward only); the\n")
                .append("database user needs CREATE and ALTER then, or a privileged user runs --print-ddl's script\n")
                .append("on an empty database beforehand. A database a newer consumer migrated is refused.\n");
        return out.toString();
    }
}
