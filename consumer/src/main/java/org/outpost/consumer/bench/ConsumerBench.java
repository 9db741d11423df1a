package org.outpost.consumer.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.outpost.consumer.Config;
import org.outpost.consumer.ConsumerService;
import org.outpost.consumer.EnvelopeReader;
import org.outpost.consumer.EnvelopeSchema;
import org.outpost.consumer.FaultPoints;
import org.outpost.consumer.Ledger;
import org.outpost.consumer.Stats;

/**
 * Consumer throughput with the dedupe record vs the same consumer without it (bench/consumer_bench
 * is the command). Fills a fresh topic with envelopes once, then in each round runs the consumer
 * four times on it, each with a fresh group and a fresh database (SQLite with dedupe, SQLite
 * without, PostgreSQL with, PostgreSQL without; the order rotates per round), and measures
 * applied events per second from its first COMMIT to its last. Prints one JSON object: the raw
 * rates, the with/without ratio of each round, and their median per database.
 */
public final class ConsumerBench {
    private ConsumerBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("--messages", "20000", "--rounds", "3", "--batch-size", "16",
                "--devices", "64"));
        for (int i = 0; i + 1 < args.length; i += 2) options.put(args[i], args[i + 1]);
        for (String required : List.of("--name-servers", "--sqlite-dir")) {
            if (!options.containsKey(required)) {
                System.err.println("consumer bench: " + required + " is required (bench/consumer_bench sets it)");
                System.exit(2);
            }
        }
        String nameServers = options.get("--name-servers");
        int messages = Integer.parseInt(options.get("--messages"));
        int rounds = Integer.parseInt(options.get("--rounds"));
        String batch = options.get("--batch-size");
        String pgUrl = options.get("--postgres-url");
        String pgUser = options.get("--postgres-user");
        Path sqliteDir = Path.of(options.get("--sqlite-dir"));
        System.setProperty("rocketmq.log.root", sqliteDir.resolve("client-logs").toString());

        String topic = "outpost_consumer_bench_" + System.currentTimeMillis() % 100_000_000L;
        long produceStart = System.nanoTime();
        fill(nameServers, topic, messages, Integer.parseInt(options.get("--devices")));
        double produceSeconds = (System.nanoTime() - produceStart) / 1e9;

        List<String> databases = new ArrayList<>(List.of("sqlite"));
        if (pgUrl != null) databases.add("postgresql");
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        for (String db : databases) {
            rates.put(db + "/dedupe", new ArrayList<>());
            rates.put(db + "/no_dedupe", new ArrayList<>());
        }
        List<String> order = new ArrayList<>(rates.keySet());
        int run = 0;
        // One discarded run per database first: JIT compilation and driver warm-up would
        // otherwise count against whichever variant runs first.
        for (String db : databases) {
            String url = db.equals("sqlite") ? "jdbc:sqlite:" + sqliteDir.resolve("warmup.db") : freshSchema(pgUrl, pgUser);
            double rate = consume(nameServers, topic, "bench_" + topic + "_warmup_" + db, url, pgUser, true, batch, messages);
            System.err.printf(Locale.ROOT, "consumer bench: warm-up %s: %.0f events/s (not counted)%n", db, rate);
        }
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < order.size(); k++) {
                String variant = order.get((k + round) % order.size());
                String db = variant.substring(0, variant.indexOf('/'));
                boolean dedupe = variant.endsWith("/dedupe");
                String url = db.equals("sqlite") ? "jdbc:sqlite:" + sqliteDir.resolve("bench-" + run + ".db")
                        : freshSchema(pgUrl, pgUser);
                double rate = consume(nameServers, topic, "bench_" + topic + "_" + run, url, pgUser, dedupe, batch, messages);
                rates.get(variant).add(rate);
                System.err.printf(Locale.ROOT, "consumer bench: round %d %s: %.0f events/s%n", round + 1, variant, rate);
                run++;
            }
        }
        StringBuilder json = new StringBuilder();
        json.append(String.format(Locale.ROOT,
                "{\"bench\":\"consumer\",\"messages\":%d,\"rounds\":%d,\"batch_size\":%s,\"produce_s\":%.1f,\"target_ratio\":0.7",
                messages, rounds, batch, produceSeconds));
        for (String db : databases) {
            List<Double> with = rates.get(db + "/dedupe");
            List<Double> without = rates.get(db + "/no_dedupe");
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < with.size(); i++) ratios.add(with.get(i) / without.get(i));
            json.append(String.format(Locale.ROOT,
                    ",\"%s\":{\"dedupe_events_per_s\":%s,\"no_dedupe_events_per_s\":%s,\"ratios\":%s,\"median_ratio\":%.2f}",
                    db, list(with, "%.0f"), list(without, "%.0f"), list(ratios, "%.2f"), median(ratios)));
        }
        json.append("}");
        System.out.println(json);
        System.exit(0);
    }

    /** Sends `messages` envelopes over `devices` devices, each device on its own queue by hash. */
    private static void fill(String nameServers, String topic, int messages, int devices) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("outpost_consumer_bench");
        producer.setNamesrvAddr(nameServers);
        producer.start();
        try {
            // The first send creates the topic (the broker's autoCreateTopicEnable).
            List<MessageQueue> queues = producer.fetchPublishMessageQueues(topicCreated(producer, topic));
            Map<Integer, List<Message>> pending = new HashMap<>();
            long[] seq = new long[devices];
            for (int n = 0; n < messages; n++) {
                int device = n % devices;
                String eventId = uuidV7(n);
                String body = String.format(Locale.ROOT,
                        "{\"eventId\":\"%s\",\"eventType\":\"ALARM_RAISED\",\"schemaVersion\":1,\"gatewayId\":\"gw-bench\","
                                + "\"deviceId\":\"dev-%d\",\"seq\":%d,\"aggregateType\":\"alarm\",\"aggregateId\":\"dev-%d/overheat\","
                                + "\"occurredAt\":\"2026-01-01T00:00:00.000Z\",\"bootId\":\"bench\",\"uptimeMs\":%d,"
                                + "\"payload\":{\"alarmType\":\"OVER_TEMPERATURE\",\"severity\":\"major\",\"value\":%d.5,\"unit\":\"C\"}}",
                        eventId, device, ++seq[device], device, n, n % 100);
                Message message = new Message(topic, "major", eventId, body.getBytes(StandardCharsets.UTF_8));
                int queue = Math.floorMod(("dev-" + device).hashCode(), queues.size());
                List<Message> batch = pending.computeIfAbsent(queue, q -> new ArrayList<>());
                batch.add(message);
                if (batch.size() == 64) send(producer, batch, queues.get(queue));
            }
            for (Map.Entry<Integer, List<Message>> entry : pending.entrySet()) {
                if (!entry.getValue().isEmpty()) send(producer, entry.getValue(), queues.get(entry.getKey()));
            }
        } finally {
            producer.shutdown();
        }
    }

    private static String topicCreated(DefaultMQProducer producer, String topic) throws Exception {
        SendResult first = producer.send(new Message(topic, "probe", "probe", "{}".getBytes(StandardCharsets.UTF_8)));
        if (first.getSendStatus() != SendStatus.SEND_OK) throw new IllegalStateException("probe send: " + first);
        return topic;
    }

    /** Sends a batch to its queue, waiting out the broker's flow control (SYSTEM_BUSY) a while. */
    private static void send(DefaultMQProducer producer, List<Message> batch, MessageQueue queue) throws Exception {
        for (int attempt = 1;; attempt++) {
            try {
                SendResult result = producer.send(new ArrayList<>(batch), queue);
                if (result.getSendStatus() != SendStatus.SEND_OK) throw new IllegalStateException("send: " + result);
                batch.clear();
                return;
            } catch (MQBrokerException e) {
                if (attempt == 50) throw e;
                Thread.sleep(200);
            }
        }
    }

    /** A UUIDv7-shaped id, unique per bench run. */
    private static String uuidV7(int n) {
        String random = UUID.randomUUID().toString();
        long millis = System.currentTimeMillis();
        return String.format(Locale.ROOT, "%08x-%04x-7%03x-%s-%s", millis >>> 16 & 0xffffffffL, millis & 0xffff, n & 0xfff,
                "8" + random.substring(20, 23), random.substring(24));
    }

    private static String freshSchema(String pgUrl, String user) throws Exception {
        String schema = "bench_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(pgUrl, user, null); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        return pgUrl + (pgUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** Runs the consumer until it applied `messages` events; events/s from its first COMMIT to its last. */
    private static double consume(String nameServers, String topic, String group, String url, String user, boolean dedupe,
            String batch, int messages) throws Exception {
        Config config = Config.parse(Arrays.asList("--name-servers", nameServers, "--topic", topic, "--group", group,
                "--database", url, "--batch-size", batch));
        Ledger ledger = new Ledger(url, user, null, group, dedupe, FaultPoints.parse(null));
        ledger.open();
        Stats stats = new Stats();
        ConsumerService service = ConsumerService.start(config, ledger, stats, new EnvelopeReader(EnvelopeSchema.load()));
        try {
            long deadline = System.nanoTime() + 600_000_000_000L;
            while (stats.applied() == 0) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("nothing applied in 600 s");
                Thread.sleep(1);
            }
            long firstApplied = stats.applied();
            long start = System.nanoTime();
            while (stats.applied() < messages) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("only " + stats.applied() + " applied: " + stats.json());
                Thread.sleep(1);
            }
            return (messages - firstApplied) / ((System.nanoTime() - start) / 1e9);
        } finally {
            service.stop();
            ledger.close();
        }
    }

    private static String list(List<Double> values, String format) {
        List<String> parts = new ArrayList<>();
        for (double value : values) parts.add(String.format(Locale.ROOT, format, value));
        return "[" + String.join(",", parts) + "]";
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

}
