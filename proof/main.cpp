// outpost-torture: the durability campaign (see --help and
// tests/faults/RASPBERRY-PI.md for running it on real hardware).
#include <cstdio>

#include "proof/kill.h"
#include "proof/options.h"
#include "proof/powercut.h"
#ifdef OUTPOST_TORTURE_E2E
#include "proof/e2e.h"
#include "proof/vm/campaign.h"
#endif

int main(int argc, char** argv) {
    using namespace outpost::torture;
    std::string message;
    bool help = false;
    auto options = parse_options(argc, argv, &message, &help);
    if (!options) {
        std::fprintf(help ? stdout : stderr, "%s\n", message.c_str());
        return help ? 0 : 2;
    }
    if (options->child == "powercut") return powercut_child(*options);
    if (options->child == "kill") return kill_child(*options);
#ifdef OUTPOST_TORTURE_E2E
    if (options->child == "e2e") return e2e_child(*options);
    if (options->child.empty() && options->mode == Mode::kE2e) return e2e_campaign(*options);
    if (options->child.empty() && options->mode == Mode::kVm) return vm::vm_campaign(*options);
    if (options->child.empty() && options->mode == Mode::kVmRun) return vm::vm_run(*options);
#else
    if (options->child.empty() && options->mode != Mode::kPowercut &&
        options->mode != Mode::kKill) {
        std::fprintf(stderr, "outpost-torture: --mode e2e and vm need a build with paho-mqtt\n");
        return 2;
    }
#endif
    if (!options->child.empty()) {
        std::fprintf(stderr, "outpost-torture: unknown child role '%s'\n", options->child.c_str());
        return 2;
    }
    return options->mode == Mode::kKill ? kill_campaign(*options) : powercut_campaign(*options);
}
