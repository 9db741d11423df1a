// Runs the real outpostctl binary (path from $OUTPOSTCTL), or another
// program, as a child process and captures its exit code, stdout and
// stderr. posix_spawn, not fork: no test code ever runs in the child.
#ifndef OUTPOST_TESTS_CLI_RUNNER_H
#define OUTPOST_TESTS_CLI_RUNNER_H

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace outpost::testing {

struct CliRun {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// Runs `command` (command[0] looked up in PATH unless it has a slash);
// `scratch_dir` receives the captured streams.
inline CliRun run_program(const std::vector<std::string>& command, const std::string& scratch_dir) {
    std::string out_path = scratch_dir + "/cli.stdout";
    std::string err_path = scratch_dir + "/cli.stderr";

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<std::string> words = command;
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);

    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("posix_spawnp " + words.front() + " failed");
    int wait_status = 0;
    if (waitpid(pid, &wait_status, 0) != pid) throw std::runtime_error("waitpid failed");

    CliRun run;
    run.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    run.out = read_whole_file(out_path);
    run.err = read_whole_file(err_path);
    return run;
}

// The binary named by $OUTPOSTCTL with `args`, started through `launcher`
// (may be empty), e.g. {"setpriv", "--reuid=65534", ...}.
inline CliRun run_outpostctl_via(const std::vector<std::string>& launcher,
                                 const std::vector<std::string>& args,
                                 const std::string& scratch_dir) {
    const char* binary = std::getenv("OUTPOSTCTL");
    if (binary == nullptr || *binary == '\0') throw std::runtime_error("OUTPOSTCTL is not set");
    std::vector<std::string> words = launcher;
    words.push_back(binary);
    words.insert(words.end(), args.begin(), args.end());
    return run_program(words, scratch_dir);
}

inline CliRun run_outpostctl(const std::vector<std::string>& args, const std::string& scratch_dir) {
    return run_outpostctl_via({}, args, scratch_dir);
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_CLI_RUNNER_H
