// The official RocketMQ Java producer (rocketmq-client 5.3.3,
// DefaultMQProducer) in a JVM of its own, driven one command line at a time
// over a pipe and kept warm between rounds, so that a bench can measure it
// beside our code on the same broker in the same run. The Java side is
// consumer/.../bench/ProducerBench.java, built by scripts/consumer.sh (the
// first build needs mvn).
#ifndef OUTPOST_BENCH_JAVA_PRODUCER_H
#define OUTPOST_BENCH_JAVA_PRODUCER_H

#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace outpost::bench {

class JavaProducer final {
  public:
    // `source_root`: the repository, whose scripts/consumer.sh names the
    // classpath. ready() says whether the JVM started and answered.
    JavaProducer(const std::string& source_root, const std::string& name_servers,
                 const std::string& group) {
        const std::string classpath = command_output(source_root + "/scripts/consumer.sh classpath");
        int to_child[2];
        int from_child[2];
        if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, to_child[1]);
        posix_spawn_file_actions_addclose(&actions, from_child[0]);
        std::vector<std::string> argv = {"java",       "-Xms256m",
                                         "-Xmx512m",   "-cp",
                                         classpath,    "org.outpost.consumer.bench.ProducerBench",
                                         name_servers, group};
        std::vector<char*> raw;
        for (std::string& arg : argv) raw.push_back(arg.data());
        raw.push_back(nullptr);
        if (posix_spawnp(&pid_, "java", &actions, nullptr, raw.data(), environ) != 0) pid_ = -1;
        posix_spawn_file_actions_destroy(&actions);
        ::close(to_child[0]);
        ::close(from_child[1]);
        input_ = ::fdopen(to_child[1], "w");
        output_ = ::fdopen(from_child[0], "r");
        ready_ = read_line() == "ready";
    }
    ~JavaProducer() {
        if (input_ != nullptr) {
            std::fputs("quit\n", input_);
            std::fclose(input_);
        }
        if (output_ != nullptr) std::fclose(output_);
        if (pid_ > 0) {
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
    }
    JavaProducer(const JavaProducer&) = delete;
    JavaProducer& operator=(const JavaProducer&) = delete;

    bool ready() const { return ready_; }
    pid_t pid() const { return pid_; }

    // Sends `count` messages of `body_bytes` bytes over `devices` devices, in
    // requests of `batch` messages of one device each (1: single sends), as
    // the class comment of ProducerBench says; "" on success, else why not.
    std::string send(const std::string& topic, int count, int batch, int devices, int body_bytes,
                     const std::string& run) {
        std::fprintf(input_, "send %s %d %d %d %d %s\n", topic.c_str(), count, batch, devices,
                     body_bytes, run.c_str());
        std::fflush(input_);
        const std::string answer = read_line();
        return answer == "done " + std::to_string(count) ? "" : "java producer: " + answer;
    }

  private:
    static std::string command_output(const std::string& command) {
        std::string out;
        if (FILE* pipe = ::popen(command.c_str(), "r")) {
            char buffer[4096];
            while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
            ::pclose(pipe);
        }
        while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
        return out;
    }
    std::string read_line() {
        char buffer[4096];
        if (output_ == nullptr || std::fgets(buffer, sizeof(buffer), output_) == nullptr) return "";
        std::string line = buffer;
        while (!line.empty() && line.back() == '\n') line.pop_back();
        return line;
    }

    pid_t pid_ = -1;
    FILE* input_ = nullptr;
    FILE* output_ = nullptr;
    bool ready_ = false;
};

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_JAVA_PRODUCER_H
