// The broker ACL the README documents for receipts: each gateway
// reads only its own receipt topic and cannot write another's, while the
// bridge writes them all; receipts still confirm every alarm through it.
#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// A client logged in as `user`: what a neighbouring gateway could do.
class Neighbour final {
  public:
    Neighbour(const Mosquitto& broker, const std::string& user, const std::string& password)
        : client_(broker.uri(), user + "-nb-" + run_id(), mqtt::create_options(MQTTVERSION_5),
                  nullptr) {
        client_.set_message_callback([this](mqtt::const_message_ptr message) {
            std::lock_guard<std::mutex> lock(mutex_);
            received_.push_back(message->get_topic());
        });
        auto options = mqtt::connect_options_builder()
                           .mqtt_version(MQTTVERSION_5)
                           .clean_start(true)
                           .user_name(user)
                           .password(password)
                           .finalize();
        REQUIRE(client_.connect(options)->wait_for(std::chrono::seconds(10)));
    }
    void subscribe(const std::string& topic) {
        REQUIRE(client_.subscribe(topic, 1)->wait_for(std::chrono::seconds(10)));
    }
    // The PUBACK reason code (0 = accepted).
    int publish(const std::string& topic, const std::string& payload) {
        try {
            auto token = client_.publish(topic, payload.data(), payload.size(), 1, false);
            token->wait_for(std::chrono::seconds(10));
            return token->get_reason_code();
        } catch (const mqtt::exception& error) {
            return error.get_reason_code();
        }
    }
    std::size_t received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_.size();
    }

  private:
    mqtt::async_client client_;
    std::mutex mutex_;
    std::vector<std::string> received_;
};

}  // namespace

TEST_CASE("with the documented ACL a gateway reads only its own receipts and forges none") {
    TempDir dir;
    MosquittoConfig broker_config;
    broker_config.allow_anonymous = false;
    broker_config.users = {{"gw-aa", "pa"}, {"gw-ab", "pb"}, {"bridge", "pc"}};
    broker_config.acl =
        "pattern write outpost/%u/#\n"
        "pattern read outpost/%u/receipt\n"
        "user bridge\n"
        "topic read outpost/#\n"
        "topic write outpost/+/receipt\n";
    Mosquitto broker(broker_config);
    const std::string alarms = "it_receipts_acl_" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = receipts_bridge_config(broker, "bridge-ra-" + run_id(), alarms,
                                                   alarms + "_q", dir.file("status.json"), true);
    config["mqtt"]["username"] = "bridge";
    config["mqtt"]["password"] = "pc";
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    ReceiptGateway a(dir, broker, "gw-aa", 600000, "pa");

    // B listens on A's receipt topic and tries to forge one there.
    Neighbour b(broker, "gw-ab", "pb");
    b.subscribe(a.receipt_topic());
    const std::set<std::string> ids = a.record(20);
    const bool confirmed =
        wait_until([&] { return a.all_confirmed(20); }, std::chrono::seconds(60));
    INFO("a: " << a.describe() << " | bridge: " << bridge.status().dump());
    REQUIRE(confirmed);
    CHECK(b.received() == 0);  // A's receipts went to A alone

    const std::vector<std::string> forged_ids(ids.begin(), ids.end());
    CHECK(b.publish(a.receipt_topic(), nlohmann::json{{"v", 1}, {"eventIds", forged_ids}}.dump()) ==
          0x87);
    CHECK(a.status().receipts_ignored == 0);  // nothing forged ever reached A
    CHECK(b.received() == 0);
}
