// Text for Catch2 INFO messages. The tests speak TAP, which is line based:
// a message with a line break prints lines Meson cannot parse.
#ifndef OUTPOST_TESTS_TAP_TEXT_H
#define OUTPOST_TESTS_TAP_TEXT_H

#include <cstddef>
#include <string>

namespace outpost::testing {

// `text` with its line breaks as " | ", for INFO messages (TAP is line based).
inline std::string one_line(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
        text.replace(at, 1, " | ");
    }
    return text;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_TAP_TEXT_H
