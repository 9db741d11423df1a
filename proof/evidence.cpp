#include "proof/evidence.h"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

namespace outpost::faults {
namespace {

// Event ids per M/m line: 10 ids of 37 bytes stay under POSIX's smallest
// PIPE_BUF (512), so a line is always written atomically.
constexpr size_t kIdsPerLine = 10;

CallAttempt* open_attempt(CallEvidence& call) {
    if (call.attempts.empty() || call.attempts.back().outcome != CallOutcome::kInFlight) {
        return nullptr;
    }
    return &call.attempts.back();
}

}  // namespace

// A failed attempt, by the status code name it returned. store.h documents
// "nothing written" for kInvalidArgument, kStoreFull, kDiskFull, kIoError and
// kClosed; kBusy comes only from BEGIN, before anything is written. Every
// other failure, kOutcomeUnknown first, may have written.
CallOutcome failure_outcome(const std::string& code) {
    for (const char* not_written :
         {"invalid_argument", "store_full", "disk_full", "io_error", "closed", "busy"}) {
        if (code == not_written) return CallOutcome::kNotWritten;
    }
    return CallOutcome::kUnknown;
}

CallOutcome outcome_of(const Status& status) {
    if (status.is_ok()) return CallOutcome::kAcknowledged;
    return failure_outcome(status_code_name(status.code()));
}

bool CallEvidence::acknowledged() const {
    for (const CallAttempt& attempt : attempts) {
        if (attempt.outcome == CallOutcome::kAcknowledged) return true;
    }
    return false;
}

bool CallEvidence::in_doubt() const {
    for (const CallAttempt& attempt : attempts) {
        if (attempt.outcome == CallOutcome::kInFlight || attempt.outcome == CallOutcome::kUnknown) {
            return true;
        }
    }
    return false;
}

void EvidenceWriter::line(const std::string& text) const {
    if (log_ != nullptr) {
        std::string ignored;
        log_->apply(text, &ignored);
        return;
    }
    std::string out = text + "\n";
    const char* data = out.data();
    size_t left = out.size();
    while (left > 0) {
        ssize_t n = ::write(fd_, data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        left -= static_cast<size_t>(n);
    }
}

void EvidenceWriter::started(const std::string& token, const std::string& key) const {
    line("S " + token + (key.empty() ? " -" : " k " + key));
}

void EvidenceWriter::acknowledged(const std::string& token, const RecordedEvent& event) const {
    line("A " + token + " " + event.event_id + " " + event.device_id + " " +
         std::to_string(event.seq) + (event.duplicate ? " 1" : " 0"));
}

void EvidenceWriter::failed(const std::string& token, const Status& status) const {
    line("F " + token + " " + status_code_name(status.code()));
}

void EvidenceWriter::id_lines(char tag, const std::vector<std::string>& event_ids) const {
    for (size_t first = 0; first < event_ids.size(); first += kIdsPerLine) {
        std::string text(1, tag);
        for (size_t i = first; i < event_ids.size() && i < first + kIdsPerLine; ++i) {
            text += " " + event_ids[i];
        }
        line(text);
    }
}

void EvidenceWriter::marking(const std::vector<std::string>& event_ids) const {
    id_lines('M', event_ids);
}

void EvidenceWriter::marked(const std::vector<std::string>& event_ids) const {
    id_lines('m', event_ids);
}

void EvidenceWriter::purging() const {
    line("P");
}

void EvidenceWriter::figure(const std::string& name, uint64_t value) const {
    line("N " + name + " " + std::to_string(value));
}

bool EvidenceLog::read_all(int fd, std::string* error) {
    begin_run();
    std::string buffer;
    char chunk[4096];
    for (;;) {
        ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        buffer.append(chunk, static_cast<size_t>(n));
        size_t start = 0;
        for (size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
            if (!apply(buffer.substr(start, end - start), error)) return false;
        }
        buffer.erase(0, start);
    }
    return true;
}

bool EvidenceLog::apply(const std::string& line, std::string* error) {
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    ++line_;
    auto malformed = [&] {
        *error = "malformed evidence line: '" + line + "'";
        return false;
    };
    if (tag == "S") {
        std::string token, keyed, key;
        if (!(in >> token >> keyed)) return malformed();
        CallEvidence& call = calls_[token];
        call.keyed = keyed == "k";
        if (call.keyed && !(in >> call.key)) return malformed();
        CallAttempt attempt;
        attempt.run = run_;
        attempt.started_line = line_;
        call.attempts.push_back(attempt);
        return true;
    }
    if (tag == "A" || tag == "F") {
        std::string token;
        if (!(in >> token)) return malformed();
        auto found = calls_.find(token);
        if (found == calls_.end()) return malformed();
        CallAttempt* attempt = open_attempt(found->second);
        if (attempt == nullptr) return malformed();
        if (tag == "A") {
            int duplicate = 0;
            if (!(in >> attempt->event_id >> attempt->device_id >> attempt->seq >> duplicate)) {
                return malformed();
            }
            attempt->duplicate = duplicate != 0;
            attempt->outcome = CallOutcome::kAcknowledged;
            uint64_t& latest = last_acknowledged_start_[attempt->run];
            latest = std::max(latest, attempt->started_line);
            return true;
        }
        if (!(in >> attempt->code)) return malformed();
        attempt->outcome = failure_outcome(attempt->code);
        return true;
    }
    if (tag == "M" || tag == "m") {
        std::set<std::string>& into = tag == "M" ? mark_started_ : mark_acknowledged_;
        for (std::string id; in >> id;) {
            into.insert(id);
            if (tag == "m") last_mark_acknowledged_[id] = Position{run_, line_};
        }
        return true;
    }
    if (tag == "P") {
        ++purges_;
        return true;
    }
    if (tag == "N") {
        std::string name;
        uint64_t value = 0;
        if (!(in >> name >> value)) return malformed();
        figures_[name] = value;
        return true;
    }
    return malformed();
}

bool EvidenceLog::mark_may_be_undone(const std::string& event_id) const {
    auto mark = last_mark_acknowledged_.find(event_id);
    if (mark == last_mark_acknowledged_.end()) return false;
    auto latest = last_acknowledged_start_.find(mark->second.run);
    return latest == last_acknowledged_start_.end() || latest->second < mark->second.line;
}

std::vector<std::string> EvidenceLog::open_calls() const {
    std::vector<std::string> open;
    for (const auto& [token, call] : calls_) {
        if (call.acknowledged() || call.attempts.empty()) continue;
        CallOutcome last = call.attempts.back().outcome;
        if (last == CallOutcome::kInFlight || last == CallOutcome::kUnknown) open.push_back(token);
    }
    return open;
}

uint64_t EvidenceLog::acknowledged_calls() const {
    uint64_t count = 0;
    for (const auto& entry : calls_) count += entry.second.acknowledged() ? 1 : 0;
    return count;
}

std::set<std::string> EvidenceLog::acknowledged_event_ids() const {
    std::set<std::string> ids;
    for (const auto& entry : calls_) {
        for (const CallAttempt& attempt : entry.second.attempts) {
            if (attempt.outcome == CallOutcome::kAcknowledged) ids.insert(attempt.event_id);
        }
    }
    return ids;
}

}  // namespace outpost::faults
