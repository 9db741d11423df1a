/*
 * The C API: what firmware written in C needs from Outpost (open a store,
 * record alarms and events durably, read the counts, run the publisher).
 * It wraps the C++ API (outpost/store.h, outpost/publisher.h) and keeps its
 * promises: when a record call returns OUTPOST_OK the row and its outbox
 * event are durable; OUTPOST_OUTCOME_UNKNOWN means "retry with the same
 * idempotency key".
 *
 * C99. Nothing is thrown across this header: every function catches what
 * the C++ layer throws (allocation failure included) and returns a code.
 *
 * Errors. Every fallible function returns an outpost_code and takes, last,
 * an `outpost_error*` the caller owns (on its stack, typically). It may be
 * NULL when the code is enough. On return it holds the same code and a
 * NUL-terminated message for a human, truncated to fit (empty on OUTPOST_OK);
 * the library never keeps the pointer.
 *
 * Handles. outpost_store and outpost_publisher are opaque. A handle is valid
 * from the open/start call that returned it until the matching free call;
 * close/stop end its work but keep it valid, so a second close, or any call
 * after close, is a defined error (OUTPOST_CLOSED), never a use after free.
 * A NULL handle is OUTPOST_INVALID_ARGUMENT. Strings and structs passed in
 * are borrowed for the call only. A NULL optional string reads as "".
 *
 * Threads. Every function but the two free functions may be called from any
 * thread, concurrently, on the same handle: the store shares concurrent
 * records in one transaction (group commit). A free function must be the
 * last call on its handle, with no other call on it in progress.
 *
 * Versioned structs. The structs a caller fills for the library (options,
 * alarms, events) begin with `struct_size`; their *_init macros set it to
 * the size the caller was compiled with, and every other field to its
 * default. Call *_init first, then set the fields you need. The structs the
 * library fills (stats, status) are read through macros that pass their
 * size the same way. So a program built against an older outpost_c.h runs
 * against a newer liboutpost: the fields its header lacks keep their
 * defaults, and the library never reads or writes past the caller's
 * struct. Built against a newer header than the library it runs with, a
 * program whose newer fields are left at their defaults (zero) works; a
 * newer field set to anything else is OUTPOST_INVALID_ARGUMENT, an option
 * this library cannot honour. Fields are only ever added at the end. The
 * functions behind the macros (*_sized) are the exported symbols.
 */
#ifndef OUTPOST_OUTPOST_C_H
#define OUTPOST_OUTPOST_C_H

#include <stddef.h>
#include <stdint.h>

#include "outpost/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mirrors outpost::StatusCode (outpost/status.h), same order and meaning,
 * plus the last two, which only the C API returns. */
typedef enum outpost_code {
    OUTPOST_OK = 0,
    OUTPOST_INVALID_ARGUMENT, /* malformed input: fix it, do not retry */
    OUTPOST_NOT_FOUND,
    OUTPOST_STORE_FULL,      /* quota reached even after purging SENT rows */
    OUTPOST_DISK_FULL,       /* file system full; nothing written */
    OUTPOST_IO_ERROR,        /* the device failed; the operation did not happen */
    OUTPOST_BUSY,            /* a lock is held too long, or see outpost_store_close */
    OUTPOST_CORRUPTION,      /* the database file is damaged */
    OUTPOST_OUTCOME_UNKNOWN, /* COMMIT failed: retry with the same idempotency key */
    OUTPOST_VERSION_TOO_NEW, /* the database was written by a newer Outpost */
    OUTPOST_FENCED,
    OUTPOST_UNAVAILABLE,
    OUTPOST_REJECTED,
    OUTPOST_CLOSED, /* the handle was closed or stopped */
    OUTPOST_TIMEOUT,
    OUTPOST_INTERNAL,  /* a bug or unexpected state; the message says where */
    OUTPOST_NO_MEMORY, /* an allocation failed; nothing was done */
    OUTPOST_NOT_BUILT  /* this build has no MQTT: no publisher */
} outpost_code;

/* A stable lower-case name for `code` ("store_full", as the C++
 * status_code_name); "unknown" for a value outside the enum. Static. */
OUTPOST_API const char* outpost_code_name(outpost_code code);

#define OUTPOST_ERROR_MESSAGE_BYTES 256

/* Filled by every fallible call. Owned by the caller. */
typedef struct outpost_error {
    outpost_code code;
    char message[OUTPOST_ERROR_MESSAGE_BYTES]; /* "what failed, on what, what to do" */
} outpost_error;

/* ---- Store ------------------------------------------------------------ */

typedef struct outpost_store outpost_store;

/* As outpost::StoreOptions; what is not here keeps the C++ default
 * (WAL + synchronous=FULL always, quick_check at open, refuse a damaged
 * file). */
typedef struct outpost_store_options {
    size_t struct_size; /* set by outpost_store_options_init */
    /* Required: [A-Za-z0-9._-]{1,64}; checked against the database on reopen.
     * Default NULL (so open fails until it is set). */
    const char* gateway_id;
    /* Byte budget of the database file; default 64 MiB; at least
     * OUTPOST_MIN_QUOTA_BYTES. Alarms are never evicted: when SENT rows
     * cannot make room, records fail with OUTPOST_STORE_FULL. */
    uint64_t quota_bytes;
    /* How long SENT rows (and their idempotency keys) are kept; default 24 h. */
    uint32_t sent_retention_ms;
    /* Largest accepted envelope in bytes; default 64 KiB. */
    uint32_t max_event_bytes;
} outpost_store_options;

/* StoreOptions::kMinQuotaBytes. */
#define OUTPOST_MIN_QUOTA_BYTES (256u * 1024u)

/* Sets every field of `options` to its default, and struct_size. */
#define outpost_store_options_init(options) \
    outpost_store_options_init_sized((options), sizeof *(options))
/* Behind the macro: the first `struct_size` bytes of `options`. NULL is
 * ignored. */
OUTPOST_API void outpost_store_options_init_sized(outpost_store_options* options,
                                                  size_t struct_size);

/* Opens (creating if needed) the database at `path`, as outpost::Store::open.
 * On OUTPOST_OK *store_out holds a new handle (free it with
 * outpost_store_free); on any error *store_out is NULL.
 * Errors: OUTPOST_INVALID_ARGUMENT (NULL path, options or store_out; bad
 * options; a database of another gateway), OUTPOST_VERSION_TOO_NEW,
 * OUTPOST_CORRUPTION, OUTPOST_IO_ERROR, OUTPOST_DISK_FULL, OUTPOST_BUSY,
 * OUTPOST_OUTCOME_UNKNOWN (a migration's COMMIT failed: open again),
 * OUTPOST_NO_MEMORY. */
OUTPOST_API outpost_code outpost_store_open(const char* path, const outpost_store_options* options,
                                outpost_store** store_out, outpost_error* error);

/* Waits for writes in progress, then closes the database; the handle stays
 * valid (free it later) and every call but free then returns
 * OUTPOST_CLOSED. Errors: OUTPOST_INVALID_ARGUMENT (NULL), OUTPOST_CLOSED
 * (already closed: nothing happens), OUTPOST_BUSY (a publisher started on
 * this store is still running: stop it first; nothing happens). */
OUTPOST_API outpost_code outpost_store_close(outpost_store* store, outpost_error* error);

/* Releases the handle, closing the database if it is still open (a
 * publisher not yet freed keeps the database open until it is freed). NULL
 * is ignored. */
OUTPOST_API void outpost_store_free(outpost_store* store);

typedef enum outpost_severity {
    OUTPOST_SEVERITY_INFO = 0,
    OUTPOST_SEVERITY_WARNING,
    OUTPOST_SEVERITY_MINOR,
    OUTPOST_SEVERITY_MAJOR,
    OUTPOST_SEVERITY_CRITICAL
} outpost_severity;

/* One alarm, by the rules of outpost::Alarm (outpost/alarm.h): identifiers
 * [A-Za-z0-9._-]{1,64}, UTF-8 text, lengths in characters. */
typedef struct outpost_alarm {
    size_t struct_size;          /* set by outpost_alarm_init */
    const char* device_id;       /* required */
    const char* alarm_type;      /* required, 1 to 64 characters, e.g. "OVER_TEMP" */
    const char* event_type;      /* NULL or "" means "ALARM_RAISED"; or "ALARM_CLEARED" */
    outpost_severity severity;   /* default OUTPOST_SEVERITY_MAJOR */
    int has_value;               /* nonzero: `value` is reported */
    double value;                /* finite */
    const char* unit;            /* optional, at most 32 characters */
    const char* text;            /* optional, at most 1024 characters */
    const char* idempotency_key; /* optional, at most 128 bytes; see outpost_recorded */
} outpost_alarm;

/* Sets every field of `alarm` to its default (all strings NULL), and
 * struct_size. */
#define outpost_alarm_init(alarm) outpost_alarm_init_sized((alarm), sizeof *(alarm))
OUTPOST_API void outpost_alarm_init_sized(outpost_alarm* alarm, size_t struct_size);

/* An application event with a JSON payload, by the rules of outpost::Event
 * (outpost/event.h). */
typedef struct outpost_event {
    size_t struct_size;          /* set by outpost_event_init */
    const char* event_type;      /* required, [A-Z][A-Z0-9_]{0,63} */
    const char* device_id;       /* required; orders the events */
    const char* aggregate_type;  /* required, 1 to 64 characters, e.g. "valve" */
    const char* aggregate_id;    /* required, 1 to 256 characters */
    const char* payload_json;    /* required: one JSON object, at most max_event_bytes */
    const char* idempotency_key; /* optional, as in outpost_alarm */
} outpost_event;

/* Sets every field of `event` to NULL, and struct_size. */
#define outpost_event_init(event) outpost_event_init_sized((event), sizeof *(event))
OUTPOST_API void outpost_event_init_sized(outpost_event* event, size_t struct_size);

#define OUTPOST_EVENT_ID_BYTES 37 /* a UUID's 36 characters and the NUL */

/* What a record call made durable. */
typedef struct outpost_recorded {
    char event_id[OUTPOST_EVENT_ID_BYTES]; /* UUIDv7, canonical text */
    int64_t seq;                           /* per-device sequence number, from 1 */
    /* Nonzero when the idempotency key matched an earlier record: the fields
     * above are that record's and nothing new was written. Keys are
     * remembered while their outbox row exists (sent_retention_ms). */
    int duplicate;
} outpost_recorded;

/* Records `alarm` and its ALARM_* event in one transaction and returns
 * once both are durable (outpost::Store::record_alarm). On OUTPOST_OK
 * *recorded holds the event; on an error it is zeroed.
 * Errors: OUTPOST_INVALID_ARGUMENT (NULL store, alarm or recorded; a field
 * breaking the rules above; nothing written), OUTPOST_STORE_FULL,
 * OUTPOST_DISK_FULL, OUTPOST_IO_ERROR (nothing written),
 * OUTPOST_OUTCOME_UNKNOWN (retry with the same idempotency key),
 * OUTPOST_CORRUPTION, OUTPOST_CLOSED, OUTPOST_NO_MEMORY. */
OUTPOST_API outpost_code outpost_store_record_alarm(outpost_store* store, const outpost_alarm* alarm,
                                        outpost_recorded* recorded, outpost_error* error);

/* Records `event` alone in one transaction, durable on return
 * (outpost::Store::transact with one enqueue). Outcomes as
 * outpost_store_record_alarm; a payload that is not one JSON object, or
 * larger than max_event_bytes, is OUTPOST_INVALID_ARGUMENT. */
OUTPOST_API outpost_code outpost_store_record_event(outpost_store* store, const outpost_event* event,
                                        outpost_recorded* recorded, outpost_error* error);

/* As outpost::StoreStats: the outbox of the whole database, and counters
 * since open. */
typedef struct outpost_store_stats {
    int64_t pending;           /* outbox rows not yet SENT: the backlog */
    int64_t sent;              /* SENT rows still kept */
    int64_t dead;              /* DEAD rows awaiting an operator */
    int64_t oldest_pending_id; /* 0 when nothing is pending */
    uint64_t database_bytes;   /* pages in use * page size */
    uint64_t quota_bytes;
    uint64_t commits;         /* write transactions committed */
    uint64_t events_recorded; /* new outbox rows committed (duplicates excluded) */
    uint64_t purged_rows;     /* SENT rows removed by retention or quota */
    int64_t confirmed;        /* SENT rows confirmed by a receipt (receipts on) */
    /* The oldest pending event has waited at least this long (ms, boot
     * clocks only: StoreStats::oldest_pending_age_ms); -1 when none. */
    int64_t oldest_pending_age_ms;
} outpost_store_stats;

/* Reads the counts into *stats (zeroed on an error). Errors:
 * OUTPOST_INVALID_ARGUMENT (NULL), OUTPOST_CLOSED, OUTPOST_IO_ERROR,
 * OUTPOST_NO_MEMORY. */
#define outpost_store_get_stats(store, stats, error) \
    outpost_store_get_stats_sized((store), (stats), sizeof *(stats), (error))
OUTPOST_API outpost_code outpost_store_get_stats_sized(outpost_store* store,
                                                       outpost_store_stats* stats,
                                                       size_t struct_size, outpost_error* error);

/* ---- Publisher --------------------------------------------------------- */

/* The publisher functions are always declared. In a build without MQTT
 * (meson -Dmqtt=disabled) start returns OUTPOST_NOT_BUILT; stop, status
 * and free then only ever see a NULL handle. The topics are fixed by the
 * C++ publisher: "outpost/<gatewayId>/alarm/<deviceId>" and the retained
 * "outpost/<gatewayId>/status". */

typedef struct outpost_publisher outpost_publisher;

/* As outpost::PublisherOptions; what is not here keeps the C++ default. */
typedef struct outpost_publisher_options {
    size_t struct_size;     /* set by outpost_publisher_options_init */
    const char* broker_uri; /* "tcp://host:port" or "ssl://host:port";
                               default "tcp://127.0.0.1:1883" */
    const char* client_id;  /* NULL or "" means "outpost-<gatewayId>" */
    const char* username;   /* both NULL: anonymous */
    const char* password;
    const char* tls_ca_file;   /* PEM files for ssl://; NULL means unused */
    const char* tls_cert_file; /* client certificate (mutual TLS) */
    const char* tls_key_file;
    const char* tls_key_password;
    int tls_verify_server;       /* default 1 */
    uint32_t keepalive_s;        /* default 30, at least 1 */
    uint32_t connect_timeout_ms; /* default 10000, at least 1 */
    uint32_t reconnect_max_ms;   /* cap of the reconnect backoff; default 60000 */
    int max_in_flight;           /* QoS 1 window; default 20, at least 1 */
    int max_attempts;            /* broker refusals before DEAD; default 10 */
    /* Receipts (PublisherOptions::receipts): nonzero waits for outpost-bridge
     * to confirm each SENT row and publishes it again when no receipt came
     * within receipt_timeout_ms (then after doubling pauses). Default 1;
     * 0 ends the guarantee at the broker's PUBACK. */
    int receipts;
    uint32_t receipt_timeout_ms; /* default 30000, at least 1 */
    int max_unconfirmed;         /* published and not confirmed at once; default 1000 */
} outpost_publisher_options;

/* Sets every field of `options` to its default, and struct_size. */
#define outpost_publisher_options_init(options) \
    outpost_publisher_options_init_sized((options), sizeof *(options))
/* Behind the macro. NULL is ignored. */
OUTPOST_API void outpost_publisher_options_init_sized(outpost_publisher_options* options,
                                                      size_t struct_size);

/* Starts the publisher thread for `store` (outpost::Publisher::start) and
 * returns at once: lease and connection come in the background (see
 * outpost_publisher_get_status). The store cannot be closed while the
 * publisher runs (OUTPOST_BUSY); freeing the store handle is allowed, the
 * database stays open until the publisher is freed. On OUTPOST_OK
 * *publisher_out holds a new handle; on an error it is NULL.
 * Errors: OUTPOST_INVALID_ARGUMENT (NULL argument, bad options),
 * OUTPOST_CLOSED (the store is closed), OUTPOST_NOT_BUILT, OUTPOST_NO_MEMORY. */
OUTPOST_API outpost_code outpost_publisher_start(outpost_store* store, const outpost_publisher_options* options,
                                     outpost_publisher** publisher_out, outpost_error* error);

/* Stops as outpost::Publisher::stop: waits up to `timeout_ms` for the
 * PUBACKs in flight, marks them SENT, publishes "offline", disconnects and
 * releases the lease; unacknowledged rows stay PENDING. OUTPOST_OK, or
 * OUTPOST_TIMEOUT when PUBACKs were missing at the deadline (the stop
 * completes anyway). Idempotent: a second stop returns OUTPOST_OK at once.
 * OUTPOST_INVALID_ARGUMENT for NULL. */
OUTPOST_API outpost_code outpost_publisher_stop(outpost_publisher* publisher, uint32_t timeout_ms,
                                    outpost_error* error);

/* As outpost::PublisherStatus. Counters count since start. */
typedef struct outpost_publisher_status {
    int lease_held;
    int connected;
    int running;       /* nonzero until stop */
    int64_t backlog;   /* PENDING rows at the last look */
    int64_t in_flight; /* published, PUBACK not yet received */
    uint64_t published;
    uint64_t sent; /* rows marked SENT by this publisher */
    uint64_t refused;
    uint64_t dead; /* rows this publisher moved to DEAD */
    uint64_t reconnects;
    uint64_t connect_failures;
    char last_error[OUTPOST_ERROR_MESSAGE_BYTES]; /* most recent connection or store error */
} outpost_publisher_status;

/* Reads a snapshot into *status (zeroed on an error); cheap. Works after
 * stop too (the final counts). Errors: OUTPOST_INVALID_ARGUMENT (NULL),
 * OUTPOST_NO_MEMORY. */
#define outpost_publisher_get_status(publisher, status, error) \
    outpost_publisher_get_status_sized((publisher), (status), sizeof *(status), (error))
OUTPOST_API outpost_code outpost_publisher_get_status_sized(outpost_publisher* publisher,
                                                            outpost_publisher_status* status,
                                                            size_t struct_size,
                                                            outpost_error* error);

/* Stops the publisher if it runs (default stop timeout, 5 s) and releases
 * the handle. NULL is ignored. */
OUTPOST_API void outpost_publisher_free(outpost_publisher* publisher);

#ifdef __cplusplus
}
#endif

#endif /* OUTPOST_OUTPOST_C_H */
