// The whole content of a file as bytes ("" when it cannot be read).
#ifndef OUTPOST_TESTS_FILE_CONTENT_H
#define OUTPOST_TESTS_FILE_CONTENT_H

#include <fstream>
#include <sstream>
#include <string>

namespace outpost::testing {

inline std::string file_content(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_FILE_CONTENT_H
