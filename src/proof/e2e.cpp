#include "proof/e2e.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common/fault_point.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "proof/bridge_leg.h"
#include "proof/checker.h"
#include "proof/child.h"
#include "proof/consumer_leg.h"
#include "proof/delivery_check.h"
#include "proof/fault_plan.h"
#include "proof/observer.h"
#include "proof/verdict.h"
#include "proof/workload.h"

namespace outpost::torture {
namespace {

constexpr const char* kDbName = "gateway.db";
constexpr uint64_t kQuota = 64ull * 1024 * 1024;
// How long a gateway may take to drain its outbox, and the subscriber to
// see the last PUBACKed alarm: far above what either needs (a few hundred
// ms); reaching it is reported as the failure it is.
constexpr std::chrono::seconds kDrainLimit{60};
constexpr std::chrono::seconds kArrivalLimit{30};
// RocketMQ is read with mqadmin (a JVM start each look): a slower poll.
constexpr std::chrono::seconds kRocketMqLimit{180};

// Every SENT row stays: the subscriber's events are looked up in the
// database at the end, so nothing may be purged (store.mid_purge is the
// kill campaign's, which tracks purges).
StoreOptions gateway_store_options() {
    StoreOptions options = torture_store_options(kQuota, "");
    options.sent_retention = std::chrono::hours(24 * 365);
    return options;
}

PublisherOptions gateway_publisher_options(const std::string& broker_uri) {
    PublisherOptions options;
    options.broker_uri = broker_uri;
    options.client_id = "outpost-torture-gateway";
    options.connect_timeout = std::chrono::seconds(2);
    options.reconnect_initial = std::chrono::milliseconds(20);
    options.reconnect_max = std::chrono::milliseconds(200);
    options.lease_retry = std::chrono::milliseconds(20);
    options.poll_interval = std::chrono::milliseconds(5);
    options.purge_interval = std::chrono::hours(1);
    return options;
}

// The points a gateway child reaches: the store's short-run ones and the
// publisher's. (Checkpoints and purges: --mode kill.)
std::vector<const FaultPointInfo*> gateway_points() {
    return fault_points_where([](const FaultPointInfo& point) {
        const std::string workload = point.workload;
        return (workload == "store" && std::string(point.name) != "store.mid_purge") ||
               workload == "publish";
    });
}

}  // namespace

int e2e_child(const CampaignOptions& options) {
    faults::EvidenceWriter evidence(options.evidence_fd);
    WorkloadPlan plan;
    plan.token_prefix = "e" + std::to_string(options.child_index);
    plan.workers = options.workers;
    plan.alarms = options.alarms_per_run;
    plan.mark_every = 0;  // the publisher marks
    plan.retries = read_retries(options.child_retries);
    auto store = Store::open(options.child_db, gateway_store_options());
    if (!store) {
        std::fprintf(stderr, "outpost-torture child: %s\n", store.status().to_string().c_str());
        return 5;
    }
    auto publisher = Publisher::start(**store, gateway_publisher_options(options.child_broker));
    if (!publisher) {
        std::fprintf(stderr, "outpost-torture child: %s\n", publisher.status().to_string().c_str());
        return 5;
    }
    run_workload(**store, plan, evidence, [] { return false; });
    const bool drained = poll_until(
        [&] {
            auto stats = (*store)->stats();
            return stats && stats->pending == 0;
        },
        kDrainLimit);
    evidence.figure("fault_hits", armed_fault_hits_so_far());
    if (!drained) {
        std::fprintf(stderr, "outpost-torture child: outbox not drained after %lld s: %s\n",
                     static_cast<long long>(kDrainLimit.count()),
                     (*publisher)->status().last_error.c_str());
        return 7;
    }
    // A slow stop is no verdict: the drain above already proved delivery.
    (*publisher)->stop().ignore_error("delivery was proved by the drain; stop only tidies up");
    return (*store)->close() ? 0 : 6;
}

int e2e_campaign(const CampaignOptions& options) {
    const std::string scratch = make_scratch_dir(options.dir);
    if (scratch.empty()) {
        std::fprintf(stderr, "outpost-torture: cannot create a scratch directory\n");
        return 2;
    }
    std::string error;
    std::unique_ptr<MqttObserver> observer = MqttObserver::start(scratch, &error);
    if (!observer) {
        std::fprintf(stderr, "outpost-torture e2e: %s\n", error.c_str());
        remove_tree(scratch);
        return 2;
    }
    std::unique_ptr<BridgeLeg> bridge;
    if (!options.rocketmq_env.empty()) {
        bridge = BridgeLeg::start(options, scratch, observer->broker_uri(), &error);
        if (!bridge) {
            std::fprintf(stderr, "outpost-torture e2e: bridge leg: %s\n", error.c_str());
            observer.reset();
            remove_tree(scratch);
            return 2;
        }
    }
    std::unique_ptr<ConsumerLeg> consumer;
    if (bridge && options.consumer) {
        consumer =
            ConsumerLeg::start(options, scratch, bridge->name_servers(), bridge->topic(), &error);
        if (!consumer) {
            std::fprintf(stderr, "outpost-torture e2e: consumer leg: %s\n", error.c_str());
            bridge.reset();
            observer.reset();
            remove_tree(scratch);
            return 2;
        }
    }
    const std::string db = scratch + "/" + kDbName;
    const std::string retry_file = scratch + "/retries.txt";
    std::printf(
        "outpost-torture e2e: seed=%llu kills=%llu workers=%d alarms-per-run=%d broker=%s dir=%s\n",
        static_cast<unsigned long long>(options.seed),
        static_cast<unsigned long long>(options.cuts), options.workers, options.alarms_per_run,
        observer->broker_uri().c_str(), scratch.c_str());
    if (bridge) std::printf("bridge leg: RocketMQ topic %s\n", bridge->topic().c_str());
    std::fflush(stdout);

    Totals totals;
    faults::EvidenceLog log;
    FaultPlanner planner(gateway_points(), options.seed);
    const uint64_t max_runs = options.cuts * 4 + 2 * planner.points().size();
    std::vector<std::string> problems;
    auto run_gateway = [&](uint64_t run,
                           const std::vector<std::pair<std::string, std::string>>& env) {
        write_retries(retry_file, log);
        log.clear_figures();
        return run_child(
            {"--child", "e2e", "--child-index", std::to_string(run), "--seed",
             std::to_string(options.seed), "--workers", std::to_string(options.workers),
             "--alarms-per-run", std::to_string(options.alarms_per_run), "--child-db", db,
             "--child-retries", retry_file, "--child-broker", observer->broker_uri()},
            env, log);
    };
    uint64_t run = 0;
    uint64_t gateway_kills = 0;
    for (; run < max_runs && totals.cuts < options.cuts && problems.empty(); ++run) {
        const unsigned long hit = planner.hit(run);
        const std::string fault = planner.fault(run);
        const ChildExit exit = run_gateway(run, {{"OUTPOST_FAULT", fault}});
        totals.runs++;
        if (bridge) {
            const std::string ended = bridge->tend();
            if (!ended.empty()) problems.push_back(ended);
        }
        if (consumer) {
            const std::string ended = consumer->tend();
            if (!ended.empty()) problems.push_back(ended);
        }
        if (exit.killed_by(SIGKILL)) {
            gateway_kills++;
            planner.killed(run);
        } else if (exit.exited && exit.code == 0 && exit.error.empty()) {
            auto hits = log.figures().find("fault_hits");
            planner.not_killed(run, hit, hits == log.figures().end() ? 0 : hits->second);
        } else {
            problems.push_back("gateway child " + exit.describe());
        }
        totals.cuts =
            gateway_kills + (bridge ? bridge->kills() : 0) + (consumer ? consumer->kills() : 0);
        const faults::CheckReport report = faults::check_database(db, log);
        totals.add_failures(report);
        for (const std::string& line : report.problems) problems.push_back(line);
        if (options.verbose) {
            std::printf("run %llu OUTPOST_FAULT=%s: %s; %s\n", static_cast<unsigned long long>(run),
                        fault.c_str(), exit.describe().c_str(), report.summary().c_str());
        }
        if (!problems.empty()) {
            std::printf("FAIL e2e run %llu: OUTPOST_FAULT=%s (%s)\n",
                        static_cast<unsigned long long>(run), fault.c_str(),
                        planner.point(run).where);
        }
    }
    faults::DeliveryReport delivery;
    faults::DeliveryReport rocketmq;
    faults::DeliveryReport applied;
    if (problems.empty()) {
        // The restart that drains: no fault armed, the publisher must empty
        // the outbox and the subscriber must see every acknowledged alarm.
        const ChildExit exit = run_gateway(run, {});
        totals.runs++;
        if (!exit.exited || exit.code != 0 || !exit.error.empty()) {
            problems.push_back("FAIL draining gateway child " + exit.describe());
        }
        const faults::CheckReport report = faults::check_database(db, log);
        totals.add_failures(report);
        totals.add_figures(report);
        totals.add_in_doubt(report);
        for (const std::string& line : report.problems) problems.push_back(line);
        poll_until(
            [&] {
                delivery =
                    faults::check_delivery(db, log, "mqtt subscriber", observer->arrivals(), true);
                return delivery.not_seen == 0 || !observer->healthy();
            },
            kArrivalLimit);
        totals.lost += delivery.lost();
        totals.phantom += delivery.phantom;
        totals.duplicates += delivery.duplicates;
        for (const std::string& line : delivery.problems) problems.push_back(line);
        if (bridge) {
            rocketmq = faults::check_delivery(
                db, log, "rocketmq", bridge->settle(log.acknowledged_event_ids(), kRocketMqLimit),
                true);
            totals.lost += rocketmq.lost();
            totals.phantom += rocketmq.phantom;
            totals.duplicates += rocketmq.duplicates;
            for (const std::string& line : rocketmq.problems) problems.push_back(line);
        }
        if (consumer) {
            check_consumer(*consumer, db, log, kRocketMqLimit, &totals, &applied, &problems);
        }
        if (!observer->healthy()) {
            problems.push_back("the broker or the subscriber died: " +
                               observer->describe_failure());
        }
    }
    if (!problems.empty()) {
        totals.failed_runs++;
        if (totals.ok()) totals.integrity_failures++;  // failed outside the checks
        print_campaign_failure("e2e", options, scratch, totals.cuts, problems);
    }
    std::printf("kills per point:%s\n", planner.kills_per_point().c_str());
    std::printf("mqtt subscriber: %s\n", delivery.summary().c_str());
    if (bridge) {
        std::printf("bridge kills per point:%s\n", bridge->kills_per_point().c_str());
        std::printf("rocketmq: %s\n", rocketmq.summary().c_str());
        if (!problems.empty()) std::printf("bridge log (tail):\n%s\n", bridge->log_tail().c_str());
    }
    if (consumer) {
        std::printf("consumer kills per point:%s\n", consumer->kills_per_point().c_str());
        std::printf("consumer database: %s; redeliveries dropped as applied %llu\n",
                    applied.summary().c_str(),
                    static_cast<unsigned long long>(consumer->redeliveries_dropped()));
        if (!problems.empty()) {
            std::printf("consumer log (tail):\n%s\n", consumer->log_tail().c_str());
        }
    }
    consumer.reset();
    bridge.reset();
    if (problems.empty()) print_kill_shortfall(options, totals.cuts, totals.runs);
    observer.reset();
    if (problems.empty() || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n", totals.detail_line().c_str(), totals.final_line().c_str());
    return totals.ok() && problems.empty() && totals.cuts >= options.cuts ? 0 : 1;
}

}  // namespace outpost::torture
