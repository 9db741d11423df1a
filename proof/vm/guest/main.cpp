// outpost-vm-guest: the proof toolkit's program inside the gateway VM
// (cross-built for arm64, started by the VM's init; see
// scripts/gateway-vm/init). Not installed: test tooling, not product.
//
//   outpost-vm-guest workload --channel PORT --socket PATH --device DISK
//       --store PATH --prefix P --alarms N --connections K [--rate R]
//   outpost-vm-guest check --channel PORT --device DISK --serial S --gateway-id G
//   outpost-vm-guest naive --channel PORT --dir DIR --mode rollback|wal --rows N [--rate R]
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "proof/vm/guest/check.h"
#include "proof/vm/guest/naive.h"
#include "proof/vm/guest/workload.h"

namespace {

using namespace outpost::torture::vm::guest;

int usage(const char* problem) {
    std::fprintf(stderr,
                 "outpost-vm-guest: %s\nusage: outpost-vm-guest workload|check|naive --channel PORT "
                 "[--name value]...\n",
                 problem);
    return 2;
}

int number(const std::map<std::string, std::string>& values, const std::string& name,
           int fallback) {
    auto found = values.find(name);
    return found == values.end() ? fallback : std::atoi(found->second.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage("no command");
    const std::string command = argv[1];
    std::map<std::string, std::string> values;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string name = argv[i];
        if (name.rfind("--", 0) != 0) return usage(("unexpected argument " + name).c_str());
        values[name.substr(2)] = argv[i + 1];
    }
    if ((argc - 2) % 2 != 0) return usage("an option lacks its value");
    const int fd = ::open(values["channel"].c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return usage("cannot open the --channel port");
    const Channel channel(fd);
    if (command == "workload") {
        WorkloadOptions options;
        options.socket = values["socket"];
        options.device = values["device"];
        options.store_path = values["store"];
        options.prefix = values["prefix"];
        options.alarms = number(values, "alarms", options.alarms);
        options.connections = number(values, "connections", options.connections);
        if (values.count("rate") != 0) options.rate = std::atof(values["rate"].c_str());
        if (options.rate < 0) return usage("bad --rate");
        if (options.connections < 1 || options.alarms < 1)
            return usage("bad --alarms/--connections");
        return run_workload(options, channel);
    }
    if (command == "naive") {
        NaiveOptions options;
        options.dir = values["dir"];
        options.mode = values["mode"];
        options.rows = number(values, "rows", options.rows);
        if (values.count("rate") != 0) options.rate = std::atof(values["rate"].c_str());
        if (options.dir.empty() || (options.mode != "rollback" && options.mode != "wal") ||
            options.rows < 1 || options.rate < 0) {
            return usage("naive needs --dir, --mode rollback|wal, --rows N >= 1, --rate R >= 0");
        }
        return run_naive(options, channel);
    }
    if (command == "check") {
        CheckOptions options;
        options.device = values["device"];
        options.serial = values["serial"];
        options.gateway_id = values["gateway-id"];
        return run_check(options, channel);
    }
    return usage(("unknown command " + command).c_str());
}
