/*
 * record_alarm_c: records one alarm straight into the store through the C
 * API (include/outpost/outpost_c.h), in C99, the way firmware that links
 * the library does it (no outpostd in between).
 *
 *   outpost-record-alarm-c DATABASE GATEWAY_ID
 *
 * Prints the eventId once the alarm is durable and exits 0; prints the code
 * and message on stderr and exits 1 otherwise. The README's "From C" shows
 * this file; the unit suite runs it.
 */
#include <stdio.h>

#include "outpost/outpost_c.h"

int main(int argc, char** argv) {
    outpost_store_options options;
    outpost_store* store = NULL;
    outpost_alarm alarm;
    outpost_recorded recorded;
    outpost_error error;
    int exit_code = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: %s DATABASE GATEWAY_ID\n", argv[0]);
        return 2;
    }
    outpost_store_options_init(&options);
    options.gateway_id = argv[2];
    if (outpost_store_open(argv[1], &options, &store, &error) != OUTPOST_OK) {
        fprintf(stderr, "open: %s: %s\n", outpost_code_name(error.code), error.message);
        return 1;
    }

    outpost_alarm_init(&alarm);
    alarm.device_id = "pump-3";
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = OUTPOST_SEVERITY_CRITICAL;
    alarm.has_value = 1;
    alarm.value = 97.5;
    alarm.idempotency_key = "boot-17/alarm-5"; /* a retry returns the same eventId */
    if (outpost_store_record_alarm(store, &alarm, &recorded, &error) == OUTPOST_OK) {
        printf("%s\n", recorded.event_id); /* durable: survives a power cut */
    } else {
        /* OUTPOST_OUTCOME_UNKNOWN: retry with the same key; OUTPOST_STORE_FULL:
         * wait for the backlog to drain. */
        fprintf(stderr, "record: %s: %s\n", outpost_code_name(error.code), error.message);
        exit_code = 1;
    }

    if (outpost_store_close(store, &error) != OUTPOST_OK) exit_code = 1;
    outpost_store_free(store);
    return exit_code;
}
