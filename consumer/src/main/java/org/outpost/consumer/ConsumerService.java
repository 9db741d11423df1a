package org.outpost.consumer;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * The RocketMQ side: a push consumer (RocketMQ's official remoting client) with an orderly
 * listener. Stops with {@link #stop()}, which persists the acknowledged offsets to the broker.
 */
public final class ConsumerService {
    private final DefaultMQPushConsumer consumer;

    private ConsumerService(DefaultMQPushConsumer consumer) {
        this.consumer = consumer;
    }

    /**
     * Subscribes and starts; MQClientException says why it could not (and the half-started
     * client is shut down, so the caller may try again).
     */
    public static ConsumerService start(Config config, Ledger ledger, Stats stats, EnvelopeReader reader)
            throws MQClientException {
        RPCHook signer = RocketMqAccess.hook(config);
        DefaultMQPushConsumer consumer = signer == null ? new DefaultMQPushConsumer(config.group())
                : new DefaultMQPushConsumer(config.group(), signer);
        RocketMqAccess.applyTls(config, consumer);
        consumer.setNamesrvAddr(config.get("name_servers"));
        consumer.setInstanceName(config.instanceName());
        // A new group starts at the first stored message: nothing published before the consumer
        // first ran is skipped. (An existing group resumes from its acknowledged offsets.)
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeMessageBatchMaxSize(config.integer("batch_size"));
        consumer.setPullBatchSize(Math.max(32, config.integer("batch_size")));
        consumer.setConsumeThreadMin(config.integer("threads"));
        consumer.setConsumeThreadMax(config.integer("threads"));
        // Never hand a message to RocketMQ's own DLQ: the listener decides what is dead (an
        // orderly consumer's -1 means "retry forever").
        consumer.setMaxReconsumeTimes(-1);
        consumer.setSuspendCurrentQueueTimeMillis(config.integer("retry_pause_ms"));
        consumer.setPersistConsumerOffsetInterval(config.integer("offset_persist_interval_ms"));
        consumer.subscribe(config.get("topic"), config.get("tags"));
        consumer.registerMessageListener(new OrderlyListener(reader, ledger, stats, config.integer("version_retries"),
                config.integer("retry_pause_ms")));
        try {
            consumer.start();
        } catch (MQClientException | RuntimeException e) {
            consumer.shutdown();  // frees the client instance, so a later attempt may register again
            throw e;
        }
        return new ConsumerService(consumer);
    }

    public void stop() {
        consumer.shutdown();
    }
}
