#include "common/uuid.h"

#include <sys/random.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <string>

namespace outpost {
namespace {

void fill_random(uint8_t* out, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t got = getrandom(out + done, size - done, 0);
        if (got > 0) done += static_cast<size_t>(got);
    }
}

std::mutex g_mutex;
uint64_t g_last_ms = 0;   // guarded by g_mutex
uint32_t g_counter = 0;   // guarded by g_mutex; 12 bits used

}  // namespace

std::string make_uuid_v7(int64_t unix_ms) {
    uint64_t ms = unix_ms < 0 ? 0 : static_cast<uint64_t>(unix_ms);
    uint32_t counter;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (ms > g_last_ms) {
            g_last_ms = ms;
            g_counter = 0;
        } else if (++g_counter > 0xFFF) {
            // Counter exhausted or the clock went backwards: borrow the next
            // millisecond so ids keep increasing.
            ++g_last_ms;
            g_counter = 0;
        }
        ms = g_last_ms;
        counter = g_counter;
    }
    std::array<uint8_t, 16> b{};
    fill_random(b.data() + 8, 8);
    for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (40 - 8 * i));
    b[6] = static_cast<uint8_t>(0x70 | ((counter >> 8) & 0x0F));
    b[7] = static_cast<uint8_t>(counter & 0xFF);
    b[8] = static_cast<uint8_t>(0x80 | (b[8] & 0x3F));
    // By hand rather than snprintf: this runs once per recorded event.
    static constexpr char kHex[] = "0123456789abcdef";
    char text[36];
    size_t at = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
        text[at++] = kHex[b[i] >> 4];
        text[at++] = kHex[b[i] & 0x0F];
    }
    return std::string(text, 36);
}

void seed_uuid_v7(const std::string& newest) {
    if (!is_canonical_uuid(newest)) return;
    std::string hex;
    for (char c : newest.substr(0, 18)) {
        if (c != '-') hex += c;
    }
    // 48 bits of milliseconds, the version nibble, 12 bits of counter.
    const uint64_t ms = std::stoull(hex.substr(0, 12), nullptr, 16);
    const uint32_t counter = static_cast<uint32_t>(std::stoul(hex.substr(13, 3), nullptr, 16));
    std::lock_guard<std::mutex> lock(g_mutex);
    if (ms > g_last_ms || (ms == g_last_ms && counter > g_counter)) {
        g_last_ms = ms;
        g_counter = counter;  // the next id takes counter + 1 (or the next ms)
    }
}

bool is_canonical_uuid(const std::string& text) {
    if (text.size() != 36) return false;
    for (size_t i = 0; i < text.size(); ++i) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? text[i] != '-' : !std::isxdigit(static_cast<unsigned char>(text[i]))) {
            return false;
        }
    }
    return true;
}

}  // namespace outpost
