#include "outpost_gateway.h"

#include <stdexcept>

namespace outpost::fleet {

OutpostGateway::OutpostGateway(const OutpostGatewaySettings& settings, Ledger& ledger, int index)
    : ledger_(ledger), index_(index), devices_(settings.devices) {
    StoreOptions options;
    options.gateway_id = settings.gateway_id;
    auto store = Store::open(settings.database, options);
    if (!store) throw std::runtime_error("open " + settings.database + ": " +
                                         store.status().to_string());
    store_ = std::move(store).value();
    admin_ = std::make_unique<StoreAdmin>(*store_);
    PublisherOptions publisher;
    publisher.endpoint.uri = settings.uri;
    publisher.endpoint.client_id = settings.client_id;
    publisher.receipts = true;
    publisher.receipt_timeout = settings.receipt_timeout;
    publisher.jitter_seed = settings.seed;
    auto started = Publisher::start(*store_, publisher);
    if (!started) throw std::runtime_error("publisher of " + settings.gateway_id + ": " +
                                           started.status().to_string());
    publisher_ = std::move(started).value();
}

OutpostGateway::~OutpostGateway() {
    publisher_->stop(std::chrono::seconds(1)).ignore_error("the fleet is over");
    publisher_.reset();
    admin_.reset();
    store_->close().ignore_error("the fleet is over");
}

void OutpostGateway::raise(int count, Steady::time_point now) {
    for (int i = 0; i < count; ++i) {
        Alarm alarm;
        alarm.device_id = "dev-" + std::to_string(raised_++ % devices_);
        alarm.alarm_type = "OVER_TEMPERATURE";
        alarm.severity = Severity::kMajor;
        alarm.value = 97.5;
        alarm.unit = "degC";
        auto recorded = store_->record_alarm(alarm);
        if (!recorded) {
            throw std::runtime_error("record_alarm on " + store_->gateway_id() + ": " +
                                     recorded.status().to_string());
        }
        ledger_.raised(index_, recorded->event_id, now);
        unconfirmed_.push_back(recorded->event_id);
    }
}

void OutpostGateway::poll_connection(Steady::time_point now) {
    const PublisherStatus status = publisher_->status();
    // reconnects counts connects after the first.
    const uint64_t connects = status.reconnects + (status.connected || status.reconnects ? 1 : 0);
    for (; connects_seen_ < connects; ++connects_seen_) ledger_.connected(now);
}

void OutpostGateway::poll_confirmations() {
    std::vector<std::string> still;
    for (const std::string& id : unconfirmed_) {
        auto record = admin_->find_event(id);
        if (!record) {
            still.push_back(id);
            continue;
        }
        if (record->state != EventState::kPending) ledger_.acked(index_, id);
        if (record->confirmed) {
            ledger_.receipted(index_, id);
        } else {
            still.push_back(id);
        }
    }
    unconfirmed_.swap(still);
}

}  // namespace outpost::fleet
