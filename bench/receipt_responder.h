// The benchmarks' receipt sender: what outpost-bridge does after RocketMQ's
// SEND_OK, without RocketMQ. It runs in a process of its own (as the bridge
// does: paho runs one receive thread per process, which the publisher under
// test must not share), subscribes to every gateway's alarm topics, and
// hands each eventId to the bridge's own ReceiptBatcher and
// MqttReceiptSender (src/bridge/mqtt/receipt_batcher.h, receipt_sender.h), which
// batch and publish receipts under common/receipt_contract.h. Nothing of the
// receipt contract or the batching is written again here.
//
// Bench programs only: errors print and exit.
#ifndef OUTPOST_BENCH_RECEIPT_RESPONDER_H
#define OUTPOST_BENCH_RECEIPT_RESPONDER_H

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>

namespace outpost::bench {

// argv[1] of a program started as a responder (see ReceiptResponder).
constexpr const char* kResponderRole = "--receipt-responder";

// The responder's side, when argv[1] == kResponderRole: argv[2] the broker
// URI, argv[3] a file it creates once subscribed, argv[4] "hold" (keep the
// ids until a line "release" arrives on stdin) or "live". Runs until stdin
// ends, then sends what is queued and returns the exit status.
int run_receipt_responder(int argc, char** argv);

// The benchmark's side: this same program started again as a responder.
class ReceiptResponder final {
  public:
    // Starts it on `broker_uri` and returns once it is subscribed; `dir` is
    // scratch space for its ready file. Exits the benchmark on failure.
    ReceiptResponder(const std::string& broker_uri, const std::string& dir, bool hold);
    // Closes its stdin and waits for it to send what it queued and end.
    ~ReceiptResponder();
    ReceiptResponder(const ReceiptResponder&) = delete;
    ReceiptResponder& operator=(const ReceiptResponder&) = delete;

    // hold: from now on the held ids, and every later one, go out.
    void release();
    // The responder process (benchmarks read its CPU time).
    pid_t pid() const { return pid_; }

  private:
    pid_t pid_ = -1;
    std::FILE* stdin_ = nullptr;  // write end of its stdin
};

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_RECEIPT_RESPONDER_H
