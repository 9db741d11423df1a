#include "daemon/metrics_textfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace outpost::daemon {

Status write_metrics_textfile(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp";
    std::FILE* file = std::fopen(temporary.c_str(), "w");
    if (file == nullptr) {
        return Status::error(StatusCode::kIoError,
                             "metrics textfile " + temporary + ": " + std::strerror(errno));
    }
    const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    const int write_error = errno;
    if (std::fclose(file) != 0 || !written) {
        std::remove(temporary.c_str());
        return Status::error(StatusCode::kIoError,
                             "metrics textfile " + temporary + ": " + std::strerror(write_error));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::remove(temporary.c_str());
        return Status::error(StatusCode::kIoError,
                             "metrics textfile " + path + ": " + std::strerror(error));
    }
    return Status::ok();
}

}  // namespace outpost::daemon
