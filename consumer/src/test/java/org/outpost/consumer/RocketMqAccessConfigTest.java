package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The access and TLS settings are refused at start when they would be unsafe or ignored. */
class RocketMqAccessConfigTest {
    private static String refusal(String nameServers, String... extra) {
        List<String> flags = new ArrayList<>(List.of("--name-servers", nameServers, "--topic", "t", "--group", "g",
                "--database", "jdbc:sqlite:/nonexistent/alarms.db"));
        flags.addAll(List.of(extra));
        return assertThrows(IllegalArgumentException.class, () -> Config.parse(flags)).getMessage();
    }

    private static Path secret(String permissions) throws Exception {
        Path file = Files.createTempFile("secret", ".txt");
        Files.writeString(file, "s3cret\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    @Test
    void aSecretFileEveryUserMayReadIsRefusedWithTheChmodThatFixesIt() throws Exception {
        Path file = secret("rw-r--r--");
        String message = refusal("127.0.0.1:9876", "--access-key", "consumer", "--secret-file", file.toString());
        assertTrue(message.contains("chmod o-rw " + file), message);
    }

    @Test
    void anAccessKeyWithoutItsSecretIsRefused() {
        String message = refusal("127.0.0.1:9876", "--access-key", "consumer");
        assertTrue(message.contains("access_key needs its secret"), message);
    }

    @Test
    void anAccessKeyInPlainTextToARemoteNameServerIsRefused() throws Exception {
        Path file = secret("rw-------");
        String message = refusal("10.0.0.11:9876", "--access-key", "consumer", "--secret-file", file.toString());
        assertTrue(message.contains("name server 10.0.0.11, not loopback"), message);
    }

    @Test
    void tlsSettingsWithoutTlsAreRefused() {
        String message = refusal("127.0.0.1:9876", "--tls-insecure-skip-verify", "true");
        assertTrue(message.contains("need tls_enabled true"), message);
    }
}
