#include "bridge/mqtt/session_group.h"

#include <pthread.h>

#include <string>
#include <utility>

namespace outpost::bridge {

Result<std::unique_ptr<SessionGroup>> SessionGroup::create(
    const BridgeConfig& config, const std::vector<std::string>& retired_ids, Delivery& delivery,
    BridgeStats& stats, const StopSignal& stop) {
    using MakeSession = Result<std::unique_ptr<MqttSession>> (*)(const BridgeConfig&, Delivery&,
                                                                 BridgeStats&, const StopSignal&);
    std::vector<std::pair<std::string, MakeSession>> ids;
    for (int index = 0; index < config.mqtt.sessions; ++index) {
        ids.emplace_back(session_client_id(config.mqtt.endpoint.client_id, index),
                         make_mqtt_session);
    }
    for (const std::string& id : retired_ids) ids.emplace_back(id, make_retired_session);
    std::vector<std::unique_ptr<MqttSession>> sessions;
    for (const auto& [id, make] : ids) {
        BridgeConfig own = config;
        own.mqtt.endpoint.client_id = id;
        auto session = make(own, delivery, stats, stop);
        if (!session.is_ok()) return session.status();
        sessions.push_back(std::move(session).value());
    }
    const auto live = static_cast<std::size_t>(config.mqtt.sessions);
    return std::unique_ptr<SessionGroup>(new SessionGroup(std::move(sessions), live));
}

SessionGroup::~SessionGroup() {
    for (std::thread& thread : threads_) {
        if (thread.joinable()) thread.join();
    }
}

void SessionGroup::start(std::function<void()> on_end) {
    for (std::size_t index = 0; index < sessions_.size(); ++index) {
        threads_.emplace_back([this, index, on_end] {
            const bool retired = index >= live_;
            pthread_setname_np(
                pthread_self(),
                ((retired ? "mqtt-retired-" : "mqtt-session-") + std::to_string(index)).c_str());
            const SessionEnd end = sessions_[index]->run();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                ends_.push_back(end);
                ended_.notify_all();
            }
            // A retired session ending clean has done its work (retired_session.h).
            if (on_end && !(retired && end == SessionEnd::kClean)) on_end();
        });
    }
}

std::optional<SessionEnd> SessionGroup::wait_all(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ended_.wait_until(lock, deadline, [this] { return ends_.size() == sessions_.size(); })) {
        return std::nullopt;
    }
    SessionEnd worst = SessionEnd::kClean;
    for (SessionEnd end : ends_) {
        if (end == SessionEnd::kFatal) return SessionEnd::kFatal;
        if (end == SessionEnd::kHeldUnacknowledged) worst = end;
    }
    return worst;
}

}  // namespace outpost::bridge
