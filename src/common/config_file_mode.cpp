#include "common/config_file_mode.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace outpost {

std::string exposed_secrets_warning(const std::string& path,
                                    const std::vector<std::string>& secrets) {
    if (secrets.empty()) return "";
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return "";
    const bool others = (info.st_mode & (S_IROTH | S_IWOTH)) != 0;
    const bool foreign_group = (info.st_mode & S_IRGRP) != 0 && info.st_gid != ::getegid();
    if (!others && !foreign_group) return "";
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    std::string names;
    for (const std::string& secret : secrets) names += (names.empty() ? "" : ", ") + secret;
    return "the configuration file " + path + " holds " + names + " and is " +
           (others ? "open to every user" : "readable by a group this service does not run as") +
           " (mode " + mode + "): run chmod 600 " + path +
           " (or 640 with the service's group as the file's group)";
}

}  // namespace outpost
