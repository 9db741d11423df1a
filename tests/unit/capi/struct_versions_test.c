/*
 * The C API's versioned structs (outpost_c.h, "Versioned structs"), from C99
 * against liboutpost as a shared library where the build has one: a caller
 * built against an older or a newer outpost_c.h than the library it runs
 * with. The older and newer layouts are written out here as such a caller's
 * header would have them: the fields every version has, then fewer (older)
 * or more (newer) at the end. Every struct is followed by guard bytes that
 * the library must never touch. TAP by hand.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outpost/outpost_c.h"

static int checks = 0;
static int failures = 0;

static void check(int passed, const char* name, const outpost_error* error) {
    ++checks;
    if (!passed) ++failures;
    printf("%s %d - %s\n", passed ? "ok" : "not ok", checks, name);
    if (!passed && error != NULL) {
        printf("# last error: %s: %s\n", outpost_code_name(error->code), error->message);
    }
}

#define GUARD_BYTES 64
#define GUARD_VALUE 0xA5

static int guard_intact(const unsigned char* guard) {
    int i;
    for (i = 0; i < GUARD_BYTES; ++i) {
        if (guard[i] != GUARD_VALUE) return 0;
    }
    return 1;
}

/* outpost_publisher_options as a header without the receipt fields had it. */
typedef struct older_publisher_options {
    size_t struct_size;
    const char* broker_uri;
    const char* client_id;
    const char* username;
    const char* password;
    const char* tls_ca_file;
    const char* tls_cert_file;
    const char* tls_key_file;
    const char* tls_key_password;
    int tls_verify_server;
    uint32_t keepalive_s;
    uint32_t connect_timeout_ms;
    uint32_t reconnect_max_ms;
    int max_in_flight;
    int max_attempts;
} older_publisher_options;

/* outpost_store_stats as a header without the last two counts had it. */
typedef struct older_store_stats {
    int64_t pending;
    int64_t sent;
    int64_t dead;
    int64_t oldest_pending_id;
    uint64_t database_bytes;
    uint64_t quota_bytes;
    uint64_t commits;
    uint64_t events_recorded;
    uint64_t purged_rows;
} older_store_stats;

/* outpost_store_options as a newer header might have it: one field more. */
typedef struct newer_store_options {
    outpost_store_options known;
    uint64_t option_from_the_future;
} newer_store_options;

static char directory[256];

static outpost_store* open_store(const char* name, outpost_error* error) {
    outpost_store_options options;
    outpost_store* store = NULL;
    char path[512];
    outpost_store_options_init(&options);
    options.gateway_id = "gw-versions";
    snprintf(path, sizeof path, "%s/%s", directory, name);
    if (outpost_store_open(path, &options, &store, error) != OUTPOST_OK) return NULL;
    return store;
}

static void older_caller(outpost_store* store) {
    struct {
        older_publisher_options options;
        unsigned char guard[GUARD_BYTES];
    } publisher_block;
    struct {
        older_store_stats stats;
        unsigned char guard[GUARD_BYTES];
    } stats_block;
    outpost_alarm alarm;
    outpost_recorded recorded;
    outpost_publisher* publisher = NULL;
    outpost_error error;

    memset(&publisher_block, GUARD_VALUE, sizeof publisher_block);
    outpost_publisher_options_init_sized((outpost_publisher_options*)&publisher_block.options,
                                         sizeof publisher_block.options);
    check(guard_intact(publisher_block.guard) &&
              publisher_block.options.struct_size == sizeof(older_publisher_options) &&
              publisher_block.options.max_attempts == 10 &&
              strcmp(publisher_block.options.broker_uri, "tcp://127.0.0.1:1883") == 0,
          "an older caller's options are initialised up to its own size and not a byte further",
          NULL);

#if OUTPOST_TEST_HAVE_MQTT
    publisher_block.options.broker_uri = "tcp://127.0.0.1:9"; /* nothing listens */
    check(outpost_publisher_start(store, (const outpost_publisher_options*)&publisher_block.options,
                                  &publisher, &error) == OUTPOST_OK &&
              publisher != NULL,
          "a publisher starts from an older caller's options (the fields it lacks keep their "
          "defaults)",
          &error);
    check(outpost_publisher_stop(publisher, 1000, &error) == OUTPOST_OK ||
              error.code == OUTPOST_TIMEOUT,
          "that publisher stops", &error);
    outpost_publisher_free(publisher);
#else
    (void)publisher;
#endif

    outpost_alarm_init(&alarm);
    alarm.device_id = "dev-1";
    alarm.alarm_type = "OVER_TEMP";
    check(outpost_store_record_alarm(store, &alarm, &recorded, &error) == OUTPOST_OK,
          "an alarm is recorded", &error);

    memset(&stats_block, GUARD_VALUE, sizeof stats_block);
    check(outpost_store_get_stats_sized(store, (outpost_store_stats*)&stats_block.stats,
                                        sizeof stats_block.stats, &error) == OUTPOST_OK &&
              stats_block.stats.pending == 1 && stats_block.stats.events_recorded == 1 &&
              guard_intact(stats_block.guard),
          "an older caller's stats are filled up to its own size and not a byte further", &error);
}

static void newer_caller(void) {
    newer_store_options newer;
    outpost_store* store = NULL;
    outpost_error error;
    char path[512];

    memset(&newer, GUARD_VALUE, sizeof newer);
    outpost_store_options_init(&newer.known);
    outpost_store_options_init_sized(&newer.known, sizeof newer);
    check(newer.known.struct_size == sizeof newer && newer.option_from_the_future == 0 &&
              newer.known.max_event_bytes == 64u * 1024u,
          "a newer caller's options are initialised with zero in the fields this library "
          "does not know",
          NULL);

    newer.known.gateway_id = "gw-versions";
    snprintf(path, sizeof path, "%s/newer.db", directory);
    check(outpost_store_open(path, &newer.known, &store, &error) == OUTPOST_OK && store != NULL,
          "a newer caller whose unknown fields stay at their defaults opens a store", &error);
    outpost_store_free(store);
    store = NULL;

    newer.option_from_the_future = 1;
    check(outpost_store_open(path, &newer.known, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL && strstr(error.message, "does not know") != NULL,
          "a newer caller that sets a field this library does not know is refused, not ignored",
          &error);

    memset(&newer, 0, sizeof newer);
    newer.known.gateway_id = "gw-versions";
    check(outpost_store_open(path, &newer.known, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL && strstr(error.message, "struct_size") != NULL,
          "options that were never initialised (struct_size 0) are refused", &error);
}

int main(void) {
    outpost_error error;
    outpost_store* store;
    const char* tmp = getenv("TMPDIR");

    snprintf(directory, sizeof directory, "%s/outpost-capi-versions-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(directory) == NULL) {
        printf("Bail out! cannot create a temporary directory\n");
        return 1;
    }
    store = open_store("older.db", &error);
    if (store == NULL) {
        printf("Bail out! open: %s: %s\n", outpost_code_name(error.code), error.message);
        return 1;
    }
    older_caller(store);
    outpost_store_free(store);
    newer_caller();
    printf("1..%d\n", checks);
    return failures == 0 ? 0 : 1;
}
