/*
 * The C API from C99 (outpost/outpost_c.h): every function, each error path
 * it defines, against real database files. TAP by hand: one "ok N - name"
 * line per check, named after the behaviour, and the plan at the end.
 * The publisher runs here against a port where nothing listens (it starts
 * and stops in the background); a real broker and a subscriber are in
 * tests/integration/publish/c_api_delivery_test.cpp.
 * OUTPOST_TEST_HAVE_MQTT (0 or 1) says whether this build has a publisher.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static char directory[256];

/* Path of `name` in this run's temporary directory. */
static const char* file_in_directory(const char* name, char* path, size_t size) {
    snprintf(path, size, "%s/%s", directory, name);
    return path;
}

static void remove_database(const char* name) {
    static const char* const suffixes[] = {"", "-wal", "-shm", ".lock"};
    char path[512];
    size_t i;
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s%s", directory, name, suffixes[i]);
        unlink(path);
    }
}

static outpost_alarm sample_alarm(const char* device_id, const char* key) {
    outpost_alarm alarm;
    outpost_alarm_init(&alarm);
    alarm.device_id = device_id;
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = OUTPOST_SEVERITY_CRITICAL;
    alarm.has_value = 1;
    alarm.value = 97.5;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    alarm.idempotency_key = key;
    return alarm;
}

static outpost_event sample_event(const char* payload_json, const char* key) {
    outpost_event event;
    outpost_event_init(&event);
    event.event_type = "VALVE_OPENED";
    event.device_id = "valve-3";
    event.aggregate_type = "valve";
    event.aggregate_id = "3";
    event.payload_json = payload_json;
    event.idempotency_key = key;
    return event;
}

static int64_t pending_of(outpost_store* store) {
    outpost_store_stats stats;
    if (outpost_store_get_stats(store, &stats, NULL) != OUTPOST_OK) return -1;
    return stats.pending;
}

#if OUTPOST_TEST_HAVE_MQTT
static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Waits up to 30 s for the publisher to have failed a connection attempt;
 * returns nonzero when it did. */
static int saw_connect_failure(outpost_publisher* publisher) {
    const double deadline = monotonic_seconds() + 30.0;
    const struct timespec pause = {0, 10 * 1000 * 1000};
    outpost_publisher_status status;
    while (monotonic_seconds() < deadline) {
        if (outpost_publisher_get_status(publisher, &status, NULL) == OUTPOST_OK &&
            status.connect_failures >= 1) {
            return 1;
        }
        nanosleep(&pause, NULL);
    }
    return 0;
}
#endif

static void codes_and_defaults(void) {
    outpost_store_options store_options;
    outpost_publisher_options publisher_options;
    outpost_alarm alarm;
    check(strcmp(outpost_code_name(OUTPOST_OK), "ok") == 0 &&
              strcmp(outpost_code_name(OUTPOST_STORE_FULL), "store_full") == 0 &&
              strcmp(outpost_code_name(OUTPOST_INTERNAL), "internal") == 0 &&
              strcmp(outpost_code_name(OUTPOST_NO_MEMORY), "no_memory") == 0 &&
              strcmp(outpost_code_name(OUTPOST_NOT_BUILT), "not_built") == 0 &&
              strcmp(outpost_code_name((outpost_code)999), "unknown") == 0,
          "every code has the stable name the C++ status_code_name gives it", NULL);

    outpost_store_options_init(&store_options);
    outpost_store_options_init_sized(NULL, sizeof(outpost_store_options));
    check(store_options.gateway_id == NULL && store_options.quota_bytes == 64u * 1024u * 1024u &&
              store_options.sent_retention_ms == 24u * 3600u * 1000u &&
              store_options.max_event_bytes == 64u * 1024u,
          "store options start at the C++ defaults: 64 MiB quota, 24 h retention, 64 KiB events",
          NULL);

    outpost_publisher_options_init(&publisher_options);
    outpost_publisher_options_init_sized(NULL, sizeof(outpost_publisher_options));
    check(publisher_options.broker_uri != NULL &&
              strcmp(publisher_options.broker_uri, "tcp://127.0.0.1:1883") == 0 &&
              publisher_options.client_id == NULL && publisher_options.tls_verify_server == 1 &&
              publisher_options.keepalive_s == 30 && publisher_options.max_in_flight == 20 &&
              publisher_options.max_attempts == 10,
          "publisher options start at the C++ defaults", NULL);

    outpost_alarm_init(&alarm);
    outpost_alarm_init_sized(NULL, sizeof(outpost_alarm));
    outpost_event_init_sized(NULL, sizeof(outpost_event));
    check(
        alarm.device_id == NULL && alarm.severity == OUTPOST_SEVERITY_MAJOR && alarm.has_value == 0,
        "an initialised alarm has no fields set and severity major", NULL);
}

static void open_refusals(void) {
    outpost_store_options options;
    outpost_store* store = (outpost_store*)&options; /* any non-NULL value: must be reset */
    outpost_error error;
    char path[512];
    file_in_directory("refused.db", path, sizeof path);
    outpost_store_options_init(&options);
    options.gateway_id = "gw-c";

    check(outpost_store_open(NULL, &options, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL && error.code == OUTPOST_INVALID_ARGUMENT &&
              strstr(error.message, "NULL") != NULL,
          "open with a NULL path is invalid_argument, says NULL and hands back no handle", &error);
    check(
        outpost_store_open(path, NULL, &store, &error) == OUTPOST_INVALID_ARGUMENT && store == NULL,
        "open with NULL options is invalid_argument", &error);
    check(outpost_store_open(path, &options, NULL, &error) == OUTPOST_INVALID_ARGUMENT,
          "open with a NULL handle pointer is invalid_argument", &error);

    options.gateway_id = NULL;
    check(outpost_store_open(path, &options, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL && strstr(error.message, "gateway") != NULL,
          "open without a gateway id is invalid_argument naming the gateway id", &error);
    options.gateway_id = "gw c";
    check(outpost_store_open(path, &options, &store, NULL) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL,
          "open with a gateway id outside [A-Za-z0-9._-] is invalid_argument (error may be NULL)",
          NULL);
    options.gateway_id = "gw-c";
    options.quota_bytes = OUTPOST_MIN_QUOTA_BYTES - 1;
    check(outpost_store_open(path, &options, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL && strstr(error.message, "quota") != NULL,
          "open with a quota below OUTPOST_MIN_QUOTA_BYTES is invalid_argument naming the quota",
          &error);
    remove_database("refused.db");
}

static void records_alarms_and_events(outpost_store* store) {
    outpost_error error;
    outpost_recorded first, again, other;
    outpost_store_stats stats;
    outpost_alarm alarm = sample_alarm("pump-1", "boot-7-overtemp");
    outpost_event event;
    char big_payload[70 * 1024];
    char long_text[1100];

    check(outpost_store_get_stats(store, &stats, &error) == OUTPOST_OK && stats.pending == 0 &&
              stats.events_recorded == 0 && stats.quota_bytes == 1024u * 1024u &&
              error.code == OUTPOST_OK && error.message[0] == '\0',
          "a new store reports no backlog, its quota, and an OK error with an empty message",
          &error);

    check(outpost_store_record_alarm(store, &alarm, &first, &error) == OUTPOST_OK &&
              strlen(first.event_id) == 36 && first.event_id[14] == '7' && first.seq == 1 &&
              first.duplicate == 0,
          "a recorded alarm returns a UUIDv7 eventId and seq 1 once durable", &error);
    check(outpost_store_get_stats(store, &stats, &error) == OUTPOST_OK && stats.pending == 1 &&
              stats.events_recorded == 1 && stats.commits >= 1 && stats.oldest_pending_id > 0,
          "the status counts the recorded alarm as pending", &error);

    alarm.text = "recorded twice";
    check(outpost_store_record_alarm(store, &alarm, &again, &error) == OUTPOST_OK &&
              strcmp(again.event_id, first.event_id) == 0 && again.seq == first.seq &&
              again.duplicate == 1 && pending_of(store) == 1,
          "recording again with the same idempotency key returns the original eventId and writes "
          "nothing",
          &error);

    alarm.idempotency_key = NULL;
    alarm.event_type = "ALARM_CLEARED";
    alarm.has_value = 0;
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_OK &&
              strcmp(other.event_id, first.event_id) != 0 && other.seq == 2 &&
              other.duplicate == 0 && pending_of(store) == 2,
          "an alarm without a key is a new event with the device's next seq", &error);

    alarm = sample_alarm("pump-1", NULL);
    check(outpost_store_record_alarm(NULL, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_store_record_alarm(store, NULL, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_store_record_alarm(store, &alarm, NULL, &error) == OUTPOST_INVALID_ARGUMENT,
          "record_alarm with a NULL store, alarm or result is invalid_argument", &error);
    alarm.device_id = "";
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              other.event_id[0] == '\0' && strstr(error.message, "device") != NULL,
          "an alarm with an empty device id is invalid_argument naming the device id", &error);
    alarm.device_id = NULL;
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an alarm with a NULL device id is invalid_argument", &error);
    alarm = sample_alarm("pump-1", NULL);
    alarm.alarm_type = NULL;
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an alarm without an alarm type is invalid_argument", &error);
    alarm = sample_alarm("pump-1", NULL);
    alarm.severity = (outpost_severity)42;
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              strstr(error.message, "severity") != NULL,
          "an alarm with a severity outside the enum is invalid_argument", &error);
    alarm = sample_alarm("pump-1", NULL);
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    alarm.text = long_text;
    check(outpost_store_record_alarm(store, &alarm, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an alarm text over 1024 characters is invalid_argument", &error);
    check(pending_of(store) == 2, "refused alarms wrote nothing", NULL);

    event = sample_event("{\"position\":42,\"by\":\"schedule\"}", "valve-3-open-1");
    check(outpost_store_record_event(store, &event, &first, &error) == OUTPOST_OK &&
              strlen(first.event_id) == 36 && first.seq == 1 && first.duplicate == 0 &&
              pending_of(store) == 3,
          "an event with a JSON payload is recorded durably with its own device seq", &error);
    check(outpost_store_record_event(store, &event, &again, &error) == OUTPOST_OK &&
              strcmp(again.event_id, first.event_id) == 0 && again.duplicate == 1 &&
              pending_of(store) == 3,
          "an event recorded again with its idempotency key returns the original eventId", &error);

    event.idempotency_key = NULL;
    event.payload_json = "{\"position\":";
    check(outpost_store_record_event(store, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an event whose payload is not JSON is invalid_argument", &error);
    event.payload_json = "[1,2]";
    check(outpost_store_record_event(store, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an event whose payload is JSON but not an object is invalid_argument", &error);
    event.payload_json = "{\"a\":1,\"a\":2}";
    check(outpost_store_record_event(store, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an event whose payload repeats a key is invalid_argument", &error);
    memset(big_payload, 'p', sizeof big_payload);
    memcpy(big_payload, "{\"blob\":\"", 9);
    memcpy(big_payload + sizeof big_payload - 3, "\"}", 3);
    event.payload_json = big_payload;
    check(outpost_store_record_event(store, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an event larger than max_event_bytes is invalid_argument", &error);
    event.payload_json = "{}";
    event.aggregate_id = "";
    check(outpost_store_record_event(store, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT,
          "an event with an empty aggregate id is invalid_argument", &error);
    check(outpost_store_record_event(NULL, &event, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_store_record_event(store, NULL, &other, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_store_record_event(store, &event, NULL, &error) == OUTPOST_INVALID_ARGUMENT,
          "record_event with a NULL store, event or result is invalid_argument", &error);
    check(pending_of(store) == 3, "refused events wrote nothing", NULL);

    check(outpost_store_get_stats(NULL, &stats, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_store_get_stats_sized(store, NULL, sizeof(outpost_store_stats), &error) == OUTPOST_INVALID_ARGUMENT,
          "get_stats with a NULL store or result is invalid_argument", &error);
}

static void publisher_runs_and_stops(outpost_store* store) {
    outpost_publisher_options options;
    outpost_publisher* publisher = NULL;
    outpost_publisher_status status;
    outpost_error error;

    outpost_publisher_options_init(&options);
    /* Port 1: nothing listens; the publisher keeps retrying in the background. */
    options.broker_uri = "tcp://127.0.0.1:1";
    options.connect_timeout_ms = 500;
    options.reconnect_max_ms = 200;

#if OUTPOST_TEST_HAVE_MQTT
    check(
        outpost_publisher_start(NULL, &options, &publisher, &error) == OUTPOST_INVALID_ARGUMENT &&
            outpost_publisher_start(store, NULL, &publisher, &error) == OUTPOST_INVALID_ARGUMENT &&
            outpost_publisher_start(store, &options, NULL, &error) == OUTPOST_INVALID_ARGUMENT &&
            publisher == NULL,
        "publisher start with a NULL store, options or handle pointer is invalid_argument", &error);
    options.broker_uri = "mqtt://127.0.0.1:1";
    check(
        outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_INVALID_ARGUMENT &&
            publisher == NULL && strstr(error.message, "'mqtt://127.0.0.1:1'") != NULL,
        "a broker URI other than tcp:// or ssl:// is invalid_argument and starts nothing", &error);
    options.broker_uri = NULL;
    check(
        outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_INVALID_ARGUMENT &&
            publisher == NULL,
        "a NULL broker URI is invalid_argument", &error);
    options.broker_uri = "tcp://127.0.0.1:1";
    options.max_in_flight = 0;
    check(
        outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_INVALID_ARGUMENT &&
            publisher == NULL,
        "a window of 0 is invalid_argument", &error);
    options.max_in_flight = 20;

    check(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_OK &&
              publisher != NULL,
          "the publisher starts at once though the broker is unreachable", &error);
    check(outpost_publisher_get_status(publisher, &status, &error) == OUTPOST_OK &&
              status.running == 1 && status.connected == 0 && status.sent == 0,
          "a running publisher without a broker reports running, not connected, nothing sent",
          &error);
    check(saw_connect_failure(publisher),
          "the publisher tries the unreachable broker and counts the failure", NULL);
    check(outpost_store_close(store, &error) == OUTPOST_BUSY && pending_of(store) == 3,
          "the store refuses to close while its publisher runs, and stays usable", &error);
    check(outpost_publisher_stop(publisher, 1000, &error) == OUTPOST_OK, "the publisher stops",
          &error);
    check(outpost_publisher_stop(publisher, 1000, &error) == OUTPOST_OK,
          "stopping a stopped publisher is OK at once", &error);
    check(outpost_publisher_get_status(publisher, &status, &error) == OUTPOST_OK &&
              status.running == 0 && status.connect_failures >= 1 &&
              strlen(status.last_error) > 0 && status.sent == 0,
          "a stopped publisher reports not running and the failed connection it saw", &error);
    check(outpost_publisher_get_status(NULL, &status, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_publisher_get_status_sized(publisher, NULL, sizeof(outpost_publisher_status), &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_publisher_stop(NULL, 0, &error) == OUTPOST_INVALID_ARGUMENT,
          "publisher status or stop with NULL arguments is invalid_argument", &error);
    outpost_publisher_free(publisher);
    outpost_publisher_free(NULL);
    publisher = NULL;

    /* Freed without a stop: free stops it and the store can close after. */
    check(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_OK,
          "a second publisher starts on the same store after the first stopped", &error);
    outpost_publisher_free(publisher);
    publisher = NULL;
#else
    check(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_NOT_BUILT &&
              publisher == NULL && strstr(error.message, "MQTT") != NULL,
          "without MQTT the publisher start says not_built", &error);
    check(outpost_publisher_stop(NULL, 0, &error) == OUTPOST_INVALID_ARGUMENT &&
              outpost_publisher_get_status(NULL, &status, &error) == OUTPOST_INVALID_ARGUMENT,
          "without MQTT stop and status see only a NULL handle: invalid_argument", &error);
    outpost_publisher_free(NULL);
#endif
}

#if OUTPOST_TEST_HAVE_MQTT
/* The store handle freed under a running publisher: the publisher keeps the
 * database open, stops when freed, and the file opens again afterwards. */
static void store_freed_before_its_publisher(void) {
    outpost_store_options options;
    outpost_publisher_options publisher_options;
    outpost_store* store = NULL;
    outpost_publisher* publisher = NULL;
    outpost_publisher_status status;
    outpost_error error;
    char path[512];

    outpost_store_options_init(&options);
    options.gateway_id = "gw-c";
    outpost_publisher_options_init(&publisher_options);
    publisher_options.broker_uri = "tcp://127.0.0.1:1";
    publisher_options.connect_timeout_ms = 500;
    file_in_directory("shared.db", path, sizeof path);
    if (outpost_store_open(path, &options, &store, &error) != OUTPOST_OK ||
        outpost_publisher_start(store, &publisher_options, &publisher, &error) != OUTPOST_OK) {
        check(0, "a store and its publisher start", &error);
        return;
    }
    outpost_store_free(store);
    check(outpost_publisher_get_status(publisher, &status, &error) == OUTPOST_OK &&
              status.running == 1 && outpost_publisher_stop(publisher, 1000, &error) == OUTPOST_OK,
          "a publisher outlives the store handle it was started from and stops", &error);
    outpost_publisher_free(publisher);
    store = NULL;
    check(outpost_store_open(path, &options, &store, &error) == OUTPOST_OK &&
              outpost_store_close(store, &error) == OUTPOST_OK,
          "once both handles are freed the database opens again", &error);
    outpost_store_free(store);
    remove_database("shared.db");
}
#endif

static void closed_store(outpost_store* store) {
    outpost_error error;
    outpost_recorded recorded;
    outpost_store_stats stats;
    outpost_alarm alarm = sample_alarm("pump-1", NULL);
    outpost_event event;
    outpost_publisher_options options;
    outpost_publisher* publisher = NULL;

    check(outpost_store_close(store, &error) == OUTPOST_OK, "the store closes", &error);
    check(outpost_store_close(store, &error) == OUTPOST_CLOSED &&
              strstr(error.message, "already closed") != NULL,
          "closing a closed store is closed, and says so", &error);
    check(outpost_store_record_alarm(store, &alarm, &recorded, &error) == OUTPOST_CLOSED,
          "recording an alarm on a closed store is closed", &error);
    event = sample_event("{}", NULL);
    check(outpost_store_record_event(store, &event, &recorded, &error) == OUTPOST_CLOSED,
          "recording an event on a closed store is closed", &error);
    check(outpost_store_get_stats(store, &stats, &error) == OUTPOST_CLOSED,
          "reading the status of a closed store is closed", &error);
    outpost_publisher_options_init(&options);
#if OUTPOST_TEST_HAVE_MQTT
    check(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_CLOSED &&
              publisher == NULL,
          "a publisher cannot start on a closed store", &error);
#else
    check(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_NOT_BUILT,
          "without MQTT a publisher on a closed store is still not_built", &error);
#endif
    check(outpost_store_close(NULL, &error) == OUTPOST_INVALID_ARGUMENT,
          "closing a NULL store is invalid_argument", &error);
}

static void reopen_keeps_the_records(const char* path) {
    outpost_store_options options;
    outpost_store* store = NULL;
    outpost_error error;
    outpost_store_options_init(&options);
    options.gateway_id = "gw-c";
    options.quota_bytes = 1024u * 1024u;
    check(
        outpost_store_open(path, &options, &store, &error) == OUTPOST_OK && pending_of(store) == 3,
        "a reopened store still holds every recorded event", &error);
    outpost_store_free(store); /* free without close closes */

    options.gateway_id = "gw-other";
    check(outpost_store_open(path, &options, &store, &error) == OUTPOST_INVALID_ARGUMENT &&
              store == NULL,
          "opening a store of another gateway is invalid_argument", &error);
    outpost_store_free(NULL);
}

static void full_store(void) {
    outpost_store_options options;
    outpost_store* store = NULL;
    outpost_error error;
    outpost_recorded recorded;
    outpost_code code = OUTPOST_OK;
    outpost_alarm alarm = sample_alarm("pump-1", NULL);
    char text[301];
    char path[512];
    char device[16];
    int accepted = 0;

    memset(text, 'q', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    alarm.text = text;
    outpost_store_options_init(&options);
    options.gateway_id = "gw-c";
    options.quota_bytes = OUTPOST_MIN_QUOTA_BYTES;
    if (outpost_store_open(file_in_directory("full.db", path, sizeof path), &options, &store,
                           &error) != OUTPOST_OK) {
        check(0, "a store at the minimum quota opens", &error);
        return;
    }
    for (accepted = 0; accepted < 100000; ++accepted) {
        snprintf(device, sizeof device, "dev-%d", accepted % 5);
        alarm.device_id = device;
        code = outpost_store_record_alarm(store, &alarm, &recorded, &error);
        if (code != OUTPOST_OK) break;
    }
    check(code == OUTPOST_STORE_FULL && accepted > 50 && strstr(error.message, "quota") != NULL,
          "a store at its quota refuses the next alarm with store_full naming the quota", &error);
    check(pending_of(store) == accepted,
          "a full store keeps every alarm it accepted pending and wrote none of the refused", NULL);
    check(outpost_store_close(store, &error) == OUTPOST_OK, "a full store still closes", &error);
    outpost_store_free(store);
    remove_database("full.db");
}

int main(void) {
    outpost_store_options options;
    outpost_store* store = NULL;
    outpost_error error;
    char path[512];
    const char* tmp = getenv("TMPDIR");

    snprintf(directory, sizeof directory, "%s/outpost-capi-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(directory) == NULL) {
        printf("Bail out! cannot create a temporary directory under %s\n", tmp ? tmp : "/tmp");
        return 1;
    }

    codes_and_defaults();
    open_refusals();

    outpost_store_options_init(&options);
    options.gateway_id = "gw-c";
    options.quota_bytes = 1024u * 1024u;
    file_in_directory("c.db", path, sizeof path);
    if (outpost_store_open(path, &options, &store, &error) != OUTPOST_OK) {
        printf("Bail out! open %s: %s: %s\n", path, outpost_code_name(error.code), error.message);
        return 1;
    }
    check(store != NULL && error.code == OUTPOST_OK, "a store opens and hands back a handle",
          &error);
    records_alarms_and_events(store);
    publisher_runs_and_stops(store);
#if OUTPOST_TEST_HAVE_MQTT
    store_freed_before_its_publisher();
#endif
    closed_store(store);
    outpost_store_free(store);
    reopen_keeps_the_records(path);
    full_store();

    remove_database("c.db");
    rmdir(directory);
    printf("1..%d\n", checks);
    return failures == 0 ? 0 : 1;
}
