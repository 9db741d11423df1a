package org.outpost.consumer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageQueue;
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
        String topic = config.get("topic");
        // Called by the rebalance thread after the queues this process consumes changed: a queue
        // taken (once its broker lock was obtained) or given up (once its batch in flight ended).
        consumer.setMessageQueueListener((changedTopic, all, assigned) -> {
            if (!changedTopic.equals(topic)) return;  // the group's retry topic, unused (see setMaxReconsumeTimes)
            List<String> held = held(consumer, topic);
            stats.queuesChanged(held);
            Log.info("rebalance: " + topic + " queues consumed here now " + held + " (assigned " + names(assigned)
                    + " of " + all.size() + ")");
        });
        consumer.registerMessageListener(new OrderlyListener(reader, ledger, stats, config.integer("version_retries"),
                config.integer("retry_pause_ms")));
        try {
            consumer.start();
            refuseSharedClientId(consumer, topic, config.group());
        } catch (MQClientException | RuntimeException e) {
            consumer.shutdown();  // frees the client instance, so a later attempt may register again
            throw e;
        }
        return new ConsumerService(consumer);
    }

    /**
     * Fails when another connected member of the group has this process's client id
     * (HOST_IP@instance_name): the broker would take the two for one member, allocate both the
     * same queues, let both pass the queue lock and serve the remaining queues to nobody. Checked
     * once registered (start() sends the heartbeat that registers it); the caller retries within
     * start_timeout_ms, long enough for the connection of a killed predecessor to be closed.
     */
    @SuppressWarnings("deprecation")  // the client instance: the only way to the group's member list
    private static void refuseSharedClientId(DefaultMQPushConsumer consumer, String topic, String group)
            throws MQClientException {
        String clientId = consumer.buildMQClientId();
        List<String> members = consumer.getDefaultMQPushConsumerImpl().getmQClientFactory().findConsumerIdList(topic, group);
        if (members == null) return;  // not answered: the rebalance asks again, nothing to judge by
        long same = members.stream().filter(clientId::equals).count();
        if (same > 1) {
            throw new MQClientException("another process of group " + group + " is connected with the same client id "
                    + clientId + " (host address @ instance_name); RocketMQ would give both the same queues and the "
                    + "other queues to no one: give each process its own --instance-name", null);
        }
    }

    /**
     * The queues of `topic` this process consumes: in its process-queue table and not dropped. The
     * table is the client's, reached through a getter 5.3.3 deprecates (it has no other way to
     * say which queues a push consumer holds); a queue that waits for its broker lock is not in it
     * yet.
     */
    @SuppressWarnings("deprecation")
    private static List<String> held(DefaultMQPushConsumer consumer, String topic) {
        List<MessageQueue> queues = new ArrayList<>();
        for (Map.Entry<MessageQueue, ProcessQueue> entry
                : consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().entrySet()) {
            if (entry.getKey().getTopic().equals(topic) && !entry.getValue().isDropped()) queues.add(entry.getKey());
        }
        return names(queues);
    }

    private static List<String> names(Collection<MessageQueue> queues) {
        List<MessageQueue> sorted = new ArrayList<>(queues);
        sorted.sort(null);  // MessageQueue orders by topic, broker, queue id
        List<String> names = new ArrayList<>();
        for (MessageQueue queue : sorted) names.add(queue.getBrokerName() + "/" + queue.getQueueId());
        return names;
    }

    public void stop() {
        consumer.shutdown();
    }
}
