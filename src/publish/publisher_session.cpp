// Lease and connection: who may publish, and over which link.
#include "publish/presence.h"
#include "publish/publisher_impl.h"

namespace outpost {
namespace {

// How long the retained status publishes may wait for their PUBACK.
constexpr std::chrono::milliseconds kPresenceTimeout{2000};

}  // namespace

bool publish::PublisherImpl::take_lease(int64_t now) {
    auto locked = lease_.try_acquire();
    if (!locked) {
        live_.last_error = locked.status().to_string();
        return false;
    }
    if (!*locked) return false;  // another publisher is alive: wait (P1)

    // P1: a new epoch, taken while holding the lock, fences every write of
    // any previous holder that might still be finishing.
    auto epoch = store::acquire_epoch(core_, holder_);
    auto reader = epoch ? core_.open_reader() : Result<store::Db>(epoch.status());
    if (!epoch || !reader) {
        live_.last_error = (epoch ? reader.status() : epoch.status()).to_string();
        lease_.release();
        return false;
    }
    publish::LinkSettings settings;
    settings.endpoint = options_.endpoint;
    if (settings.endpoint.client_id.empty()) settings.endpoint.client_id = "outpost-" + gateway_id_;
    // Retained QoS 1 "offline", naming this lease's epoch.
    settings.will = paho::WillSettings{
        publish::status_topic(gateway_id_),
        publish::offline_payload(gateway_id_, clock_.boot_id(), *epoch, false), 1, true};
    auto link = make_link_(settings, inbox_, clock_);
    if (!link) {
        live_.last_error = link.status().to_string();
        lease_.release();
        return false;
    }

    // The marker's thread is the only resource of a lease that can run out
    // here; without it the lease is given up and taken again later.
    try {
        marker_ = std::make_unique<publish::SentMarker>(core_, inbox_, *epoch, options_.mark_batch,
                                                        options_.mark_delay);
    } catch (const std::exception& error) {
        live_.last_error = std::string("cannot start the SENT marker thread: ") + error.what();
        link.value().reset();
        lease_.release();
        return false;
    }
    epoch_ = *epoch;
    reader_ = std::move(*reader);
    link_ = std::move(*link);
    window_.clear();
    ready_.clear();
    forget_receipts();
    cursor_ = 0;
    changed_ = true;
    more_ = true;
    data_version_ = -1;
    connected_ = false;
    connect_failures_in_row_ = 0;
    next_connect_ = now;
    next_poll_ = now;
    next_rescan_ = now + options_.rescan_interval.count();
    next_purge_ = now;
    next_probe_ = now;
    return true;
}

void publish::PublisherImpl::drop_lease(const std::string& why, int64_t now) {
    if (marker_) marker_->finish();
    marker_.reset();
    if (link_ && connected_) {
        link_->disconnect(std::chrono::milliseconds(500))
            .ignore_error("the lease is dropped anyway: the broker sees the socket close");
    }
    link_.reset();  // no paho thread posts after this
    connected_ = false;
    reader_.reset();
    window_.clear();
    ready_.clear();
    forget_receipts();
    lease_.release();
    live_.last_error = why;
    next_lease_try_ = now + options_.lease_retry.count();
}

void publish::PublisherImpl::connect(int64_t now) {
    if (link_->connected()) {
        link_->disconnect(std::chrono::milliseconds(0))
            .ignore_error("replacing a stale connection: only the new connect's result matters");
    }
    auto limits = link_->connect();
    if (!limits) {
        // Connection failures pause everything and count no attempt on rows.
        live_.connect_failures++;
        live_.last_error = limits.status().to_string();
        next_connect_ = now + reconnect_backoff_.delay(++connect_failures_in_row_).count();
        return;
    }
    connected_ = true;
    if (ever_connected_) live_.reconnects++;
    ever_connected_ = true;
    connect_failures_in_row_ = 0;
    // W <= the broker's Receive Maximum, or paho queues the excess (and
    // fails with -12 once its buffer is full).
    window_.set_capacity(std::max(1, std::min(options_.max_in_flight, limits->receive_maximum)));
    max_packet_bytes_ = limits->maximum_packet_size;

    Status online = link_->publish_retained(
        publish::status_topic(gateway_id_),
        publish::online_payload(gateway_id_, clock_.boot_id(), epoch_), kPresenceTimeout);
    if (!online) {
        live_.last_error = online.to_string();
        if (online.code() == StatusCode::kUnavailable) connection_lost(online.message(), now);
    }
    subscribe_receipts(now);  // clean start: every connect subscribes again
}

void publish::PublisherImpl::connection_lost(const std::string& cause, int64_t now) {
    if (!connected_) return;  // paho may report one loss twice (lost + DISCONNECT)
    connected_ = false;
    live_.last_error = cause;
    // P3: whatever was in flight has no verdict; it is simply pending again,
    // in id order, once the connection is back.
    rewind_to(window_.abandon_flights(now));
    abandon_republishes(now);
    connect_failures_in_row_ = 1;
    next_connect_ = now + reconnect_backoff_.delay(connect_failures_in_row_).count();
}

void publish::PublisherImpl::say_goodbye(std::chrono::milliseconds timeout) {
    if (!connected_) return;
    // A clean DISCONNECT makes the broker drop the will: say "offline" first.
    link_
        ->publish_retained(publish::status_topic(gateway_id_),
                           publish::offline_payload(gateway_id_, clock_.boot_id(), epoch_, true),
                           std::min(timeout, kPresenceTimeout))
        .ignore_error("best effort at shutdown: if lost, the retained status says online");
    link_->disconnect(timeout).ignore_error(
        "stopping: the broker sees the socket close either way");
    connected_ = false;
}

}  // namespace outpost
