// The telemetry lane: high-frequency, best-effort values (temperatures,
// counters, states) that go to the broker at QoS 0 and never touch the
// store (DESIGN.md promise 6, "Telemetry can never delay an alarm").
//
// Promises:
//  - offer() never blocks on I/O: it validates, copies the message into a
//    bounded in-memory ring under a short lock and returns. The lane's own
//    sender thread ("outpost-tele") drains the ring over its own MQTT v5
//    connection (own client id, clean start, no persistence). It shares no
//    lock, thread, connection or file of ours with the alarm Publisher or
//    the Store, and its threads run at nice 10 so that a busy CPU serves
//    the alarm path first. (Paho's C library runs one send and one receive
//    thread for all clients of a process; the lane keeps at most 64 of its
//    publishes queued there. A program that also publishes alarms and must
//    not share those threads runs the lane in another process, as outpostd
//    does with outpost-telemetry: docs/DESIGN.md, "The telemetry process".)
//  - Memory is bounded: at most ring_capacity messages of at most
//    max_payload_bytes each wait in the ring. When it is full the OLDEST
//    waiting message is dropped to make room (the newest values matter most).
//  - With coalesce set, a key that is already waiting in the ring has its
//    payload replaced in place by the newer one (it keeps its place in the
//    line); only the latest value per key goes out.
//  - Every message offered ends in exactly one counter of TelemetryStats:
//    published, coalesced, or one of the dropped_* reasons (a message still
//    in the ring is counted in ring_depth until it leaves it).
//  - Topic "outpost/<gatewayId>/telemetry/<key>", payload the offered bytes
//    exactly, QoS 0, not retained. QoS 0 has no acknowledgement: "published"
//    means handed to the MQTT client on a live connection.
//  - While the broker is unreachable the ring keeps the newest messages and
//    the lane reconnects with capped exponential backoff and jitter.
//
// Keys: one or more topic levels separated by '/', each level 1-64 of
// [A-Za-z0-9._-] (so never '+', '#', an empty level or a leading or
// trailing '/'), at most kMaxTelemetryKeyBytes in all. Examples: "temp",
// "pump-3/rpm", "line.2/motor/current".
//
// Datagram socket (for firmware that cannot link C++): when
// TelemetryOptions::datagram_socket is set, the lane binds an AF_UNIX
// SOCK_DGRAM socket there (file mode 0660). Each datagram is one message:
//
//     <key> '\n' <payload bytes>
//
// The key ends at the first newline; everything after it, binary or not,
// empty or not, is the payload. No reply is sent. A datagram without a
// newline or with an invalid key counts as dropped_invalid; one whose
// payload exceeds max_payload_bytes as dropped_oversize. Example:
//     printf 'boiler/temp\n71.5' | socat - UNIX-SENDTO:/run/outpost/telemetry.sock
#ifndef OUTPOST_TELEMETRY_H
#define OUTPOST_TELEMETRY_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "outpost/export.h"
#include "outpost/mqtt_endpoint.h"
#include "outpost/status.h"

namespace outpost {

constexpr size_t kMaxTelemetryKeyBytes = 200;

// True when `key` follows the key rules above.
OUTPOST_API bool is_valid_telemetry_key(std::string_view key);

struct TelemetryOptions {
    // Required, [A-Za-z0-9._-]{1,64}. Topics are
    // "outpost/<gateway_id>/telemetry/<key>".
    std::string gateway_id;
    // The broker, credentials, TLS and connection pacing; the lane opens
    // its own connection. An empty endpoint.client_id means
    // "outpost-<gateway_id>-telemetry"; it must differ from the alarm
    // publisher's id, or the broker disconnects one of them. A program
    // running both copies PublisherOptions::endpoint and sets the id.
    MqttEndpoint endpoint;
    // Messages held while waiting to be sent; drop-oldest beyond. At least 1.
    size_t ring_capacity = 4096;
    // Larger payloads are refused by offer() and counted as dropped_oversize.
    // At least 1, at most 1 MiB.
    size_t max_payload_bytes = 4096;
    // Keep only the latest value per key in the ring (see the promises).
    bool coalesce = false;
    // Publishes per second at most (bursts up to a tenth of that); beyond it
    // messages wait in the ring, which drops its oldest when full. This caps
    // what telemetry can take from the CPU and from paho's process-wide
    // send thread whatever rate firmware offers. 0 means no limit.
    // bench/telemetry_bench shows the effect on alarm latency.
    uint32_t max_send_rate = 5000;
    // Empty: no socket. Else the path of the AF_UNIX SOCK_DGRAM socket to
    // bind (see the datagram format above).
    std::string datagram_socket;
    // Seed for the backoff jitter; 0 picks one from the process id and time.
    uint64_t jitter_seed = 0;
};

// Counters count since start(); a snapshot, consistent per field.
struct TelemetryStats {
    uint64_t offered = 0;            // offer() calls, including datagrams passed on
    uint64_t published = 0;          // handed to the MQTT client while connected
    uint64_t coalesced = 0;          // replaced in the ring by a newer value of its key
    uint64_t dropped_ring_full = 0;  // oldest message pushed out of a full ring
    uint64_t dropped_oversize = 0;   // payload above max_payload_bytes
    uint64_t dropped_invalid = 0;    // bad key or malformed datagram
    // Taken from the ring, then lost because the connection dropped at that
    // moment; still in the ring when stop() ran; or offered after stop().
    uint64_t dropped_disconnected = 0;
    uint64_t datagrams = 0;  // datagrams received on the socket, valid or not
    size_t ring_depth = 0;   // messages waiting now
    bool connected = false;
    uint64_t reconnects = 0;  // successful connects after the first
    std::string last_error;   // most recent connection or socket error
};

namespace telemetry {
class LaneImpl;  // the lane's threads and ring; internal
}  // namespace telemetry

class OUTPOST_API TelemetryLane final {
  public:
    // Validates `options`, binds the datagram socket if one is set and
    // starts the sender thread (and "outpost-tele-dg" for the socket).
    // Returns at once; the broker connection is made in the background (see
    // stats().connected). Errors (nothing started): kInvalidArgument for bad
    // options or a path that exists and is not a socket; kBusy when another
    // live process serves the socket path; kIoError when binding fails. A
    // socket file left by a dead process is replaced.
    static Result<std::unique_ptr<TelemetryLane>> start(const TelemetryOptions& options);

    // Stops like stop().
    ~TelemetryLane();
    TelemetryLane(const TelemetryLane&) = delete;
    TelemetryLane& operator=(const TelemetryLane&) = delete;

    // Queues one message for "outpost/<gatewayId>/telemetry/<key>". Never
    // blocks on I/O; thread-safe; holds the ring lock only to move the
    // message in. Returns false when refused: invalid key (dropped_invalid),
    // oversize payload (dropped_oversize), lane stopped (dropped_disconnected). True means queued,
    // not delivered: it may still be coalesced or dropped later, and is counted then.
    bool offer(std::string_view key, std::string_view payload) noexcept;

    // Thread-safe, cheap (a few atomics and one short lock).
    TelemetryStats stats() const;

    // Stops the socket thread (the socket file is removed) and the sender
    // thread, disconnects from the broker and counts what is still in the
    // ring as dropped_disconnected. A connection attempt in progress is not
    // interrupted: stop can take up to endpoint.connect_timeout. Idempotent; offer()
    // returns false afterwards.
    void stop();

  private:
    OUTPOST_LOCAL explicit TelemetryLane(std::unique_ptr<telemetry::LaneImpl> impl);
    std::unique_ptr<telemetry::LaneImpl> impl_;
};

}  // namespace outpost

#endif  // OUTPOST_TELEMETRY_H
