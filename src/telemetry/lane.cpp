// TelemetryLane: options checks, offer(), stats() and the orderly stop.
// The sender loop is in sender_loop.cpp.
#include <exception>
#include <utility>

#include "common/api_guard.h"
#include "common/text_checks.h"
#include "paho/endpoint_check.h"
#include "telemetry/datagram.h"
#include "telemetry/lane_impl.h"

namespace outpost {
namespace {

constexpr size_t kMaxPayloadLimit = 1u << 20;

Status check_options(const TelemetryOptions& options) {
    auto invalid = [](const std::string& text) {
        return Status::error(StatusCode::kInvalidArgument, "telemetry options: " + text);
    };
    if (!is_valid_identifier(options.gateway_id)) {
        return invalid("gateway_id must be 1-64 of [A-Za-z0-9._-], got '" + options.gateway_id +
                       "'");
    }
    const std::string endpoint_problem = paho::endpoint_problem(options.endpoint);
    if (!endpoint_problem.empty()) return invalid(endpoint_problem);
    if (options.ring_capacity < 1) return invalid("ring_capacity must be at least 1");
    if (options.max_payload_bytes < 1 || options.max_payload_bytes > kMaxPayloadLimit) {
        return invalid("max_payload_bytes must be 1-" + std::to_string(kMaxPayloadLimit));
    }
    return Status::ok();
}

}  // namespace

telemetry::LaneImpl::LaneImpl(const TelemetryOptions& options)
    : options_(options),
      topic_prefix_("outpost/" + options.gateway_id + "/telemetry/"),
      ring_(options.ring_capacity, options.coalesce) {}

telemetry::LaneImpl::~LaneImpl() {
    stop();
}

Status telemetry::LaneImpl::open() {
    MqttEndpoint endpoint = options_.endpoint;
    if (endpoint.client_id.empty())
        endpoint.client_id = "outpost-" + options_.gateway_id + "-telemetry";
    auto sender = telemetry::make_mqtt_sender(
        endpoint, [this](const std::string& cause) { on_connection_lost(cause); });
    if (!sender) return sender.status();
    sender_ = std::move(*sender);
    if (!options_.datagram_socket.empty()) {
        // Room for the longest valid datagram plus one byte to see overruns.
        auto socket = telemetry::DatagramSocket::bind(
            options_.datagram_socket, kMaxTelemetryKeyBytes + 1 + options_.max_payload_bytes + 1);
        if (!socket) return socket.status();
        socket_ = std::move(*socket);
    }
    return Status::ok();
}

void telemetry::LaneImpl::run() {
    sender_thread_ = std::thread([this] { sender_loop(); });
    if (socket_) {
        socket_->run(
            [this](std::string_view bytes, bool truncated) { offer_datagram(bytes, truncated); },
            [] { lower_thread_priority(); });
    }
}

bool telemetry::LaneImpl::offer(std::string_view key, std::string_view payload) noexcept {
    offered_.fetch_add(1, std::memory_order_relaxed);
    if (!accepting_.load(std::memory_order_acquire)) {
        dropped_disconnected_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    if (!is_valid_telemetry_key(key)) {
        dropped_invalid_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    if (payload.size() > options_.max_payload_bytes) {
        dropped_oversize_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    try {
        // Copies are made before the lock, so the hold is a move and a map update.
        telemetry::TelemetryMessage message{std::string(key), std::string(payload)};
        telemetry::PushEffect effect;
        {
            std::lock_guard<std::mutex> lock(ring_mutex_);
            effect = ring_.push(std::move(message));
        }
        if (effect == telemetry::PushEffect::kCoalesced) {
            coalesced_.fetch_add(1, std::memory_order_relaxed);
        } else if (effect == telemetry::PushEffect::kDroppedOldest) {
            dropped_ring_full_.fetch_add(1, std::memory_order_relaxed);
        }
        ring_changed_.notify_one();
        return true;
    } catch (const std::exception&) {
        // Out of memory: telemetry gives way, the process goes on.
        dropped_ring_full_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
}

void telemetry::LaneImpl::offer_datagram(std::string_view bytes, bool truncated) noexcept {
    datagrams_.fetch_add(1, std::memory_order_relaxed);
    if (truncated) {
        offered_.fetch_add(1, std::memory_order_relaxed);
        dropped_oversize_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    const auto parts = telemetry::split_datagram(bytes);
    if (!parts) {
        offered_.fetch_add(1, std::memory_order_relaxed);
        dropped_invalid_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    offer(parts->key, parts->payload);
}

TelemetryStats telemetry::LaneImpl::stats() const {
    TelemetryStats stats;
    stats.offered = offered_.load(std::memory_order_relaxed);
    stats.published = published_.load(std::memory_order_relaxed);
    stats.coalesced = coalesced_.load(std::memory_order_relaxed);
    stats.dropped_ring_full = dropped_ring_full_.load(std::memory_order_relaxed);
    stats.dropped_oversize = dropped_oversize_.load(std::memory_order_relaxed);
    stats.dropped_invalid = dropped_invalid_.load(std::memory_order_relaxed);
    stats.dropped_disconnected = dropped_disconnected_.load(std::memory_order_relaxed);
    stats.datagrams = datagrams_.load(std::memory_order_relaxed);
    stats.connected = connected_.load(std::memory_order_relaxed);
    stats.reconnects = reconnects_.load(std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        stats.ring_depth = ring_.size();
    }
    std::lock_guard<std::mutex> lock(error_mutex_);
    stats.last_error = last_error_;
    return stats;
}

void telemetry::LaneImpl::stop() {
    std::lock_guard<std::mutex> serial(stop_mutex_);
    if (socket_) socket_->stop();  // no more datagram offers
    accepting_.store(false, std::memory_order_release);
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        stopping_ = true;
    }
    ring_changed_.notify_all();
    if (sender_thread_.joinable()) sender_thread_.join();
    if (sender_) sender_->disconnect(std::chrono::milliseconds(1000));
    connected_.store(false, std::memory_order_relaxed);
    size_t unsent = 0;
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        unsent = ring_.clear();
    }
    dropped_disconnected_.fetch_add(unsent, std::memory_order_relaxed);
}

void telemetry::LaneImpl::on_connection_lost(const std::string& cause) {
    set_error(cause);
    connected_.store(false, std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        connection_lost_ = true;
    }
    ring_changed_.notify_all();
}

void telemetry::LaneImpl::set_error(std::string error) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_error_ = std::move(error);
}

Result<std::unique_ptr<TelemetryLane>> TelemetryLane::start(const TelemetryOptions& options) {
    return guard_api("TelemetryLane::start", [&]() -> Result<std::unique_ptr<TelemetryLane>> {
        Status valid = check_options(options);
        if (!valid) return valid;
        auto impl = std::make_unique<telemetry::LaneImpl>(options);
        Status opened = impl->open();
        if (!opened) return opened;
        impl->run();
        return std::unique_ptr<TelemetryLane>(new TelemetryLane(std::move(impl)));
    });
}

TelemetryLane::TelemetryLane(std::unique_ptr<telemetry::LaneImpl> impl) : impl_(std::move(impl)) {}

TelemetryLane::~TelemetryLane() = default;

bool TelemetryLane::offer(std::string_view key, std::string_view payload) noexcept {
    return impl_->offer(key, payload);
}

TelemetryStats TelemetryLane::stats() const {
    return impl_->stats();
}

void TelemetryLane::stop() {
    impl_->stop();
}

}  // namespace outpost
