package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Function;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.junit.jupiter.api.Test;

/**
 * The consumer against the secured RocketMQs of `scripts/lib/services.sh`: one that authenticates
 * every request (OUTPOST_ROCKETMQ_AUTH_ENV) and one that accepts TLS only
 * (OUTPOST_ROCKETMQ_TLS_ENV). Skipped when they are not running.
 */
class RocketMqAccessTest {
    private static Properties env(String variable) throws Exception {
        String file = System.getenv(variable);
        assumeTrue(file != null && Files.exists(Path.of(file)), variable + " names no running RocketMQ");
        Properties values = new Properties();
        try (var in = Files.newInputStream(Path.of(file))) {
            values.load(in);
        }
        return values;
    }

    private static Config config(Properties rocketmq, String topic, List<String> extra) throws Exception {
        List<String> flags = new ArrayList<>(List.of("--name-servers", rocketmq.getProperty("NAMESRV_ADDR"), "--topic", topic,
                "--group", "g_" + topic, "--instance-name", "i_" + topic, "--database",
                "jdbc:sqlite:" + Files.createTempDirectory("access-test").resolve("alarms.db")));
        flags.addAll(extra);
        return Config.parse(flags);
    }

    /** Sends one alarm with a producer set up as the consumer's config says (TLS, signer). */
    private static void send(Config config, String topic) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("p_" + topic, RocketMqAccess.hook(config));
        producer.setNamesrvAddr(config.get("name_servers"));
        producer.setInstanceName("p_" + topic);
        RocketMqAccess.applyTls(config, producer);
        producer.start();
        try {
            String eventId = Samples.eventId(1);
            producer.send(new Message(topic, "critical", eventId, Samples.bytes(Samples.envelope("dev-1", 1, eventId))));
        } finally {
            producer.shutdown();
        }
    }

    /** Consumes with the consumer's own service until one alarm is applied (or a minute passed). */
    private static long consumeOne(Config config) throws Exception {
        Stats stats = new Stats();
        try (Ledger ledger = new Ledger(config.get("database"), null, null, config.consumerName(), true,
                FaultPoints.parse(null))) {
            ledger.open();
            ConsumerService service = ConsumerService.start(config, ledger, stats, new EnvelopeReader(EnvelopeSchema.load()));
            try {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (stats.applied() == 0 && System.nanoTime() < deadline) Thread.sleep(100);
            } finally {
                service.stop();
            }
        }
        return stats.applied();
    }

    private static String topic(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** Sends one alarm to a new topic of the RocketMQ in {@code envVariable}, consumes it with these flags. */
    private static long sentAndConsumed(String envVariable, Function<Properties, List<String>> flags)
            throws Exception {
        Properties rocketmq = env(envVariable);
        String topic = topic("consumer_access_");
        Config config = config(rocketmq, topic, flags.apply(rocketmq));
        send(config, topic);
        return consumeOne(config);
    }

    @Test
    void aConsumerSigningWithAnAclUsersKeyConsumesFromAnAuthenticatingBroker() throws Exception {
        assertEquals(1, sentAndConsumed("OUTPOST_ROCKETMQ_AUTH_ENV", rocketmq -> List.of("--access-key",
                rocketmq.getProperty("ROCKETMQ_ADMIN_ACCESS_KEY"), "--secret-file",
                rocketmq.getProperty("ROCKETMQ_ADMIN_SECRET_FILE"))));
    }

    @Test
    void aConsumerVerifyingTheServersCertificateAgainstItsCaConsumesOverTls() throws Exception {
        assertEquals(1, sentAndConsumed("OUTPOST_ROCKETMQ_TLS_ENV", rocketmq -> List.of("--tls-enabled", "true",
                "--tls-ca-file", rocketmq.getProperty("ROCKETMQ_TLS_CA"))));
    }

    @Test
    void aServerCertificateFromAnotherCaIsRefusedUnlessVerificationIsSwitchedOff() throws Exception {
        Properties rocketmq = env("OUTPOST_ROCKETMQ_TLS_ENV");
        String topic = topic("consumer_tls_untrusted_");
        // The JVM's trust store does not hold the test CA: the handshake fails, nothing is sent.
        Config verifying = config(rocketmq, topic, List.of("--tls-enabled", "true"));
        Exception refused = assertThrows(Exception.class, () -> send(verifying, topic));
        boolean fromRocketMq = false;
        for (Throwable cause = refused; cause != null; cause = cause.getCause()) {
            fromRocketMq |= cause instanceof RemotingException || cause instanceof MQClientException;
        }
        assertTrue(fromRocketMq, refused.toString());
        Config trusting = config(rocketmq, topic, List.of("--tls-enabled", "true", "--tls-insecure-skip-verify", "true"));
        send(trusting, topic);
    }
}
