#include "raw_gateway.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <variant>

#include "common/receipt_contract.h"
#include "common/uuid.h"
#include "outpost/alarm.h"
#include "paho/client_setup.h"
#include "store/envelope.h"

namespace outpost::fleet {
namespace {

int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// One boot of this process, as the envelope's bootId.
const std::string& boot_id() {
    static const std::string id = make_uuid_v7(wall_ms());
    return id;
}

}  // namespace

RawGateway::RawGateway(RawGatewaySettings settings, Ledger& ledger, int index)
    : settings_(std::move(settings)),
      ledger_(ledger),
      index_(index),
      backoff_(Backoff::jittered(settings_.reconnect_initial, settings_.reconnect_max,
                                 seeded_random(settings_.seed))),
      receipt_backoff_(Backoff::jittered(settings_.receipt_timeout, settings_.receipt_timeout_max,
                                         seeded_random(settings_.seed + 1))) {
    paho::ConnectSettings connect;
    connect.endpoint.uri = settings_.uri;
    connect.endpoint.client_id = settings_.client_id;
    auto client = paho::make_client(connect, "fleet gateway " + settings_.gateway_id);
    if (!client.is_ok()) throw std::runtime_error(client.status().to_string());
    client_ = std::move(client).value();
    // Handlers before the first connect: paho deadlocks if they change while it calls them.
    paho::on_connection_end(*client_, [this](const std::string&) { connection_ended_ = true; });
    client_->set_message_callback([this](mqtt::const_message_ptr message) {
        std::lock_guard<std::mutex> lock(receipts_mutex_);
        receipts_.push_back(message->to_string());
    });
}

RawGateway::~RawGateway() {
    try {
        if (client_->is_connected()) client_->disconnect()->wait_for(std::chrono::seconds(1));
    } catch (const mqtt::exception&) {
        // Already gone: nothing to close.
    }
    client_.reset();  // no callback may run once the members below are gone
}

void RawGateway::raise(int count, Steady::time_point now) {
    for (int i = 0; i < count; ++i) {
        outpost::Alarm alarm;
        alarm.device_id = "dev-" + std::to_string(raised_++ % settings_.devices);
        alarm.alarm_type = "OVER_TEMPERATURE";
        alarm.severity = Severity::kMajor;
        alarm.value = 97.5;
        alarm.unit = "degC";
        store::EnvelopeContext context;
        context.event_id = make_uuid_v7(wall_ms());
        context.gateway_id = settings_.gateway_id;
        context.seq = ++seq_[alarm.device_id];
        context.wall_ms = wall_ms();
        context.boot_id = boot_id();
        context.uptime_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
        Alarm entry;
        entry.topic = "outpost/" + settings_.gateway_id + "/alarm/" + alarm.device_id;
        entry.payload = store::alarm_envelope(alarm, context);
        ledger_.raised(index_, context.event_id, now);
        alarms_.emplace(context.event_id, std::move(entry));
        to_publish_.push_back(context.event_id);
    }
}

void RawGateway::apply_receipts() {
    std::vector<std::string> payloads;
    {
        std::lock_guard<std::mutex> lock(receipts_mutex_);
        payloads.swap(receipts_);
    }
    for (const std::string& payload : payloads) {
        auto parsed = receipt::parse(payload);
        const auto* receipt = std::get_if<receipt::Receipt>(&parsed);
        if (receipt == nullptr) continue;
        for (const std::string& id : receipt->event_ids) {
            if (alarms_.erase(id) > 0) ledger_.receipted(index_, id);
        }
    }
}

void RawGateway::start_connect(Steady::time_point now) {
    auto options = mqtt::connect_options_builder()
                       .mqtt_version(MQTTVERSION_5)  // before clean_start: it picks the field
                       .clean_start(true)
                       .keep_alive_interval(settings_.keepalive)
                       .connect_timeout(std::chrono::seconds(10))
                       .finalize();
    try {
        connect_token_ = client_->connect(options);
    } catch (const mqtt::exception&) {
        connect_token_.reset();
        next_connect_ = now + backoff_.delay(++failures_);
    }
}

// An established connection ended: what was in flight goes out again
// after the reconnect (its PUBACK, if any, is lost with the connection).
void RawGateway::lost(Steady::time_point now) {
    if (!connected_) return;
    connected_ = false;
    next_connect_ = now + backoff_.delay(++failures_);
    for (auto id = in_flight_.rbegin(); id != in_flight_.rend(); ++id) {
        auto found = alarms_.find(*id);
        if (found == alarms_.end()) continue;
        found->second.token.reset();
        found->second.again = Alarm::Again::kUnacked;
        to_publish_.push_front(*id);
    }
    in_flight_.clear();
}

void RawGateway::step(Steady::time_point now) {
    apply_receipts();
    if (connection_ended_.exchange(false)) lost(now);
    if (!connected_) {
        if (connect_token_) {
            if (!connect_token_->is_complete()) return;
            const bool ok = connect_token_->get_return_code() == 0 && client_->is_connected();
            connect_token_.reset();
            if (!ok) {
                next_connect_ = now + backoff_.delay(++failures_);
                return;
            }
            connected_ = true;
            failures_ = 0;
            ledger_.connected(now);
            try {
                // Before any publish: the broker handles SUBSCRIBE first, so
                // no receipt for this connection's publishes can be missed.
                client_->subscribe("outpost/" + settings_.gateway_id + "/" +
                                       receipt::kTopicLevel,
                                   1);
            } catch (const mqtt::exception&) {
                lost(now);
                return;
            }
        } else {
            if (now >= next_connect_) start_connect(now);
            return;
        }
    }
    reap_and_publish(now);
}

void RawGateway::reap_and_publish(Steady::time_point now) {
    // PUBACKs (a success reason below 0x80) and failures.
    std::vector<std::string> still;
    for (const std::string& id : in_flight_) {
        auto found = alarms_.find(id);
        if (found == alarms_.end()) continue;  // receipted meanwhile
        Alarm& alarm = found->second;
        if (!alarm.token->is_complete()) {
            still.push_back(id);
            continue;
        }
        const bool ok =
            alarm.token->get_return_code() == 0 && alarm.token->get_reason_code() < 0x80;
        alarm.token.reset();
        if (ok) {
            alarm.acked = true;
            ledger_.acked(index_, id);
            alarm.receipt_due = now + receipt_backoff_.delay(alarm.receipt_waits + 1);
        } else {
            alarm.again = Alarm::Again::kUnacked;
            to_publish_.push_back(id);
        }
    }
    in_flight_.swap(still);
    // No receipt in time: published again, same eventId.
    for (auto& [id, alarm] : alarms_) {
        if (alarm.acked && !alarm.token && now >= alarm.receipt_due) {
            alarm.acked = false;
            ++alarm.receipt_waits;
            alarm.again = Alarm::Again::kUnreceipted;
            to_publish_.push_back(id);
        }
    }
    while (static_cast<int>(in_flight_.size()) < settings_.max_in_flight &&
           !to_publish_.empty()) {
        const std::string id = to_publish_.front();
        auto found = alarms_.find(id);
        if (found == alarms_.end() || found->second.token) {
            to_publish_.pop_front();
            continue;
        }
        try {
            found->second.token =
                client_->publish(found->second.topic, found->second.payload.data(),
                                 found->second.payload.size(), 1, false);
        } catch (const mqtt::exception&) {
            return;  // not connected after all: the loss arrives next
        }
        to_publish_.pop_front();
        in_flight_.push_back(id);
        ledger_.published();
        if (found->second.again != Alarm::Again::kNo) {
            ledger_.republished(found->second.again == Alarm::Again::kUnreceipted);
            found->second.again = Alarm::Again::kNo;
        }
    }
}

}  // namespace outpost::fleet
