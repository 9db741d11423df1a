#include "proof/vm/disk_layout.h"

#include <cstring>

namespace outpost::torture::vm {
namespace {

constexpr char kRecordMagic[] = "OPEV ";
constexpr size_t kRecordMagicBytes = sizeof kRecordMagic - 1;
constexpr size_t kMaxLine = 480;

}  // namespace

std::string encode_record(uint64_t number, const std::string& line) {
    if (line.size() > kMaxLine || line.find('\n') != std::string::npos) return "";
    std::string record = kRecordMagic + std::to_string(number) + " " + line + "\n";
    record.resize(kRecordBytes, '\0');
    return record;
}

std::optional<Record> decode_record(const uint8_t* sector) {
    const char* text = reinterpret_cast<const char*>(sector);
    if (std::memcmp(text, kRecordMagic, kRecordMagicBytes) != 0) return std::nullopt;
    const void* newline = std::memchr(text, '\n', kRecordBytes);
    if (newline == nullptr) return std::nullopt;
    const std::string body(text + kRecordMagicBytes, static_cast<const char*>(newline));
    const size_t space = body.find(' ');
    if (space == 0 || space == std::string::npos) return std::nullopt;
    Record record;
    for (size_t i = 0; i < space; ++i) {
        if (body[i] < '0' || body[i] > '9') return std::nullopt;
        record.number = record.number * 10 + static_cast<uint64_t>(body[i] - '0');
    }
    record.line = body.substr(space + 1);
    return record;
}

}  // namespace outpost::torture::vm
