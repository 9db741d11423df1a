// Requests are signed the way RocketMQ's servers check them: HMAC-SHA1 over
// the sorted ext field values (AccessKey included, Signature excluded) and
// the body, base64. A real authenticating broker is the other half of the
// proof (tests/integration/bridge/rocketmq_auth_test.cpp).
#include <catch2/catch.hpp>
#include <string>

#include "rocketmq/frame.h"
#include "rocketmq/request_signer.h"

using outpost::rocketmq::Credentials;
using outpost::rocketmq::hmac_sha1_base64;
using outpost::rocketmq::RemotingCommand;
using outpost::rocketmq::sign_request;

TEST_CASE("the signature primitive matches RocketMQ's published vector") {
    // AclSignerTest upstream: calSignature("RocketMQ", "12345678").
    auto signature = hmac_sha1_base64("12345678", "RocketMQ");
    REQUIRE(signature.is_ok());
    CHECK(*signature == "IUc8rrO/0gDch8CjObLQsW2rsiA=");
}

TEST_CASE("a request is signed over its field values in name order, then its body") {
    RemotingCommand request;
    request.code = 105;
    request.ext_fields["topic"] = "TBW102";
    request.ext_fields["acceptStandardJsonOnly"] = "true";
    request.body = "body";
    REQUIRE(sign_request(request, Credentials{"rocketmq", "12345678"}).is_ok());
    CHECK(request.ext_fields.at("AccessKey") == "rocketmq");
    // Names sort "AccessKey" < "acceptStandardJsonOnly" < "topic" (byte order,
    // as Java's TreeMap<String>): values "rocketmq" "true" "TBW102", then body.
    CHECK(request.ext_fields.at("Signature") ==
          *hmac_sha1_base64("12345678", "rocketmqtrueTBW102body"));
    CHECK(request.ext_fields.at("Signature") == "nA+os3/orTgAeU2p2GkEXHUVGSQ=");
}

TEST_CASE("signing again replaces the old signature and covers changed fields") {
    RemotingCommand request;
    request.ext_fields["topic"] = "a";
    const Credentials credentials{"user", "secret"};
    REQUIRE(sign_request(request, credentials).is_ok());
    const std::string first = request.ext_fields.at("Signature");
    request.ext_fields["topic"] = "b";
    REQUIRE(sign_request(request, credentials).is_ok());
    CHECK(request.ext_fields.at("Signature") != first);
    // The old signature is not part of what the new one covers.
    CHECK(request.ext_fields.at("Signature") == *hmac_sha1_base64("secret", "userb"));
    CHECK(request.ext_fields.size() == 3);
}

TEST_CASE("another secret gives another signature") {
    RemotingCommand one;
    one.ext_fields["topic"] = "t";
    RemotingCommand two = one;
    REQUIRE(sign_request(one, Credentials{"user", "right"}).is_ok());
    REQUIRE(sign_request(two, Credentials{"user", "wrong"}).is_ok());
    CHECK(one.ext_fields.at("Signature") != two.ext_fields.at("Signature"));
}
