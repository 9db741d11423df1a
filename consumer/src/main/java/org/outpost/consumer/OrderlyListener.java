package org.outpost.consumer;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Receives the messages of one queue in queue order (RocketMQ holds the queue's lock for us) and
 * applies each batch through the {@link Ledger}. Returning SUCCESS is what acknowledges the
 * offset, so it is returned only after the ledger's COMMIT (Ledger I2). Everything else returns
 * SUSPEND_CURRENT_QUEUE_A_MOMENT: the same messages come back after the pause, in order.
 *
 * <p>Retry and dead-letter: a database error is retried without limit (not the message's
 * fault). An unknown schemaVersion is retried {@code version_retries} times (a rolling upgrade
 * may bring a consumer that knows it), then quarantined with the reason. A message that can never
 * be valid (not JSON, schema violation) is quarantined at once.
 */
final class OrderlyListener implements MessageListenerOrderly {
    private final EnvelopeReader reader;
    private final Ledger ledger;
    private final Stats stats;
    private final int versionRetries;
    private final long retryPauseMs;

    OrderlyListener(EnvelopeReader reader, Ledger ledger, Stats stats, int versionRetries, long retryPauseMs) {
        this.reader = reader;
        this.ledger = ledger;
        this.stats = stats;
        this.versionRetries = versionRetries;
        this.retryPauseMs = retryPauseMs;
    }

    @Override
    public ConsumeOrderlyStatus consumeMessage(List<MessageExt> messages, ConsumeOrderlyContext context) {
        List<Item> items = new ArrayList<>(messages.size());
        for (MessageExt message : messages) {
            Decoded decoded = reader.read(message.getBody(), message.getKeys());
            switch (decoded.kind()) {
                case VALID:
                    items.add(Item.apply(decoded.envelope()));
                    break;
                case UNKNOWN_VERSION:
                    if (message.getReconsumeTimes() < versionRetries) {
                        stats.versionRetries.incrementAndGet();
                        Log.warn(describe(message) + ": " + decoded.reason() + "; retry "
                                + (message.getReconsumeTimes() + 1) + " of " + versionRetries + " in " + retryPauseMs + " ms");
                        return suspend(context);
                    }
                    items.add(quarantine(message, decoded.reason() + " (after " + versionRetries + " retries)"));
                    break;
                default:
                    items.add(quarantine(message, decoded.reason()));
                    break;
            }
        }
        Outcome outcome;
        try {
            outcome = ledger.apply(items);
        } catch (SQLException | RuntimeException e) {
            stats.databaseErrors.incrementAndGet();
            Log.error("database: " + e.getMessage() + "; " + messages.size() + " message(s) of " + describe(messages.get(0))
                    + " not applied, retry in " + retryPauseMs + " ms");
            return suspend(context);
        }
        stats.add(outcome);
        for (String line : outcome.lines()) Log.warn(line);
        if (outcome.duplicates() > 0) {
            Log.info("dropped " + outcome.duplicates() + " redelivered event(s) already applied (" + describe(messages.get(0))
                    + ")");
        }
        return ConsumeOrderlyStatus.SUCCESS;
    }

    private ConsumeOrderlyStatus suspend(ConsumeOrderlyContext context) {
        context.setSuspendCurrentQueueTimeMillis(retryPauseMs);
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    }

    private static Item quarantine(MessageExt message, String reason) {
        return Item.quarantine(message.getTopic(), String.valueOf(message.getBrokerName()), message.getQueueId(),
                message.getQueueOffset(), message.getKeys(), reason, message.getBody() == null ? new byte[0] : message.getBody());
    }

    private static String describe(MessageExt message) {
        return message.getTopic() + "/" + message.getBrokerName() + "/" + message.getQueueId() + "@" + message.getQueueOffset();
    }
}
