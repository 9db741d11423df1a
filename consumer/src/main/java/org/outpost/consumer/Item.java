package org.outpost.consumer;

/**
 * One message of a batch as the ledger sees it: an envelope to apply, or a message to set aside
 * in quarantine with its reason. {@code broker}, {@code queueId} and {@code queueOffset} name the
 * stored message (a redelivery has the same three).
 */
public record Item(Envelope envelope, String topic, String broker, int queueId, long queueOffset, String keys,
        String reason, byte[] body) {

    static Item apply(Envelope envelope) {
        return new Item(envelope, null, null, 0, 0, null, null, null);
    }

    static Item quarantine(String topic, String broker, int queueId, long queueOffset, String keys, String reason,
            byte[] body) {
        return new Item(null, topic, broker, queueId, queueOffset, keys, reason, body);
    }

    boolean quarantined() {
        return envelope == null;
    }
}
