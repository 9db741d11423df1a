// The publisher thread: one loop that waits on the Inbox, dispatches what
// arrived, runs its timers (all on the boot clock) and fills the window.
#include <pthread.h>
#include <unistd.h>

#include <algorithm>

#include "common/fault_point.h"
#include "common/receipt_contract.h"
#include "publish/publisher_impl.h"
#include "store/store_internal.h"

namespace outpost {
namespace {

// Backlog and oldest-pending age: a summary read, once a second.
constexpr int64_t kProbeIntervalMs = 1000;
// Longest sleep when nothing is scheduled sooner.
constexpr int64_t kMaxSleepMs = 1000;
// Drain: how often to look again while waiting for the last PUBACKs.
constexpr int64_t kDrainPollMs = 20;

std::string make_holder(const std::string& boot_id) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    return "pid " + std::to_string(::getpid()) + " on " + host + ", boot " + boot_id;
}

}  // namespace

publish::PublisherImpl::PublisherImpl(Store& store, const PublisherOptions& options,
                                      publish::LinkFactory make_link)
    : store_(store),
      core_(store::core_of(store)),
      options_(options),
      clock_(options.clock ? *options.clock : system_clock()),
      gateway_id_(store.gateway_id()),
      topic_prefix_("outpost/" + gateway_id_ + "/"),
      receipt_topic_(receipt::topic_for_prefix(topic_prefix_)),
      make_link_(std::move(make_link)),
      holder_(make_holder(clock_.boot_id())),
      lease_(publish::lease_path_for(store.path())),
      reconnect_backoff_(Backoff::jittered(options.endpoint.reconnect_initial,
                                           options.endpoint.reconnect_max,
                                           seeded_random(options.jitter_seed))),
      retry_backoff_(
          Backoff::jittered(options.retry_initial, options.retry_max,
                            seeded_random(options.jitter_seed ? options.jitter_seed + 1 : 0))),
      receipt_backoff_(
          Backoff::jittered(options.receipt_timeout, options.receipt_timeout_max,
                            seeded_random(options.jitter_seed ? options.jitter_seed + 2 : 0))),
      window_(options.max_in_flight) {}

publish::PublisherImpl::~PublisherImpl() {
    stop(Publisher::kDefaultStopTimeout)
        .ignore_error("a destructor has no one to tell; stop() first to hear the outcome");
}

void publish::PublisherImpl::launch() {
    // Receipts on: an unconfirmed SENT row may have to go out again, so
    // purges keep it (StoreCore::purge_confirmed_only).
    core_.set_purge_confirmed_only(options_.receipts);
    // Local commits wake the thread at once; the listener only posts.
    core_.set_commit_listener([this] { inbox_.post_commit(); });
    try {
        thread_ = std::thread([this] { run(); });
    } catch (...) {
        // No thread (the system is at its thread limit): leave the store as
        // it was; Publisher::start reports kResourceExhausted.
        core_.set_commit_listener(nullptr);
        core_.set_purge_confirmed_only(false);
        throw;
    }
}

Status publish::PublisherImpl::stop(std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    if (stopped_) return Status::ok();
    stopped_ = true;
    stop_timeout_ = timeout;
    inbox_.post_stop();
    if (thread_.joinable()) thread_.join();
    core_.set_commit_listener(nullptr);
    return stop_result_;
}

PublisherStatus publish::PublisherImpl::status() const {
    PublisherStatus status;
    {
        std::lock_guard<std::mutex> lock(shared_mutex_);
        status = shared_;
    }
    const publish::LatencySampler::Quantiles commit = commit_latency_.quantiles();
    const publish::LatencySampler::Quantiles publish = publish_latency_.quantiles();
    status.commit_to_ack_p50_us = commit.p50;
    status.commit_to_ack_p99_us = commit.p99;
    status.publish_to_ack_p50_us = publish.p50;
    status.publish_to_ack_p99_us = publish.p99;
    return status;
}

void publish::PublisherImpl::share_status() {
    live_.lease_held = lease_.held();
    live_.lease_epoch = lease_.held() ? epoch_ : live_.lease_epoch;
    live_.connected = connected_;
    live_.window = window_.capacity();
    live_.in_flight = window_.in_flight();
    live_.retrying = window_.retrying();
    std::lock_guard<std::mutex> lock(shared_mutex_);
    shared_ = live_;
}

void publish::PublisherImpl::run() {
    pthread_setname_np(pthread_self(), "outpost-pub");
    for (;;) {
        int64_t now = clock_.boot_ms();
        if (!lease_.held() && now >= next_lease_try_ && !take_lease(now)) {
            next_lease_try_ = now + options_.lease_retry.count();
        }
        if (lease_.held()) {
            if (!connected_ && now >= next_connect_) connect(now);
            housekeeping(now);
            if (connected_) fill_window(now);
        }
        OUTPOST_FAULT_POINT("publish.loop");
        live_.loop_heartbeat++;
        share_status();

        now = clock_.boot_ms();
        const int64_t sleep_ms = std::max<int64_t>(0, next_wake(now) - now);
        publish::Mail mail = inbox_.wait(std::chrono::milliseconds(sleep_ms));
        dispatch(mail, clock_.boot_ms());
        if (mail.stop) break;
    }
    const int64_t deadline = clock_.boot_ms() + stop_timeout_.count();
    stop_result_ = drain(deadline);
    share_status();
}

void publish::PublisherImpl::dispatch(const publish::Mail& mail, int64_t now) {
    if (mail.committed) changed_ = true;
    for (const publish::LinkEvent& event : mail.link_events) {
        if (event.kind == publish::LinkEvent::Kind::kOutcome) {
            on_outcome(event.outcome, now);
        } else if (event.kind == publish::LinkEvent::Kind::kMessage) {
            on_link_message(event);
        } else {
            connection_lost(event.cause, now);
        }
    }
    for (const publish::MarkReport& report : mail.marks) on_marks(report, now);
    for (const publish::ConfirmReport& report : mail.confirms) on_confirms(report, now);
}

void publish::PublisherImpl::housekeeping(int64_t now) {
    if (now >= next_poll_) {
        // Another process committed: data_version moves on our reader. Our
        // own commits announce themselves through the commit listener.
        auto version = reader_->query_int("PRAGMA data_version", "polling for commits");
        if (version && *version != data_version_) {
            data_version_ = *version;
            changed_ = true;
        }
        next_poll_ = now + options_.poll_interval.count();
    }
    if (now >= next_rescan_) {
        // Safety net, and the way replayed rows (ids below the cursor) are
        // found: start again from the oldest PENDING row (no PENDING row
        // lies below it, so the SENT rows before it are never read). Busy
        // rows are skipped. Nothing pending: nothing can be stranded.
        probe_backlog(now);
        if (oldest_pending_id_ > 0) rewind_to(oldest_pending_id_);
        live_.rescans++;
        next_rescan_ = now + options_.rescan_interval.count();
    }
    if (now >= next_purge_) {
        auto purged = store_.purge_expired();
        if (!purged) note_store_error(purged.status(), now);
        next_purge_ = now + options_.purge_interval.count();
    }
    if (now >= next_probe_) {
        probe_backlog(now);
        next_probe_ = now + kProbeIntervalMs;
    }
    pick_up_unconfirmed(now);  // receipts
    republish_due(now);
}

int64_t publish::PublisherImpl::next_wake(int64_t now) const {
    int64_t wake = now + kMaxSleepMs;
    if (!lease_.held()) return std::min(wake, next_lease_try_);
    wake = std::min({wake, next_poll_, next_rescan_, next_purge_, next_probe_});
    if (!connected_) return std::min(wake, next_connect_);
    if (auto due = window_.next_due()) wake = std::min(wake, *due);
    if (auto due = next_republish()) wake = std::min(wake, std::max(now, *due));
    // Rows fetched but not yet sent, with room to send them: go on now.
    if (room_for_new_rows() && (!ready_.empty() || more_ || changed_)) wake = now;
    // Untracked SENT rows left and room to track them: look on now.
    if (pickup_.more() && unconfirmed_room() > 0) wake = now;
    return wake;
}

Status publish::PublisherImpl::drain(int64_t deadline) {
    stopping_ = true;
    if (lease_.held()) {
        // Nothing new goes out; wait for the verdicts on what is in flight.
        while (connected_ && window_.in_flight() > 0) {
            const int64_t now = clock_.boot_ms();
            if (now >= deadline) break;
            publish::Mail mail =
                inbox_.wait(std::chrono::milliseconds(std::min(kDrainPollMs, deadline - now)));
            dispatch(mail, clock_.boot_ms());
        }
    }
    const int64_t unanswered = window_.in_flight();
    if (marker_) {
        marker_->finish();  // commits every mark queued so far
        dispatch(inbox_.wait(std::chrono::milliseconds(0)), clock_.boot_ms());
    }
    const int64_t now = clock_.boot_ms();
    if (lease_.held()) {
        say_goodbye(std::chrono::milliseconds(std::clamp<int64_t>(deadline - now, 200, 2000)));
        drop_lease("publisher stopped", now);
    }
    if (unanswered > 0) {
        return Status::error(StatusCode::kTimeout,
                             std::to_string(unanswered) +
                                 " publishes were still unacknowledged at the stop deadline;"
                                 " they stay PENDING and will be published again");
    }
    return Status::ok();
}

}  // namespace outpost
