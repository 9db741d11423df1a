// The metrics a scraper reads and the status outpostctl renders, from a
// snapshot with known figures.
#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "daemon/prometheus.h"
#include "daemon/snapshot.h"
#include "status_fields.h"

using outpost::daemon::DaemonSnapshot;

namespace {

DaemonSnapshot busy_snapshot() {
    DaemonSnapshot snapshot;
    snapshot.gateway_id = "gw-unit";
    snapshot.uptime_ms = 5500;
    outpost::StoreStats store;
    store.pending = 7;
    store.dead = 2;
    store.database_bytes = 40960;
    store.events_recorded = 120;
    snapshot.store = store;
    snapshot.publisher.connected = true;
    snapshot.publisher.lease_held = true;
    snapshot.publisher.lease_epoch = 3;
    snapshot.publisher.in_flight = 4;
    snapshot.publisher.sent = 111;
    snapshot.publisher.oldest_pending_age_ms = 1500;
    snapshot.publisher.commit_to_ack_p99_us = 42'700;  // shown in whole milliseconds
    snapshot.publisher.commit_to_ack_p50_us = -1;      // no sample: left out
    outpost::TelemetryStats telemetry;
    telemetry.offered = 900;
    telemetry.published = 850;
    telemetry.dropped_ring_full = 30;
    telemetry.dropped_invalid = 20;
    snapshot.telemetry = telemetry;
    outpost::ingest::ServerStats ingest;
    ingest.requests = 125;
    ingest.alarms_recorded = 120;
    ingest.errors = 5;
    snapshot.ingest = ingest;
    return snapshot;
}

// sample name (with labels) -> value text
std::map<std::string, std::string> samples_of(const std::string& text) {
    std::map<std::string, std::string> samples;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.rfind(' ');
        samples[line.substr(0, space)] = line.substr(space + 1);
    }
    return samples;
}

}  // namespace

TEST_CASE("every metric sample follows its HELP and TYPE lines and a valid name", "[daemon]") {
    const std::string text = outpost::daemon::render_prometheus(busy_snapshot());
    const std::regex name_rule("[a-zA-Z_:][a-zA-Z0-9_:]*");
    std::set<std::string> helped;
    std::map<std::string, std::string> types;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        INFO(line);
        std::string word;
        std::stringstream parts(line);
        if (line.rfind("# HELP ", 0) == 0) {
            parts >> word >> word >> word;
            helped.insert(word);
        } else if (line.rfind("# TYPE ", 0) == 0) {
            std::string type;
            parts >> word >> word >> word >> type;
            types[word] = type;
            CHECK((type == "gauge" || type == "counter"));
            if (type == "counter") CHECK(word.size() > 6);
            if (type == "counter") CHECK(word.compare(word.size() - 6, 6, "_total") == 0);
        } else {
            const std::string name = line.substr(0, line.find_first_of("{ "));
            CHECK(std::regex_match(name, name_rule));
            CHECK(name.rfind("outpost_", 0) == 0);
            CHECK(helped.count(name) == 1);
            CHECK(types.count(name) == 1);
        }
    }
}

TEST_CASE("the metrics carry the snapshot's figures", "[daemon]") {
    const auto samples = samples_of(outpost::daemon::render_prometheus(busy_snapshot()));
    CHECK(samples.at("outpost_backlog") == "7");
    CHECK(samples.at("outpost_dead") == "2");
    CHECK(samples.at("outpost_in_flight") == "4");
    CHECK(samples.at("outpost_events_sent_total") == "111");
    CHECK(samples.at("outpost_lease_epoch") == "3");
    CHECK(samples.at("outpost_broker_connected") == "1");
    CHECK(samples.at("outpost_oldest_pending_age_seconds") == "1.500");
    CHECK(samples.at("outpost_commit_to_ack_p99_seconds") == "0.042");
    CHECK(samples.count("outpost_commit_to_ack_p50_seconds") == 0);
    CHECK(samples.at("outpost_telemetry_dropped_total{reason=\"ring_full\"}") == "30");
    CHECK(samples.at("outpost_telemetry_dropped_total{reason=\"invalid\"}") == "20");
    CHECK(samples.at("outpost_ingest_errors_total") == "5");
    CHECK(samples.at("outpost_store_bytes") == "40960");
}

TEST_CASE("parts that are off leave their metrics out", "[daemon]") {
    DaemonSnapshot snapshot = busy_snapshot();
    snapshot.telemetry.reset();
    snapshot.ingest.reset();
    snapshot.store.reset();
    const auto samples = samples_of(outpost::daemon::render_prometheus(snapshot));
    CHECK(samples.count("outpost_telemetry_offered_total") == 0);
    CHECK(samples.count("outpost_ingest_requests_total") == 0);
    CHECK(samples.count("outpost_backlog") == 0);
    CHECK(samples.at("outpost_store_readable") == "0");
    CHECK(samples.at("outpost_events_sent_total") == "111");
}

TEST_CASE("the status document holds what an operator asks first", "[daemon]") {
    const nlohmann::json status = outpost::daemon::status_json(busy_snapshot());
    CHECK(status["backlog"] == 7);
    CHECK(status["oldest_pending_age_ms"] == 1500);
    CHECK(status["in_flight"] == 4);
    CHECK(status["dead"] == 2);
    CHECK(status["connected"] == true);
    CHECK(status["lease"]["epoch"] == 3);
    CHECK(status["lease"]["held"] == true);
    CHECK(status["telemetry"]["dropped"]["ring_full"] == 30);
    CHECK(status["ingest"]["alarms_recorded"] == 120);
    CHECK(outpost::testing::keys_of(status["store"]) == outpost::testing::store_status_fields());
    CHECK(status["store"]["pending"] == 7);
    CHECK(status["store"]["database_bytes"] == 40960);
    CHECK(status["store"]["events_recorded"] == 120);
    CHECK(outpost::daemon::status_line(busy_snapshot()) ==
          "connected, backlog 7, in flight 4, sent 111, dead 2, telemetry 850 sent/50 dropped");
}
