// The publisher over mutual TLS against a real mosquitto: the broker knows
// the gateway by its certificate (CN = gatewayId, used as the user name) and
// its ACL lets each gateway write only under its own prefix.
#include <catch2/catch.hpp>

#include "publish_harness.h"
#include "test_pki.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// One gateway may write only below outpost/<its CN>/; "observer" reads all.
constexpr const char* kAcl =
    "pattern write outpost/%u/#\n"
    "user observer\n"
    "topic read outpost/#\n";

struct TlsBench {
    TestPki pki;
    CertFiles ca = pki.make_ca("outpost-test-ca");
    CertFiles broker_cert = pki.issue(ca, "127.0.0.1", true);
    CertFiles gateway = pki.issue(ca, "gw-test", false);
    CertFiles observer = pki.issue(ca, "observer", false);

    MosquittoConfig broker_config() const {
        MosquittoConfig config;
        config.allow_anonymous = false;
        config.tls = MosquittoTls{ca.cert, broker_cert.cert, broker_cert.key, true};
        config.acl = kAcl;
        return config;
    }

    std::vector<std::string> observer_args() const {
        return {"--cafile", ca.cert, "--cert", observer.cert, "--key", observer.key};
    }

    PublisherOptions publisher_options(const Mosquitto& broker, const std::string& trust) const {
        PublisherOptions options = test_publisher_options(broker);
        options.endpoint.tls.ca_file = trust;
        options.endpoint.tls.cert_file = gateway.cert;
        options.endpoint.tls.key_file = gateway.key;
        return options;
    }
};

}  // namespace

TEST_CASE("over mutual TLS the gateway's certificate is its identity and every alarm arrives") {
    TlsBench bench;
    Mosquitto broker(bench.broker_config());
    REQUIRE(broker.uri().rfind("ssl://", 0) == 0);
    Subscriber subscriber(broker, "observer", false, "", "", bench.observer_args());
    TempDir dir;
    auto store = open_store(dir.file("d.db"), test_options());
    auto recorded = record_alarms(*store, 60, 3, 1);

    auto publisher = Publisher::start(*store, bench.publisher_options(broker, bench.ca.cert));
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return outbox_view(dir.file("d.db")).sent == 60; }));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 60; }));
    const auto counts = subscriber.event_counts();
    for (const auto& event : recorded) CHECK(counts.count(event.event_id) == 1);
    // The broker authenticated the gateway by its certificate, not a password.
    CHECK(broker.log().find("u'gw-test'") != std::string::npos);
    CHECK((*publisher)->status().dead == 0);
    REQUIRE_OK((*publisher)->stop());
}

TEST_CASE("a broker certificate from an unknown CA is refused and costs no alarm an attempt") {
    TlsBench bench;
    const CertFiles stranger = bench.pki.make_ca("some-other-ca");
    Mosquitto broker(bench.broker_config());
    TempDir dir;
    auto store = open_store(dir.file("d.db"), test_options());
    record_alarms(*store, 20, 2, 1);

    // The publisher trusts only a CA that did not sign the broker.
    auto publisher = Publisher::start(*store, bench.publisher_options(broker, stranger.cert));
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return (*publisher)->status().connect_failures >= 3; }));
    const PublisherStatus status = (*publisher)->status();
    CHECK_FALSE(status.connected);
    CHECK(status.published == 0);
    CHECK_FALSE(status.last_error.empty());
    const OutboxView view = outbox_view(dir.file("d.db"));
    CHECK(view.pending == 20);
    CHECK(view.dead == 0);
    CHECK(view.max_attempts == 0);
    REQUIRE_OK((*publisher)->stop());
}

TEST_CASE("a gateway certificate cannot publish under another gateway's prefix") {
    TlsBench bench;
    // Signed by the right CA, but for another gateway: the ACL pattern
    // (%u = CN) refuses gw-test's topics, the row ends DEAD with the reason.
    const CertFiles other = bench.pki.issue(bench.ca, "gw-other", false);
    Mosquitto broker(bench.broker_config());
    TempDir dir;
    auto store = open_store(dir.file("d.db"), test_options());
    record_alarms(*store, 1, 1, 1);

    PublisherOptions options = bench.publisher_options(broker, bench.ca.cert);
    options.endpoint.tls.cert_file = other.cert;
    options.endpoint.tls.key_file = other.key;
    options.max_attempts = 2;
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return outbox_view(dir.file("d.db")).dead == 1; }));
    const PublisherStatus status = (*publisher)->status();
    CHECK(status.connected);
    CHECK(status.sent == 0);
    REQUIRE_OK((*publisher)->stop());
}
