package org.outpost.consumer;

/** A message that is not a valid Outpost envelope; the message says which rule it broke. */
public final class EnvelopeException extends Exception {
    private static final long serialVersionUID = 1L;

    public EnvelopeException(String reason) {
        super(reason);
    }
}
