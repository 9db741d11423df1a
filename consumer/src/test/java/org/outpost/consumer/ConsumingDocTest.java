package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/CONSUMING.md shows the migrations the consumer runs, statement for statement. */
class ConsumingDocTest {
    @Test
    void theDocumentedTablesAreTheOnesTheConsumerCreates() throws Exception {
        String repo = System.getProperty("outpost.repo");
        Path doc = Path.of(repo == null ? ".." : repo, "docs", "CONSUMING.md");
        String text = Files.readString(doc);
        for (Dialect dialect : Dialect.values()) {
            for (int version = 1; version <= Migrations.latest(); version++) {
                for (String sql : Migrations.statements(dialect, version)) {
                    assertTrue(text.contains(sql + ";"), () -> doc + " lacks, or has an old form of:\n" + sql);
                }
            }
        }
    }
}
