package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class FaultPointsTest {
    @Test
    void theConsumerPointsAreTheConsumerRowsOfTheCppTable() throws Exception {
        String repo = System.getProperty("outpost.repo");
        String header = Files.readString(Path.of(repo == null ? ".." : repo, "src", "common", "fault_point.h"));
        Matcher row = Pattern.compile("\\{\"(consumer\\.[a-z_]+)\",\\s*\"([^\"]*)\"").matcher(header);
        List<String> names = new ArrayList<>();
        List<String> where = new ArrayList<>();
        while (row.find()) {
            names.add(row.group(1));
            where.add(row.group(2));
        }
        assertEquals(FaultPoints.POINTS, names);
        assertEquals(FaultPoints.WHERE, where);
    }

    @Test
    void onlyAConsumerPointWithAGoodCountArms() {
        assertEquals("consumer.after_commit", FaultPoints.parse("consumer.after_commit:3").armed());
        assertEquals("consumer.before_commit", FaultPoints.parse("consumer.before_commit").armed());
        assertEquals(null, FaultPoints.parse("bridge.after_send:3").armed());
        assertEquals(null, FaultPoints.parse("consumer.after_commit:0").armed());
        assertEquals(null, FaultPoints.parse("consumer.after_commit:x").armed());
        assertEquals(null, FaultPoints.parse(null).armed());
    }
}
