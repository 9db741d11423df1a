// What the simulated storage device promises, and what a power cut does to
// the writes it had not yet made durable. Shared by the power-cut VFS and its
// per-file model.
#ifndef OUTPOST_PROOF_CUT_POLICY_H
#define OUTPOST_PROOF_CUT_POLICY_H

#include <cstdint>

namespace outpost::testing {

// The device under SQLite. SQLite is told exactly these properties (through
// xSectorSize and xDeviceCharacteristics), and a cut never breaks more than
// they allow, so a failure found by the simulator is SQLite's or ours, never
// a broken promise of the simulated device.
struct DeviceModel {
    // Unit of tearing: a torn write lands sector by sector. A power of two
    // from 512 to 65536.
    std::uint32_t sector_size = 512;
    // Powersafe overwrite (SQLITE_IOCAP_POWERSAFE_OVERWRITE). True: a torn
    // write only ever changes the bytes it was asked to write. False: a torn
    // write may fill any sector it touches, including that sector's bytes it
    // was not asked to write, with garbage.
    bool powersafe_overwrite = true;
};

// What happens to each write or truncate still pending (not yet followed by
// an xSync of its file) when the power goes.
enum class CutMode {
    // Every pending operation is lost: the disk holds exactly what was synced.
    kDropAllPending,
    // Every pending operation reaches the disk: a process crash (the kernel
    // keeps its page cache), not a power cut.
    kKeepAllPending,
    // Each pending operation is independently kept, dropped or torn (written
    // for some of its sectors only), chosen by a generator seeded with `seed`.
    kRandom,
};

struct CutPolicy {
    CutMode mode = CutMode::kRandom;
    // Same seed, same workload, same trigger: same surviving images.
    std::uint64_t seed = 0;
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_CUT_POLICY_H
