// outpostctl raise-alarm: records an alarm the way firmware would, for
// commissioning and for testing the chain end to end.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
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

}  // namespace

int run_raise_alarm(Context& context) {
    const auto& args = context.args;
    auto device = args.value("--device");
    auto type = args.value("--type");
    auto gateway = args.value("--gateway");
    if (!device || !type || !gateway || gateway->empty()) {
        return usage_error(context, "raise-alarm needs --device D, --type T and --gateway GW");
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

    int exit_code = kExitOk;
    auto store = open_store(context, *gateway, exit_code);
    if (!store) return exit_code;
    auto recorded = store->record_alarm(alarm);
    if (!recorded) return operation_error(context, "recording the alarm", recorded.status());
    // Printed only now: the eventId is a promise that the alarm is durable.
    if (context.json) {
        print_json(context.out, {{"event_id", recorded->event_id},
                                 {"device_id", recorded->device_id},
                                 {"seq", recorded->seq},
                                 {"duplicate", recorded->duplicate}});
    } else {
        context.out << recorded->event_id << "\n";
    }
    return kExitOk;
}

}  // namespace outpost::cli
