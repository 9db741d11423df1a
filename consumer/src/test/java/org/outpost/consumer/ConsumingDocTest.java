package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/CONSUMING.md shows the DDL the consumer runs, statement for statement. */
class ConsumingDocTest {
    @Test
    void theDocumentedTablesAreTheOnesTheConsumerCreates() throws Exception {
        String repo = System.getProperty("outpost.repo");
        Path doc = Path.of(repo == null ? ".." : repo, "docs", "CONSUMING.md");
        String text = Files.readString(doc);
        for (Dialect dialect : Dialect.values()) {
            for (String ddl : dialect.ddl()) {
                assertTrue(text.contains(ddl + ";"), () -> doc + " lacks, or has an old form of:\n" + ddl);
            }
        }
    }
}
