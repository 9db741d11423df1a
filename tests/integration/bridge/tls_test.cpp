// The whole chain over mutual TLS: a gateway store and its publisher, a
// mosquitto that knows every client by its certificate, the bridge with its
// own client certificate forwarding in batches (the default) and again one
// message per request, RocketMQ checked from outside with mqadmin.
#include "bridge_harness.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "store_fixture.h"
#include "test_pki.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

void alarms_travel_over_mutual_tls(int batch_max_messages) {
    TempDir dir;
    TestPki pki;
    const CertFiles ca = pki.make_ca("outpost-test-ca");
    const CertFiles broker_cert = pki.issue(ca, "127.0.0.1", true);
    const CertFiles gateway_cert = pki.issue(ca, "gw-test", false);
    const CertFiles bridge_cert = pki.issue(ca, "cloud-bridge", false);
    MosquittoConfig broker_config;
    broker_config.allow_anonymous = false;
    broker_config.tls = MosquittoTls{ca.cert, broker_cert.cert, broker_cert.key, true};
    // Each gateway writes only below its own prefix; the bridge reads all.
    broker_config.acl = "pattern write outpost/%u/#\nuser cloud-bridge\ntopic read outpost/#\n";
    Mosquitto broker(broker_config);

    const std::string alarms = "it_bridge_tls_" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = bridge_config(broker.uri(), "bridge-tls-" + run_id(), alarms,
                                          alarms + "_q", dir.file("status.json"));
    config["mqtt"]["tls"] = {
        {"ca_file", ca.cert}, {"cert_file", bridge_cert.cert}, {"key_file", bridge_cert.key}};
    config["batch"] = {{"max_messages", batch_max_messages}};
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    auto store = open_store(dir.file("gw.db"), test_options());
    std::set<std::string> ids;
    for (int i = 0; i < 40; ++i) {
        auto event = store->record_alarm(sample_alarm("pump-" + std::to_string(i % 4)));
        REQUIRE(event.is_ok());
        ids.insert(event->event_id);
    }
    PublisherOptions options;
    options.endpoint.uri = broker.uri();
    options.endpoint.tls.ca_file = ca.cert;
    options.endpoint.tls.cert_file = gateway_cert.cert;
    options.endpoint.tls.key_file = gateway_cert.key;
    options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
    auto publisher = Publisher::start(*store, options);
    REQUIRE(publisher.is_ok());
    {
        const bool forwarded = wait_until([&] { return bridge.counter("forwarded") >= ids.size(); },
                                          std::chrono::seconds(90));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log()
                        << " | broker log: " << one_line(broker.log_tail()));
        REQUIRE(forwarded);
    }
    CHECK(bridge.status()["quarantined"]["total"] == 0);
    if (batch_max_messages > 1) {
        // The batched path (our v5 subscriber) carried them, not paho.
        CHECK(bridge.status()["batched"] == ids.size());
        CHECK(bridge.status()["batches"].get<std::uint64_t>() > 0);
    } else {
        CHECK(bridge.status()["batches"] == 0);
    }
    // Both clients were authenticated by certificate, not by password.
    CHECK(broker.log().find("u'gw-test'") != std::string::npos);
    CHECK(broker.log().find("u'cloud-bridge'") != std::string::npos);
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
    CHECK(missing_keys(stored, ids).empty());
    REQUIRE((*publisher)->stop().is_ok());
}

}  // namespace

TEST_CASE("alarms travel gateway to RocketMQ over mutual TLS, in batches, with certificate identities") {
    alarms_travel_over_mutual_tls(64);
}

TEST_CASE("alarms travel gateway to RocketMQ over mutual TLS one request each (batch.max_messages 1)") {
    alarms_travel_over_mutual_tls(1);
}
