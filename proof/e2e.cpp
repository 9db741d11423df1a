#include "proof/e2e.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/fault_point.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "proof/bridge_leg.h"
#include "proof/broker_faults.h"
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

constexpr const char* kGatewayDbName = "gateway.db";
constexpr uint64_t kQuota = 64ull * 1024 * 1024;
// How long a gateway may take to drain its outbox, and the subscriber to
// see the last PUBACKed alarm: far above what either needs (a few hundred
// ms); reaching it is reported as the failure it is.
constexpr std::chrono::seconds kDrainLimit{60};
// With receipts, the last run also waits for every row's confirmation.
// Earlier runs end when their outbox is drained, so the rows that broker
// faults lost wait for it: the publisher finds unconfirmed rows of an
// earlier run at 256 a second (publisher_receipts.cpp), about 2.6 minutes
// for 40,000, which a 500-fault soak can leave.
constexpr std::chrono::seconds kConfirmLimit{600};
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

PublisherOptions gateway_publisher_options(const std::string& broker_uri, bool receipts) {
    PublisherOptions options;
    // Receipts with a short timeout, so a run republishes within it what a
    // broker fault lost. No bound on unconfirmed rows that a bridge kept
    // down for a whole run could reach: this campaign is about loss.
    options.receipts = receipts;
    options.receipt_timeout = std::chrono::milliseconds(500);
    options.receipt_timeout_max = std::chrono::seconds(2);
    options.max_unconfirmed = 1000000;
    options.endpoint.uri = broker_uri;
    options.endpoint.client_id = "outpost-torture-gateway";
    options.endpoint.connect_timeout = std::chrono::seconds(2);
    options.endpoint.reconnect_initial = std::chrono::milliseconds(20);
    options.endpoint.reconnect_max = std::chrono::milliseconds(200);
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
    auto publisher = Publisher::start(
        **store, gateway_publisher_options(options.child_broker, options.child_receipts));
    if (!publisher) {
        std::fprintf(stderr, "outpost-torture child: %s\n", publisher.status().to_string().c_str());
        return 5;
    }
    run_workload(**store, plan, evidence, [] { return false; });
    const bool await_receipts = options.child_await_receipts;
    const bool drained = poll_until(
        [&] {
            auto stats = (*store)->stats();
            return stats && stats->pending == 0 &&
                   (!await_receipts || stats->confirmed == stats->sent);
        },
        await_receipts ? kConfirmLimit : kDrainLimit);
    evidence.figure("fault_hits", armed_fault_hits_so_far());
    if (!drained) {
        std::fprintf(stderr, "outpost-torture child: outbox not %s after %lld s: %s\n",
                     await_receipts ? "drained and confirmed" : "drained",
                     static_cast<long long>((await_receipts ? kConfirmLimit : kDrainLimit).count()),
                     (*publisher)->status().last_error.c_str());
        return 7;
    }
    // A slow stop is no verdict: the drain above already proved delivery.
    (*publisher)->stop().ignore_error("delivery was proved by the drain; stop only tidies up");
    return (*store)->close() ? 0 : 6;
}

int e2e_campaign(const CampaignOptions& options) {
    if (options.broker_faults > 0 && options.rocketmq_env.empty()) {
        std::printf(
            "SKIP outpost-torture e2e: --broker-faults needs the bridge leg (RocketMQ: "
            "OUTPOST_ROCKETMQ_ENV or --rocketmq)\n");
        return 77;
    }
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
    std::unique_ptr<BrokerFaults> broker_faults;
    if (bridge && options.broker_faults > 0) {
        broker_faults = std::make_unique<BrokerFaults>(options.seed, *observer, *bridge);
    }
    // Receipts need the bridge that sends them.
    const bool receipts = bridge && options.receipts;
    // A killed broker forgets what it had not yet passed to the subscriber:
    // then the subscriber proves only D2 (nothing phantom), and RocketMQ and
    // the confirmations prove delivery.
    const bool subscriber_sees_all = !broker_faults;
    const std::string db = scratch + "/" + kGatewayDbName;
    const std::string retry_file = scratch + "/retries.txt";
    std::printf(
        "outpost-torture e2e: seed=%llu kills=%llu workers=%d alarms-per-run=%d broker=%s dir=%s\n",
        static_cast<unsigned long long>(options.seed),
        static_cast<unsigned long long>(options.cuts), options.workers, options.alarms_per_run,
        observer->broker_uri().c_str(), scratch.c_str());
    if (bridge) {
        std::printf("bridge leg: RocketMQ topic %s, gateway receipts %s, broker faults %llu\n",
                    bridge->topic().c_str(), receipts ? "on" : "off",
                    static_cast<unsigned long long>(options.broker_faults));
    }
    std::fflush(stdout);

    Totals totals;
    faults::EvidenceLog log;
    FaultPlanner planner(gateway_points(), options.seed);
    const uint64_t max_runs =
        options.cuts * 4 + 2 * planner.points().size() + 2 * options.broker_faults;
    std::vector<std::string> problems;
    auto run_gateway = [&](uint64_t run,
                           const std::vector<std::pair<std::string, std::string>>& env, bool last) {
        write_retries(retry_file, log);
        log.clear_figures();
        std::vector<std::string> args = {"--child",          "e2e",
                                         "--child-index",    std::to_string(run),
                                         "--seed",           std::to_string(options.seed),
                                         "--workers",        std::to_string(options.workers),
                                         "--alarms-per-run", std::to_string(options.alarms_per_run),
                                         "--child-db",       db,
                                         "--child-retries",  retry_file,
                                         "--child-broker",   observer->broker_uri()};
        if (receipts) args.push_back("--child-receipts");
        if (receipts && last) args.push_back("--child-await-receipts");
        return run_child(args, env, log);
    };
    auto faults_to_go = [&] {
        return totals.cuts < options.cuts || totals.broker_faults < options.broker_faults;
    };
    uint64_t run = 0;
    uint64_t gateway_kills = 0;
    for (; run < max_runs && faults_to_go() && problems.empty(); ++run) {
        const unsigned long hit = planner.hit(run);
        std::string fault = planner.fault(run);
        if (broker_faults) {
            const std::string started = broker_faults->before_run(run);
            if (!started.empty()) problems.push_back(started);
        }
        const ChildExit exit = run_gateway(run, {{"OUTPOST_FAULT", fault}}, false);
        totals.runs++;
        if (broker_faults) {
            const std::string ended = broker_faults->after_run(run);
            if (!ended.empty()) problems.push_back(ended);
            totals.broker_faults = broker_faults->fired();
            fault += " with " + broker_faults->fault(run);
        }
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
    faults::DeliveryReport confirmed;
    if (problems.empty()) {
        // The restart that drains: no fault armed, the publisher must empty
        // the outbox (with receipts: and see every row confirmed, the bridge
        // running unarmed) and the subscriber must see every acknowledged
        // alarm.
        if (bridge) {
            const std::string ended = bridge->disarm();
            if (!ended.empty()) problems.push_back(ended);
        }
        const ChildExit exit = run_gateway(run, {}, true);
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
                return !subscriber_sees_all || delivery.not_seen == 0 || !observer->healthy();
            },
            kArrivalLimit);
        if (subscriber_sees_all) {
            totals.lost += delivery.lost();
            for (const std::string& line : delivery.problems) problems.push_back(line);
        } else if (delivery.phantom > 0) {
            for (const std::string& line : delivery.problems) {
                if (line.rfind("D2", 0) == 0) problems.push_back(line);
            }
        }
        totals.phantom += delivery.phantom;
        totals.duplicates += delivery.duplicates;
        if (receipts) {
            confirmed = faults::check_confirmed(db, log);
            totals.lost += confirmed.lost();
            for (const std::string& line : confirmed.problems) problems.push_back(line);
        }
        if (bridge) {
            const std::map<std::string, int> stored =
                bridge->settle(log.acknowledged_event_ids(), kRocketMqLimit);
            rocketmq = faults::check_delivery(db, log, "rocketmq", stored, true);
            if (broker_faults && rocketmq.not_seen > 0) {
                std::printf("missing in rocketmq by the broker fault of their run:%s\n",
                            broker_faults->missing_per_fault(log, stored).c_str());
            }
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
    std::printf("mqtt subscriber%s: %s\n", subscriber_sees_all ? "" : " (D2 only)",
                delivery.summary().c_str());
    if (receipts) std::printf("gateway confirmations: %s\n", confirmed.summary().c_str());
    if (broker_faults) {
        std::printf("broker faults per fault:%s\n", broker_faults->fired_per_fault().c_str());
    }
    if (bridge) {
        std::printf("bridge kills per point:%s\n", bridge->kills_per_point().c_str());
        std::printf("rocketmq: %s\n", rocketmq.summary().c_str());
        for (const std::string& line : bridge->broker_settings()) {
            std::printf("rocketmq %s\n", line.c_str());
        }
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
    broker_faults.reset();
    bridge.reset();
    if (problems.empty()) print_kill_shortfall(options, totals.cuts, totals.runs);
    if (problems.empty() && totals.broker_faults < options.broker_faults) {
        std::printf("note: only %llu of %llu broker faults fired in %llu runs\n",
                    static_cast<unsigned long long>(totals.broker_faults),
                    static_cast<unsigned long long>(options.broker_faults),
                    static_cast<unsigned long long>(totals.runs));
    }
    observer.reset();
    if (problems.empty() || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n", totals.detail_line().c_str(), totals.final_line().c_str());
    const bool all_fired =
        totals.cuts >= options.cuts && totals.broker_faults >= options.broker_faults;
    return totals.ok() && problems.empty() && all_fired ? 0 : 1;
}

}  // namespace outpost::torture
