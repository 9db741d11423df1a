package org.outpost.consumer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.netty.TlsSystemConfig;

/**
 * How the consumer reaches RocketMQ securely, with the official client's own mechanisms: an ACL
 * user's access key and secret signing every request ({@link AclClientRPCHook}), and TLS to name
 * servers and brokers ({@link ClientConfig#setUseTLS} with {@link TlsSystemConfig}).
 *
 * <p>Secure by default: with TLS on, the servers' certificates must chain to tls_ca_file (or the
 * JVM's trust store); only tls_insecure_skip_verify turns that off, with a warning at every
 * start. RocketMQ's client does not compare the certificate's names with the address it dials,
 * so the CA should sign nothing but RocketMQ servers. The secret comes from a file (not readable
 * by every user) or an environment variable, never from a flag or the --config file.
 */
final class RocketMqAccess {
    private RocketMqAccess() {}

    /** Adds the problems of the access and TLS settings to {@code problems} (files read, permissions checked). */
    static void check(Config config, List<String> problems) {
        boolean tls = config.flag("tls_enabled");
        if (!tls && (config.get("tls_ca_file") != null || config.flag("tls_insecure_skip_verify"))) {
            problems.add("tls_ca_file and tls_insecure_skip_verify need tls_enabled true (they would be ignored "
                    + "while the connection stays unencrypted)");
        }
        if (config.get("tls_ca_file") != null && !Files.isReadable(Path.of(config.get("tls_ca_file")))) {
            problems.add("tls_ca_file " + config.get("tls_ca_file") + " cannot be read");
        }
        String accessKey = config.get("access_key");
        boolean secretGiven = config.get("secret_file") != null || config.get("secret_env") != null;
        if (accessKey == null) {
            if (secretGiven) problems.add("secret_file and secret_env need access_key");
            return;
        }
        if (config.get("secret_file") != null && config.get("secret_env") != null) {
            problems.add("give the secret once: secret_file or secret_env, not both");
            return;
        }
        if (!secretGiven) {
            problems.add("access_key needs its secret: secret_file or secret_env");
            return;
        }
        try {
            secret(config);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        if (!tls && !config.flag("allow_plaintext_credentials")) {
            for (String host : nonLoopbackHosts(config.get("name_servers"))) {
                problems.add("access_key without tls_enabled to name server " + host + ", not loopback: the key and "
                        + "the signed requests would travel unencrypted (enable TLS, or set "
                        + "allow_plaintext_credentials true on a network you trust)");
            }
        }
    }

    /** Warnings to log at every start: the settings that weaken security. */
    static List<String> warnings(Config config) {
        if (config.flag("tls_enabled") && config.flag("tls_insecure_skip_verify")) {
            return List.of("tls_insecure_skip_verify is true: RocketMQ servers' certificates are NOT checked; "
                    + "anyone on the path can read and forge the alarm stream. For throwaway test brokers only.");
        }
        if (config.get("access_key") != null && !config.flag("tls_enabled")
                && !nonLoopbackHosts(config.get("name_servers")).isEmpty()) {
            return List.of("allow_plaintext_credentials is true: the access key and signed requests travel "
                    + "unencrypted to " + String.join(", ", nonLoopbackHosts(config.get("name_servers"))));
        }
        return List.of();
    }

    /** The request signer of access_key, or null without one. Config.check has checked the secret. */
    static RPCHook hook(Config config) {
        if (config.get("access_key") == null) return null;
        return new AclClientRPCHook(new SessionCredentials(config.get("access_key"), secret(config)));
    }

    /** Turns TLS on for this client when tls_enabled; every setting of the JVM's RocketMQ TLS is ours. */
    static void applyTls(Config config, ClientConfig client) {
        if (!config.flag("tls_enabled")) return;
        // No machine-wide tls.properties (default /etc/rocketmq/tls.properties) may override what
        // follows, e.g. turn the certificate check off: a file name that does not exist.
        TlsSystemConfig.tlsConfigFile = "";
        boolean verify = !config.flag("tls_insecure_skip_verify");
        TlsSystemConfig.tlsTestModeEnable = !verify;  // test mode trusts any certificate
        TlsSystemConfig.tlsClientAuthServer = verify;  // false would trust any certificate too
        TlsSystemConfig.tlsClientTrustCertPath = config.get("tls_ca_file");  // null: the JVM's trust store
        TlsSystemConfig.tlsClientCertPath = null;
        TlsSystemConfig.tlsClientKeyPath = null;
        client.setUseTLS(true);
    }

    private static String secret(Config config) {
        String secret;
        if (config.get("secret_env") != null) {
            secret = System.getenv(config.get("secret_env"));
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("secret_env: the environment variable " + config.get("secret_env")
                        + " is not set or empty");
            }
            return secret;
        }
        Path file = Path.of(config.get("secret_file"));
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (permissions.contains(PosixFilePermission.OTHERS_READ)
                    || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new IllegalArgumentException("secret_file " + file + " may be read or written by every user: "
                        + "chmod o-rw " + file);
            }
            secret = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalArgumentException("secret_file " + file + " cannot be read: " + e.getMessage());
        }
        if (secret.isEmpty()) throw new IllegalArgumentException("secret_file " + file + " is empty");
        return secret;
    }

    private static List<String> nonLoopbackHosts(String nameServers) {
        if (nameServers == null) return List.of();
        return Arrays.stream(nameServers.split(";")).map(String::strip).filter(s -> !s.isEmpty())
                .map(address -> address.contains(":") ? address.substring(0, address.lastIndexOf(':')) : address)
                .filter(host -> !isLoopback(host)).toList();
    }

    /** Loopback by its literal (no name lookup: --check-config connects to nothing). */
    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }
}
