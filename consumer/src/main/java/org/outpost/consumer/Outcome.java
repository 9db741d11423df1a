package org.outpost.consumer;

import java.util.ArrayList;
import java.util.List;

/** What one committed batch did; the log lines are printed only after the COMMIT. */
public final class Outcome {
    long applied;
    long duplicates;
    long quarantined;
    long gaps;
    long late;
    final List<String> lines = new ArrayList<>();

    public long applied() {
        return applied;
    }

    public long duplicates() {
        return duplicates;
    }

    public long quarantined() {
        return quarantined;
    }

    public long gaps() {
        return gaps;
    }

    public long late() {
        return late;
    }

    public List<String> lines() {
        return lines;
    }
}
