// The raw limit of the batched bridge's latency: our producer, with no MQTT
// leg, given messages at a steady pace and grouping them as the bridge does
// (per destination queue, a batch due when full or when its oldest message
// has waited `linger`), each batch one request (Producer::send_batch).
// Header-only; bench programs only.
//
// `senders` threads share the queues (queue i on thread i % senders), each
// sending its queues' due batches one request at a time, oldest first:
//  - senders = 1 is the bridge's own rule (one request at a time for every
//    queue), so its latency is what that rule gets from this broker at this
//    pace without the bridge's costs;
//  - senders = kThreadPerQueue gives every queue a thread of its own, so each
//    queue's batch goes as soon as it is due, requests of different queues
//    at once: what that other rule gets.
// A message's arrival is its place in the pace (start + i / rate), not when a
// thread saw it, so a thread busy with a request does not hide its wait.
#ifndef OUTPOST_BENCH_PACED_PRODUCER_H
#define OUTPOST_BENCH_PACED_PRODUCER_H

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cpu_window.h"
#include "rocketmq/producer.h"

namespace outpost::bench {

// `senders` for a thread per destination queue.
constexpr int kThreadPerQueue = 0;

struct PacedMessage {
    std::string device;  // sharding key
    std::string event_id;
    std::string body;
};

struct PacedFigures {
    bool ok = false;
    std::vector<double> forward_ms;  // arrival to SEND_OK, per message
    std::vector<double> wait_ms;     // arrival to its request's start, per message
    std::vector<double> send_ms;     // a request's start to SEND_OK, per request
    nlohmann::json cpu;              // this process and the broker (CpuWindow::end)
};

namespace paced_detail {

using Clock = std::chrono::steady_clock;

struct Held {
    std::size_t index;  // into the messages, in arrival order
    Clock::time_point arrival;
};

// One thread's share: its queues' messages in arrival order, grouped as they
// arrive, each group sent when full or when its oldest has waited `linger`.
inline bool send_share(rocketmq::Producer& producer, const std::string& topic,
                       const std::vector<PacedMessage>& messages,
                       const std::vector<std::size_t>& mine, const std::vector<int>& queue_of,
                       Clock::time_point start, double rate, std::chrono::milliseconds linger,
                       std::size_t max_batch, const std::atomic<bool>& failed,
                       PacedFigures* figures) {
    const auto arrival = [&](std::size_t index) {
        return start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(static_cast<double>(index) / rate));
    };
    std::map<int, std::vector<Held>> open;  // queue -> held messages
    std::size_t next = 0;                   // into `mine`
    while ((next < mine.size() || !open.empty()) && !failed) {
        const Clock::time_point now = Clock::now();
        while (next < mine.size() && arrival(mine[next]) <= now) {
            open[queue_of[mine[next]]].push_back({mine[next], arrival(mine[next])});
            ++next;
        }
        // The due group (full, or its oldest waited linger) whose oldest came first.
        auto due = open.end();
        for (auto it = open.begin(); it != open.end(); ++it) {
            const bool full = it->second.size() >= max_batch;
            const bool lingered = it->second.front().arrival + linger <= now;
            if (!full && !lingered) continue;
            if (due == open.end() || it->second.front().arrival < due->second.front().arrival) {
                due = it;
            }
        }
        if (due == open.end()) {
            Clock::time_point wake =
                next < mine.size() ? arrival(mine[next]) : Clock::time_point::max();
            for (const auto& [queue, held] : open) {
                wake = std::min(wake, held.front().arrival + linger);
            }
            std::this_thread::sleep_until(wake);
            continue;
        }
        const std::size_t count = std::min(max_batch, due->second.size());
        std::vector<rocketmq::BatchMessage> batch;
        for (std::size_t i = 0; i < count; ++i) {
            const PacedMessage& message = messages[due->second[i].index];
            batch.push_back({"major", message.event_id, message.body, {}, message.device});
        }
        const Clock::time_point sent_at = Clock::now();
        const auto sent = producer.send_batch(topic, batch, messages[due->second[0].index].device);
        const Clock::time_point stored_at = Clock::now();
        if (!sent.is_ok()) {
            std::fprintf(stderr, "paced producer: %s\n", sent.status().message().c_str());
            return false;
        }
        using Ms = std::chrono::duration<double, std::milli>;
        figures->send_ms.push_back(Ms(stored_at - sent_at).count());
        for (std::size_t i = 0; i < count; ++i) {
            figures->forward_ms.push_back(Ms(stored_at - due->second[i].arrival).count());
            figures->wait_ms.push_back(Ms(sent_at - due->second[i].arrival).count());
        }
        due->second.erase(due->second.begin(), due->second.begin() + static_cast<long>(count));
        if (due->second.empty()) open.erase(due);
    }
    return !failed;
}

}  // namespace paced_detail

// Sends `messages` to `topic` at `rate` msg/s as the header says. The route
// of `topic` must be cached (a send to it done): queues are looked up without
// waiting. `ok` false on a failed send or lookup.
inline PacedFigures run_paced_producer(rocketmq::Producer& producer, const std::string& topic,
                                       const std::vector<PacedMessage>& messages, double rate,
                                       std::chrono::milliseconds linger, std::size_t max_batch,
                                       int senders, pid_t broker_pid) {
    PacedFigures figures;
    std::map<std::string, int> queue_ids;  // broker/queue -> dense index
    std::vector<int> queue_of(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const auto queue = producer.queue_for(topic, messages[i].device);
        if (!queue.is_ok()) {
            std::fprintf(stderr, "paced producer: %s\n", queue.status().message().c_str());
            return figures;
        }
        const std::string name = queue->broker_name + "/" + std::to_string(queue->queue_id);
        queue_of[i] = queue_ids.emplace(name, static_cast<int>(queue_ids.size())).first->second;
    }
    const int queues = std::max(1, static_cast<int>(queue_ids.size()));
    const int threads = senders == kThreadPerQueue ? queues : std::clamp(senders, 1, queues);
    std::vector<std::vector<std::size_t>> shares(threads);
    for (std::size_t i = 0; i < messages.size(); ++i) shares[queue_of[i] % threads].push_back(i);
    std::vector<PacedFigures> own(threads);
    std::atomic<bool> failed{false};
    CpuWindow window;
    window.begin({{"producer", ::getpid()}, {"rocketmq_broker", broker_pid}});
    const auto start = paced_detail::Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            if (!paced_detail::send_share(producer, topic, messages, shares[t], queue_of, start,
                                          rate, linger, max_batch, failed, &own[t])) {
                failed = true;
            }
        });
    }
    for (std::thread& worker : workers) worker.join();
    figures.cpu = window.end(messages.size());
    const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
        to.insert(to.end(), from.begin(), from.end());
    };
    for (const PacedFigures& part : own) {
        append(figures.forward_ms, part.forward_ms);
        append(figures.wait_ms, part.wait_ms);
        append(figures.send_ms, part.send_ms);
    }
    figures.ok = !failed;
    return figures;
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_PACED_PRODUCER_H
