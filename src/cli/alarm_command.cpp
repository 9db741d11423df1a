// outpostctl raise-alarm: records an alarm the way firmware would, for
// commissioning and for testing the chain end to end: directly in the
// database (--db) or through a running outpostd (--socket).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cli/commands.h"
#include "cli/daemon_client.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "ingest/ingest_server.h"
#include "ingest/protocol.h"
#include "outpost/alarm.h"

namespace outpost::cli {

namespace {

bool parse_value(const std::string& text, double& value) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return errno == 0 && *end == '\0' && std::isfinite(value);
}

// Printed only once the store (ours or the daemon's) said the alarm is
// durable: the eventId is that promise.
int print_recorded(Context& context, const RecordedEvent& recorded) {
    if (context.json) {
        print_json(context.out, {{"event_id", recorded.event_id},
                                 {"device_id", recorded.device_id},
                                 {"seq", recorded.seq},
                                 {"duplicate", recorded.duplicate}});
    } else {
        context.out << recorded.event_id << "\n";
    }
    return kExitOk;
}

int raise_through_daemon(Context& context, const Alarm& alarm) {
    int exit_code = kExitOk;
    auto answer = ask_daemon(context, ingest::raise_alarm_request(alarm), "recording the alarm",
                             true, exit_code);
    if (!answer) return exit_code;
    RecordedEvent recorded;
    recorded.event_id = answer->value("eventId", "");
    recorded.device_id = answer->value("deviceId", "");
    recorded.seq = answer->value("seq", int64_t{0});
    recorded.duplicate = answer->value("duplicate", false);
    return print_recorded(context, recorded);
}

}  // namespace

int run_raise_alarm(Context& context) {
    const auto& args = context.args;
    auto device = args.value("--device");
    auto type = args.value("--type");
    auto gateway = args.value("--gateway");
    const bool through_daemon = args.value("--socket").has_value();
    if (through_daemon == args.value("--db").has_value()) {
        return usage_error(context,
                           std::string("raise-alarm needs either --db PATH (with --gateway GW) or "
                                       "--socket PATH (outpostd's, by default ") +
                               ingest::kDefaultSocketPath + ")");
    }
    if (through_daemon && gateway) {
        return usage_error(context,
                           "--gateway goes with --db only: outpostd records alarms for "
                           "its own gateway");
    }
    if (!device || !type) return usage_error(context, "raise-alarm needs --device D and --type T");
    if (!through_daemon && (!gateway || gateway->empty())) {
        return usage_error(context, "raise-alarm with --db needs --gateway GW");
    }
    Alarm alarm;
    alarm.device_id = *device;
    alarm.alarm_type = *type;
    if (auto severity_text = args.value("--severity")) {
        auto severity = parse_severity(*severity_text);
        if (!severity) {
            return usage_error(context, "bad --severity '" + *severity_text +
                                            "': use info, warning, minor, major or critical");
        }
        alarm.severity = *severity;
    }
    if (auto value_text = args.value("--value")) {
        double value = 0;
        if (!parse_value(*value_text, value)) {
            return usage_error(context, "bad --value '" + *value_text + "': need a finite number");
        }
        alarm.value = value;
    }
    alarm.unit = args.value("--unit").value_or("");
    alarm.text = args.value("--text").value_or("");
    alarm.idempotency_key = args.value("--key").value_or("");

    if (through_daemon) return raise_through_daemon(context, alarm);
    int exit_code = kExitOk;
    auto store = open_store(context, *gateway, exit_code);
    if (!store) return exit_code;
    auto recorded = store->record_alarm(alarm);
    if (!recorded) return operation_error(context, "recording the alarm", recorded.status());
    return print_recorded(context, *recorded);
}

}  // namespace outpost::cli
