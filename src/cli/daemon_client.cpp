#include "cli/daemon_client.h"

#include <chrono>

#include "cli/exit_codes.h"
#include "ingest/client.h"
#include "ingest/ingest_server.h"

namespace outpost::cli {

namespace {

// A raise waits for a durable commit, which a busy SD card can stretch;
// this only bounds a daemon that hangs.
constexpr std::chrono::milliseconds kAnswerTimeout{60000};

constexpr char kRetryHint[] =
    " The alarm may or may not be recorded: retry with the same --key (always safe).";

// answer.error.<field> when it is a string, else `fallback`.
std::string text_at(const nlohmann::json& answer, const char* field, const char* fallback) {
    auto error = answer.find("error");
    if (error == answer.end() || !error->is_object()) return fallback;
    auto value = error->find(field);
    return value != error->end() && value->is_string() ? value->get<std::string>() : fallback;
}

}  // namespace

std::optional<nlohmann::json> ask_daemon(Context& context, const nlohmann::json& request,
                                         const std::string& what, bool may_have_written,
                                         int& exit_code) {
    exit_code = kExitOperationalError;
    const std::string path = context.args.value("--socket").value_or(ingest::kDefaultSocketPath);
    auto client = ingest::Client::connect(path);
    if (!client) {
        context.err << "outpostctl: cannot reach outpostd: " << client.status().message() << "\n";
        return std::nullopt;
    }
    auto answer = (*client)->call(request, kAnswerTimeout);
    if (!answer) {
        context.err << "outpostctl: " << what << " through " << path << ": "
                    << answer.status().message() << "." << (may_have_written ? kRetryHint : "")
                    << "\n";
        return std::nullopt;
    }
    if (answer->value("ok", false) != true) {
        std::string code = text_at(*answer, "code", "unknown");
        context.err << "outpostctl: outpostd refused " << what << ": " << code << ": "
                    << text_at(*answer, "message", "(no message)")
                    << (may_have_written && code == "outcome_unknown" ? kRetryHint : "") << "\n";
        return std::nullopt;
    }
    exit_code = kExitOk;
    return *answer;
}

}  // namespace outpost::cli
