#include "ingest/request_handler.h"

#include <exception>
#include <variant>

#include "common/strict_json.h"
#include "common/text_checks.h"
#include "ingest/protocol.h"
#include "ingest/status_document.h"

namespace outpost::ingest {

namespace {

HandledRequest refused(const char* code, const std::string& message) {
    return {error_answer(code, message), false};
}

bool only_fields(const nlohmann::json& request, std::initializer_list<const char*> allowed,
                 std::string& unknown) {
    for (const auto& item : request.items()) {
        bool known = false;
        for (const char* name : allowed) known = known || item.key() == name;
        if (!known) {
            unknown = item.key();
            return false;
        }
    }
    return true;
}

}  // namespace

HandledRequest RequestHandler::handle(const std::string& line) const {
    if (line.empty() || line == "\r") {
        return refused(kInvalidRequest, "empty line: send one JSON object per line");
    }
    // Checked before parsing so the answer can say exactly what is wrong.
    if (!is_valid_utf8(line)) return refused(kInvalidUtf8, "the request is not valid UTF-8");
    constexpr int kMaxDepth = 16;
    // Strict: a key given twice ({"deviceId":"a","deviceId":"b"}) is refused
    // rather than read as the last one, and so is a byte-order mark.
    auto parsed = parse_strict_json(line, kMaxDepth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&parsed)) {
        if (refusal->kind == JsonRefusal::Kind::kTooDeep) {
            return refused(kInvalidRequest, "JSON nested deeper than " + std::to_string(kMaxDepth) +
                                                " levels; requests nest 2");
        }
        return refused(kInvalidJson, "not one JSON object: the line " + refusal->detail);
    }
    const nlohmann::json& request = std::get<nlohmann::json>(parsed);
    try {
        return dispatch(request);
    } catch (const std::exception& error) {
        return refused(kInternal, std::string("while handling the request: ") + error.what());
    }
}

HandledRequest RequestHandler::dispatch(const nlohmann::json& request) const {
    if (!request.is_object()) return refused(kInvalidRequest, "the request must be a JSON object");
    auto op = request.find("op");
    if (op == request.end() || !op->is_string()) {
        return refused(kInvalidRequest, "the request needs \"op\" (a string)");
    }
    const std::string name = op->get<std::string>();
    std::string unknown;
    if (name == "raise_alarm") {
        if (!only_fields(request, {"op", "alarm"}, unknown)) {
            return refused(kInvalidRequest, "unknown field \"" + unknown + "\" in raise_alarm");
        }
        return raise_alarm(request);
    }
    if (name == "status" || name == "ping") {
        if (!only_fields(request, {"op"}, unknown)) {
            return refused(kInvalidRequest, "unknown field \"" + unknown + "\" in " + name);
        }
        if (name == "ping") return {{{"ok", true}}, false};
        return {{{"ok", true}, {"status", status_answer()}}, false};
    }
    return refused(kUnknownOp, "unknown op \"" + name + "\" (ops: raise_alarm, status, ping)");
}

HandledRequest RequestHandler::raise_alarm(const nlohmann::json& request) const {
    auto object = request.find("alarm");
    if (object == request.end()) return refused(kInvalidRequest, "raise_alarm needs \"alarm\"");
    WireError error;
    auto alarm = alarm_from_json(*object, error);
    if (!alarm) return refused(error.code.c_str(), error.message);
    auto recorded = store_.record_alarm(*alarm);
    // Answered only now: record_alarm returns after the commit is durable.
    if (!recorded) return {error_answer(recorded.status()), false};
    return {recorded_answer(*recorded), true};
}

nlohmann::json RequestHandler::status_answer() const {
    if (status_) return status_();
    nlohmann::json document = {{"ingest", ingest_stats_json(ingest_stats_())}};
    auto stats = store_.stats();
    document["store"] =
        stats ? store_stats_json(*stats) : nlohmann::json{{"error", stats.status().to_string()}};
    return document;
}

}  // namespace outpost::ingest
