package org.outpost.consumer;

/**
 * What one RocketMQ message turned out to be: a valid envelope to apply, an envelope of a
 * schemaVersion this consumer does not know (retry, then dead-letter), or something that will
 * never be valid (quarantine at once).
 */
public record Decoded(Kind kind, Envelope envelope, String reason) {
    public enum Kind { VALID, UNKNOWN_VERSION, INVALID }

    static Decoded valid(Envelope envelope) {
        return new Decoded(Kind.VALID, envelope, null);
    }

    static Decoded unknownVersion(String reason) {
        return new Decoded(Kind.UNKNOWN_VERSION, null, reason);
    }

    static Decoded invalid(String reason) {
        return new Decoded(Kind.INVALID, null, reason);
    }
}
