// The connection plumbing every MQTT session of the bridge shares, live or
// retired (the design note and its invariants are at the top of
// mqtt_session.cpp): one paho client, the message callback that runs
// Delivery and parks rather than return without a verdict, the supervisor
// loop that connects with jittered backoff and again after every loss, and
// the bounded DISCONNECT. What a session does once connected is its
// subclass's: a live session subscribes (mqtt_session.cpp), a retired one
// leaves the group, drains and ends (retired_session.cpp). Paho's types
// appear here because those two files, and no other, include this header.
#ifndef OUTPOST_BRIDGE_MQTT_PAHO_SESSION_H
#define OUTPOST_BRIDGE_MQTT_PAHO_SESSION_H

#include <mqtt/async_client.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/callback_time.h"
#include "bridge/mqtt/mqtt_session.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "common/backoff.h"
#include "outpost/status.h"
#include "paho/client_setup.h"

namespace outpost::bridge {

// Paho's receive thread's time in callbacks: ONE per process, because that
// thread is (callback_time.h; invariant 7).
CallbackTime& process_callback_time();

// The wire contract of mqtt_session.cpp as connect settings: a persistent
// session (clean_start=false, Session Expiry Interval) for the fixed client
// id, and the Maximum Packet Size the bridge accepts.
paho::ConnectSettings session_settings(const BridgeConfig& config);

// A session's client for `config` (MQTT v5, no client persistence: the
// broker's session is the queue), not connected. Errors: kInvalidArgument
// when paho refuses the URI or client id.
Result<std::unique_ptr<mqtt::async_client>> make_session_client(const BridgeConfig& config);

// A `Session` (a subclass of PahoSession constructed from these arguments
// and its client) over make_session_client(config); its errors.
template <class Session>
Result<std::unique_ptr<MqttSession>> make_session(const BridgeConfig& config, Delivery& delivery,
                                                  BridgeStats& stats, const StopSignal& stop) {
    auto client = make_session_client(config);
    if (!client.is_ok()) return client.status();
    return std::unique_ptr<MqttSession>(
        new Session(config, delivery, stats, stop, std::move(*client)));
}

class PahoSession : public MqttSession {
  public:
    // Connects, runs the subclass's steps while connected, reconnects after
    // every loss, until `stop` is requested or the callback parks.
    SessionEnd run() final;

  protected:
    // Registers the callbacks on `client` (not connected); `config` is
    // copied, `delivery` and `stop` are borrowed.
    PahoSession(const BridgeConfig& config, Delivery& delivery, const StopSignal& stop,
                std::unique_ptr<mqtt::async_client> client);

    // What the subclass adds. Hooks default to doing nothing; those without
    // a word on their thread run on the run() thread.
    //
    // Whether run() may connect now (it has already checked invariant 8).
    virtual bool may_connect() { return true; }
    // The broker accepted MQTT v5 (`session_present` from its CONNACK;
    // `where` names the broker and client id). An error counts as a failed
    // attempt: run() pauses and connects again.
    virtual Status on_connected(bool session_present, const std::string& where) = 0;
    // Once per pass of run() while connected; a value ends run() with it.
    virtual std::optional<SessionEnd> step() { return std::nullopt; }
    // Paho's receive thread, under mutex_: a message was settled (its
    // callback returns and paho sends the PUBACK).
    virtual void settled() {}
    // Paho's thread, under mutex_: the connection ended.
    virtual void connection_ended() {}
    // A DISCONNECT completed (disconnect_bounded()).
    virtual void disconnected() {}

    // DISCONNECT from a helper thread, waiting at most kDisconnectTimeout
    // (invariant 4). False when it did not finish: the helper stays blocked
    // behind a parked callback and the session must not be destroyed.
    bool disconnect_bounded();

    const BridgeConfig config_;
    const paho::ConnectSettings settings_;
    std::unique_ptr<mqtt::async_client> client_;
    paho::PendingConnect pending_connect_;  // invariant 8; run() thread only

    std::mutex mutex_;
    bool lost_ = false;         // guarded by mutex_
    bool in_callback_ = false;  // guarded by mutex_

  private:
    std::optional<SessionEnd> callback_end();
    // Paho's receive thread. See invariants 1 to 3.
    void on_message(const mqtt::const_message_ptr& message);
    // Never returns: returning would acknowledge the message (invariant 2).
    [[noreturn]] void park(bool fatal);
    void on_connection_lost(const std::string& cause);
    // Invariant 8: no attempt of this client is still queued in paho.
    bool ready_to_connect();
    Status connect();

    Delivery& delivery_;
    const StopSignal& stop_;
    Backoff reconnect_backoff_;  // run() thread only

    std::condition_variable changed_;  // lost_, parked_ or in_callback_ changed
    std::condition_variable never_;    // a parked callback waits here for good
    bool parked_ = false;              // guarded by mutex_
    bool fatal_ = false;               // guarded by mutex_
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_PAHO_SESSION_H
