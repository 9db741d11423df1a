package org.outpost.consumer;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named points where a test may kill the consumer with SIGKILL, the Java side of
 * src/common/fault_point.h and armed the same way: OUTPOST_FAULT=consumer.after_commit:3 kills
 * the process at the third hit of that point. Inert (one volatile read per hit) when the
 * variable is unset or names another part's point.
 */
public final class FaultPoints {
    /** Every point, in the order a message reaches them. */
    public static final List<String> POINTS = List.of("consumer.before_commit", "consumer.after_commit");
    public static final List<String> WHERE = List.of(
            "business rows and dedupe record written, COMMIT not yet run",
            "COMMIT returned, offset not yet acknowledged to RocketMQ");

    private final String armed;
    private final long killAt;
    private final AtomicLong hits = new AtomicLong();

    private FaultPoints(String armed, long killAt) {
        this.armed = armed;
        this.killAt = killAt;
    }

    public static FaultPoints fromEnvironment() {
        return parse(System.getenv("OUTPOST_FAULT"));
    }

    /** "name" or "name:N"; anything not naming a consumer point leaves every point inert. */
    public static FaultPoints parse(String spec) {
        if (spec == null || spec.isEmpty()) return new FaultPoints(null, 0);
        String[] parts = spec.split(":");
        if (!POINTS.contains(parts[0])) return new FaultPoints(null, 0);
        long at = 1;
        if (parts.length > 1) {
            try {
                at = Long.parseLong(parts[1]);
            } catch (NumberFormatException e) {
                at = 0;
            }
        }
        if (at < 1 || parts.length > 2) {
            System.err.println("outpost-consumer warning: OUTPOST_FAULT=" + spec + " has a bad count; every point stays inert");
            return new FaultPoints(null, 0);
        }
        return new FaultPoints(parts[0], at);
    }

    public String armed() {
        return armed;
    }

    /** Counts a hit of {@code name}; at the armed hit the process dies by SIGKILL. */
    public void hit(String name) {
        if (armed == null || !armed.equals(name)) return;
        if (hits.incrementAndGet() != killAt) return;
        System.err.println("outpost-consumer: OUTPOST_FAULT " + name + ":" + killAt + " reached, SIGKILL");
        System.err.flush();
        try {
            // The JVM cannot signal itself: kill(1) does, so the death is a real SIGKILL (no
            // shutdown hooks, no offset flush), exactly what a crash leaves behind.
            new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).inheritIO().start().waitFor();
            Thread.sleep(10_000);
        } catch (Exception e) {
            // fall through
        }
        Runtime.getRuntime().halt(137);
    }
}
