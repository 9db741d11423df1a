package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
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
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
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
        return config(rocketmq, topic, "g_" + topic, extra);
    }

    private static Config config(Properties rocketmq, String topic, String group, List<String> extra) throws Exception {
        List<String> flags = new ArrayList<>(List.of("--name-servers", rocketmq.getProperty("NAMESRV_ADDR"), "--topic", topic,
                "--group", group, "--instance-name", "i_" + topic + "_" + UUID.randomUUID(), "--database",
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

    /** The flags that sign as the env's user whose access key and secret file are under PREFIX_. */
    private static List<String> signingAs(Properties rocketmq, String prefix) {
        return List.of("--access-key", rocketmq.getProperty(prefix + "_ACCESS_KEY"), "--secret-file",
                rocketmq.getProperty(prefix + "_SECRET_FILE"));
    }

    /** The broker's response code in {@code failure} or its causes, -1 when none carries one. */
    private static int brokerResponseCode(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof MQBrokerException broker) return broker.getResponseCode();
            if (cause instanceof MQClientException client && client.getResponseCode() > 0) return client.getResponseCode();
        }
        return -1;
    }

    /**
     * Pulls once from a queue of the topic as {@code config}'s group and signer. DefaultMQPullConsumer is deprecated
     * but the one client that reports the broker's refusal of a pull to its caller.
     */
    @SuppressWarnings("deprecation")
    private static PullResult pullOnce(Config config) throws Exception {
        DefaultMQPullConsumer puller = new DefaultMQPullConsumer(config.group(), RocketMqAccess.hook(config));
        puller.setNamesrvAddr(config.get("name_servers"));
        puller.setInstanceName("pull_" + UUID.randomUUID());
        puller.start();
        try {
            MessageQueue queue = puller.fetchSubscribeMessageQueues(config.get("topic")).iterator().next();
            return puller.pull(queue, "*", 0, 1);
        } finally {
            puller.shutdown();
        }
    }

    /**
     * The accounts of deploy/rocketmq/outpost-accounts.sh, made by scripts/rocketmq.sh with that script as shipped:
     * the consumer's reads and applies what the bridge's wrote, and may not write; the bridge's may not read.
     */
    @Test
    void theShippedConsumerAccountConsumesTheAlarmTopicButMayNotSendAndTheBridgeAccountMayNotConsume() throws Exception {
        Properties rocketmq = env("OUTPOST_ROCKETMQ_AUTH_ENV");
        String topic = rocketmq.getProperty("ROCKETMQ_ALARM_TOPIC");
        String group = rocketmq.getProperty("ROCKETMQ_CONSUMER_GROUP");
        Config asBridge = config(rocketmq, topic, group, signingAs(rocketmq, "ROCKETMQ"));
        Config asConsumer = config(rocketmq, topic, group, signingAs(rocketmq, "ROCKETMQ_CONSUMER"));

        send(asBridge, topic);
        assertTrue(consumeOne(asConsumer) >= 1, "the consumer account applied nothing");

        Exception sendRefused = assertThrows(Exception.class, () -> send(asConsumer, topic));
        assertEquals(ResponseCode.NO_PERMISSION, brokerResponseCode(sendRefused), sendRefused.toString());

        assertDoesNotThrow(() -> pullOnce(asConsumer));
        Exception pullRefused = assertThrows(Exception.class, () -> pullOnce(asBridge));
        assertEquals(ResponseCode.NO_PERMISSION, brokerResponseCode(pullRefused), pullRefused.toString());
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
