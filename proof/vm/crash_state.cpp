#include "proof/vm/crash_state.h"

#include <algorithm>
#include <random>

namespace outpost::torture::vm {
namespace {

const char* tail_name(TailPolicy tail) {
    switch (tail) {
        case TailPolicy::kNone:
            return "none";
        case TailPolicy::kAll:
            return "all";
        case TailPolicy::kRandom:
            return "random";
        case TailPolicy::kRandomTorn:
            return "random_torn";
    }
    return "?";
}

constexpr TailPolicy kVaried[] = {TailPolicy::kAll, TailPolicy::kRandom, TailPolicy::kRandomTorn};

// A state whose prefix is choice `choice` of the P = flushes + 1 choices:
// 0 is "before the first flush", c > 0 "up to and including flush c-1".
CrashState state_at(const std::vector<size_t>& flushes, size_t entries, size_t choice) {
    CrashState state;
    state.prefix_end = choice == 0 ? 0 : flushes[choice - 1] + 1;
    state.cut = choice < flushes.size() ? flushes[choice] : entries;
    return state;
}

}  // namespace

std::string CrashState::describe() const {
    return "state " + std::to_string(id) + ": entries [0, " + std::to_string(prefix_end) +
           ") then tail " + tail_name(tail) + " of [" + std::to_string(prefix_end) + ", " +
           std::to_string(cut) + "), seed " + std::to_string(seed);
}

std::vector<size_t> flush_points(const BlockLog& log) {
    std::vector<size_t> flushes;
    for (size_t index = 0; index < log.entries().size(); ++index) {
        if (log.entries()[index].is_flush()) flushes.push_back(index);
    }
    return flushes;
}

std::vector<CrashState> plan_states(const BlockLog& log, uint64_t count, uint64_t seed,
                                    uint64_t first_id) {
    const std::vector<size_t> flushes = flush_points(log);
    const size_t entries = log.entries().size();
    const uint64_t choices = flushes.size() + 1;
    // mt19937_64's output is fixed by the standard: a seed names the same
    // states everywhere (distributions are not, so none is used).
    std::mt19937_64 random(seed);
    auto next = [&](uint64_t bound) { return random() % bound; };
    std::vector<CrashState> states;
    const uint64_t offset = next(1u << 16);
    for (uint64_t i = 0; i < count; ++i) {
        CrashState state;
        if (count >= choices && i < choices) {
            state = state_at(flushes, entries, static_cast<size_t>(i));
            state.tail = TailPolicy::kNone;
        } else if (count >= choices) {
            state = state_at(flushes, entries, static_cast<size_t>(next(choices)));
            state.tail = kVaried[i % 3];
        } else {
            // Evenly spread, shifted by a fraction of a step per seed.
            const uint64_t scaled = (i << 16) + offset;
            state =
                state_at(flushes, entries, static_cast<size_t>(scaled * choices / (count << 16)));
            state.tail = i % 4 == 0 ? TailPolicy::kNone : kVaried[i % 3];
        }
        state.seed = random();
        states.push_back(state);
    }
    std::stable_sort(states.begin(), states.end(), [](const CrashState& a, const CrashState& b) {
        return a.prefix_end < b.prefix_end;
    });
    for (uint64_t i = 0; i < states.size(); ++i) states[i].id = first_id + i;
    return states;
}

std::vector<SurvivingWrite> surviving_tail(const BlockLog& log, const CrashState& state) {
    std::vector<SurvivingWrite> survivors;
    std::mt19937_64 random(state.seed);
    auto next = [&](uint64_t bound) { return random() % bound; };
    for (size_t index = state.prefix_end; index < state.cut; ++index) {
        const LogEntry& entry = log.entries()[index];
        if (!entry.is_write() && !entry.is_discard()) continue;
        const bool fua = (entry.flags & kLogFua) != 0;
        bool keep = false;
        switch (state.tail) {
            case TailPolicy::kNone:
                keep = fua;
                break;
            case TailPolicy::kAll:
                keep = true;
                break;
            case TailPolicy::kRandom:
            case TailPolicy::kRandomTorn:
                keep = fua || next(2) == 0;
                break;
        }
        if (keep) survivors.push_back({index, {}});
    }
    if (state.tail == TailPolicy::kRandomTorn) {
        std::vector<size_t> tearable;
        for (size_t i = 0; i < survivors.size(); ++i) {
            const LogEntry& entry = log.entries()[survivors[i].entry];
            if (entry.is_write() && entry.sectors > 1 && (entry.flags & kLogFua) == 0) {
                tearable.push_back(i);
            }
        }
        if (!tearable.empty()) {
            SurvivingWrite& torn = survivors[tearable[next(tearable.size())]];
            const uint64_t sectors = log.entries()[torn.entry].sectors;
            torn.sectors.resize(sectors);
            // Some but not all sectors: a torn write, not a whole or a lost one.
            const uint64_t kept_sector = next(sectors);
            uint64_t dropped_sector = next(sectors - 1);
            if (dropped_sector >= kept_sector) ++dropped_sector;
            for (uint64_t s = 0; s < sectors; ++s) torn.sectors[s] = next(2) == 0;
            torn.sectors[kept_sector] = true;
            torn.sectors[dropped_sector] = false;
        }
    }
    return survivors;
}

}  // namespace outpost::torture::vm
