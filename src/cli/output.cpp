#include "cli/output.h"

#include <iomanip>

namespace outpost::cli {

namespace {

// The envelope as JSON when it parses, else as the raw string (never throws:
// a damaged envelope must still be shown to the operator).
nlohmann::json envelope_json(const std::string& envelope) {
    auto parsed = nlohmann::json::parse(envelope, nullptr, false);
    if (parsed.is_discarded()) return envelope;
    return parsed;
}

// Invalid UTF-8 in a stored field is shown replaced rather than thrown.
std::string safe_dump(const nlohmann::json& document) {
    return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

nlohmann::json row_to_json(const EventRecord& row, bool with_envelope) {
    nlohmann::json document = {
        {"id", row.id},
        {"event_id", row.event_id},
        {"device_id", row.device_id},
        {"seq", row.seq},
        {"event_type", row.event_type},
        {"topic_suffix", row.topic_suffix},
        {"state", event_state_name(row.state)},
        {"attempts", row.attempts},
        {"last_error", row.last_error},
        {"replay_count", row.replay_count},
        {"replay_reason", row.replay_reason},
        {"replay_actor", row.replay_actor},
        {"replayed_at_ms", row.replayed_at_ms},
        {"failed_at_ms", row.failed_at_ms},
    };
    nlohmann::json failures = nlohmann::json::array();
    for (const EarlierFailure& failure : row.earlier_failures) {
        failures.push_back({{"attempts", failure.attempts},
                            {"error", failure.error},
                            {"failed_at_ms", failure.failed_at_ms},
                            {"replayed_at_ms", failure.replayed_at_ms},
                            {"reason", failure.reason},
                            {"actor", failure.actor}});
    }
    document["earlier_failures"] = std::move(failures);
    if (with_envelope) document["envelope"] = envelope_json(row.envelope);
    return document;
}

void print_row_table(std::ostream& out, const std::vector<EventRecord>& rows) {
    out << std::left << std::setw(8) << "ID" << std::setw(38) << "EVENT_ID" << std::setw(8)
        << "STATE" << std::setw(20) << "DEVICE" << std::setw(8) << "SEQ" << std::setw(18) << "TYPE"
        << "ATTEMPTS\n";
    for (const auto& row : rows) {
        out << std::left << std::setw(8) << row.id << std::setw(38) << row.event_id << std::setw(8)
            << event_state_name(row.state) << std::setw(20) << row.device_id << std::setw(8)
            << row.seq << std::setw(18) << row.event_type << row.attempts << "\n";
    }
}

void print_row_detail(std::ostream& out, const EventRecord& row) {
    out << "id:            " << row.id << "\n"
        << "event_id:      " << row.event_id << "\n"
        << "state:         " << event_state_name(row.state) << "\n"
        << "device_id:     " << row.device_id << "\n"
        << "seq:           " << row.seq << "\n"
        << "event_type:    " << row.event_type << "\n"
        << "topic_suffix:  " << row.topic_suffix << "\n"
        << "attempts:      " << row.attempts << "\n"
        << "last_error:    " << row.last_error << "\n";
    if (row.failed_at_ms > 0) out << "failed_at_ms:  " << row.failed_at_ms << "\n";
    out << "replay_count:  " << row.replay_count << "\n";
    if (row.replay_count > 0) {
        out << "replay_reason: " << row.replay_reason << "\n"
            << "replay_actor:  " << row.replay_actor << "\n"
            << "replayed_at_ms: " << row.replayed_at_ms << "\n";
    }
    // Earlier failures, oldest first: each ended by the replay named after it.
    for (const EarlierFailure& failure : row.earlier_failures) {
        out << "earlier:       " << failure.attempts << " attempt(s), last at "
            << failure.failed_at_ms << " ms: " << failure.error << "; replayed at "
            << failure.replayed_at_ms << " ms by " << failure.actor << ": " << failure.reason
            << "\n";
    }
    out << "envelope:\n" << safe_dump(envelope_json(row.envelope)) << "\n";
}

void print_tree(std::ostream& out, const nlohmann::json& document, int depth) {
    const std::string indent(static_cast<size_t>(depth) * 2, ' ');
    auto print_entry = [&](const std::string& label, const nlohmann::json& value) {
        if (value.is_structured() && !value.empty()) {
            out << indent << label << ":\n";
            print_tree(out, value, depth + 1);
        } else if (value.is_string()) {
            out << indent << label << ": " << value.get<std::string>() << "\n";
        } else {
            out << indent << label << ": " << safe_dump(value) << "\n";
        }
    };
    if (document.is_object()) {
        for (const auto& item : document.items()) print_entry(item.key(), item.value());
    } else if (document.is_array()) {
        for (size_t i = 0; i < document.size(); ++i)
            print_entry("[" + std::to_string(i) + "]", document[i]);
    } else {
        out << indent << safe_dump(document) << "\n";
    }
}

void print_json(std::ostream& out, const nlohmann::json& document) {
    out << safe_dump(document) << "\n";
}

}  // namespace outpost::cli
