package org.outpost.consumer;

/** One line per event on stderr, "outpost-consumer LEVEL: text", like outpostd and the bridge. */
final class Log {
    private Log() {}

    static void info(String text) {
        line("info", text);
    }

    static void warn(String text) {
        line("warning", text);
    }

    static void error(String text) {
        line("error", text);
    }

    private static synchronized void line(String level, String text) {
        System.err.println("outpost-consumer " + level + ": " + text.replace('\n', ' '));
        System.err.flush();
    }
}
