// One request line of the alarm ingestion socket (firmware_glue/
// ingest-protocol.md) handled as outpostd handles it: the request handler
// over a real store (in a temporary directory, on tmpfs when /dev/shm
// exists). Properties: every line gets exactly one answer, a JSON object
// with a boolean "ok"; a refusal carries a non-empty code and message; the
// answer line is valid UTF-8 with no newline before its end; an answer
// saying ok to raise_alarm names a UUIDv7 eventId and a positive seq for
// the device the request named (or, when answered as a duplicate, the
// request carried an idempotency key).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/text_checks.h"
#include "fuzz_check.h"
#include "ingest/protocol.h"
#include "ingest/request_handler.h"
#include "outpost/store.h"

namespace {

std::string store_directory;

void remove_store_directory() {
    std::filesystem::remove_all(store_directory);
}

std::unique_ptr<outpost::Store> open_store() {
    std::string pattern = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    pattern += "/outpost-fuzz-ingest.XXXXXX";
    FUZZ_CHECK(mkdtemp(pattern.data()) != nullptr, "a temporary directory for the store");
    // Registered before the store exists, so it runs after the store closed.
    store_directory = pattern;
    std::atexit(remove_store_directory);
    outpost::StoreOptions options;
    options.gateway_id = "fuzz-gw";
    auto store = outpost::Store::open(pattern + "/store.db", options);
    FUZZ_CHECK(store.is_ok(), "the fuzz store opens");
    return std::move(store).value();
}

outpost::ingest::RequestHandler& handler() {
    static std::unique_ptr<outpost::Store> store = open_store();
    static outpost::ingest::RequestHandler instance(*store, {},
                                                    [] { return outpost::ingest::ServerStats{}; });
    return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string line(reinterpret_cast<const char*>(data), size);
    if (line.find('\n') != std::string::npos) return 0;  // the reader splits lines first
    const outpost::ingest::HandledRequest handled = handler().handle(line);
    const nlohmann::json& answer = handled.answer;
    FUZZ_CHECK(answer.is_object(), "the answer is a JSON object");
    FUZZ_CHECK(answer.contains("ok") && answer["ok"].is_boolean(), "the answer says ok or not");
    const std::string text = outpost::ingest::to_line(answer);
    FUZZ_CHECK(!text.empty() && text.back() == '\n' && text.find('\n') == text.size() - 1,
               "the answer is one line");
    FUZZ_CHECK(outpost::is_valid_utf8(text), "the answer line is UTF-8");
    if (!answer["ok"].get<bool>()) {
        FUZZ_CHECK(!handled.alarm_recorded, "a refusal records nothing");
        const nlohmann::json& error = answer["error"];
        FUZZ_CHECK(error.is_object() && error["code"].is_string() &&
                       !error["code"].get<std::string>().empty() && error["message"].is_string() &&
                       !error["message"].get<std::string>().empty(),
                   "a refusal carries a code and a message");
        return 0;
    }
    if (!handled.alarm_recorded) return 0;  // ping, status
    const nlohmann::json request = nlohmann::json::parse(line);
    FUZZ_CHECK(outpost::is_lowercase_uuid_v7(answer["eventId"].get<std::string>()),
               "a recorded alarm's eventId is a UUIDv7");
    FUZZ_CHECK(answer["seq"].get<std::int64_t>() >= 1, "a recorded alarm's seq is positive");
    if (answer["duplicate"].get<bool>()) {
        // The key's first record answers (outpost/alarm.h), whatever this one says.
        FUZZ_CHECK(request["alarm"].contains("idempotencyKey"),
                   "only a request with an idempotency key is answered as a duplicate");
    } else {
        FUZZ_CHECK(answer["deviceId"] == request["alarm"]["deviceId"],
                   "a new alarm belongs to the device the request named");
    }
    return 0;
}
