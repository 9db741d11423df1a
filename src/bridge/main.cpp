// outpost-bridge: MQTT v5 shared subscription -> RocketMQ, acknowledging each
// MQTT message only after RocketMQ answered SEND_OK. See --help.
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "bridge/config.h"
#include "bridge/config_keys.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/mqtt_session.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "bridge/mqtt/receipt_sender.h"
#include "bridge/mqtt/session_group.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/ops/metrics.h"
#include "bridge/ops/stall_detector.h"
#include "bridge/ops/status_reporter.h"
#include "bridge/ops/watchdog.h"
#include "bridge/ops/weakened_security.h"
#include "bridge/processes/session_child.h"
#include "bridge/processes/session_processes.h"
#include "bridge/rocketmq/broker_durability_watch.h"
#include "bridge/rocketmq/rocketmq_security.h"
#include "bridge/rocketmq/rocketmq_sink.h"
#include "bridge/stop_signal.h"
#include "common/child_supervisor.h"
#include "common/listen_address.h"
#include "common/metrics_server.h"
#include "common/sd_notify.h"
#include "common/service_arguments.h"
#include "common/service_log.h"
#include "common/stop_signals.h"

namespace {

using namespace outpost::bridge;
using outpost::log_error;
using outpost::log_info;
using outpost::log_warning;
using outpost::set_log_tag;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

const char* const kHelpUsage = R"(usage: outpost-bridge --config FILE [--check-config]
       outpost-bridge --help

Subscribes to the gateways' alarm events over MQTT v5 (QoS 1, persistent
session, shared subscription $share/<group>/<filter>), validates each
envelope, and sends it to RocketMQ with KEYS = eventId, the tag from the
mapping rule, and the queue chosen by deviceId. The MQTT acknowledgement is
sent only after RocketMQ answered SEND_OK. Invalid messages go to the
quarantine topic (TAGS = reason) and are then acknowledged. While RocketMQ
is unreachable the bridge holds the current message unacknowledged and
retries; nothing is dropped.

options:
  --config FILE    JSON configuration (below)
  --check-config   validate FILE, print a summary, exit 0 (valid) or 2
  --help           this text

configuration (defaults shown; "*" marks a required key, shown with an example; an absent
object keeps its defaults; unknown fields are errors; docs/reference/outpost-bridge.md has each
key in full):
)";

// After the configuration's skeleton (bridge/config_keys.h).
const char* const kHelpNotes = R"(
receipts: after SEND_OK (or for a duplicate this instance stored) the
eventId goes back to its gateway on "<prefix>/<gatewayId>/receipt" (QoS 1,
{"v":1,"eventIds":[...]}, up to max_ids per message, flushed within
flush_ms), over a second connection "<client_id>-receipts". Best effort:
never delays forwarding; what cannot be sent is counted and dropped, and
the gateway publishes it again. Broker ACL for the bridge:
"topic write outpost/+/receipt". A quarantined message whose eventId is
readable is answered too, to the gateway of its topic:
{"v":2,"rejected":[{"eventId":...,"code":"<quarantine reason>","text":...}]}
in messages of their own; the gateway makes that row DEAD with the reason.
The default topic_filters take application events (outpost/+/event/+) too:
without a mapping rule for them they are quarantined as unmapped_topic and
answered, so a gateway waiting for receipts never waits for them forever.

identity: the envelope's gatewayId must equal topic level gateway_level
(deviceId: device_level, -1 = no check). With the shipped broker
configuration (deploy/mosquitto, docs/security.md) that level is the
authenticated gateway. No MQTT user property is trusted as an identity:
brokers pass through the ones a publisher sets.

quarantine reasons (TAGS and OUTPOST_REASON property): payload_too_large,
invalid_utf8, malformed_json, json_too_deep, schema_violation,
gateway_mismatch, device_mismatch, unmapped_topic, rocketmq_rejected.

status: every status.interval_ms one JSON line on stderr (and in status.file,
replaced atomically), e.g.
{"ts_ms":..,"uptime_s":..,"mqtt_connected":true,"mqtt_connects":1,"received":120,
 "redelivered":3,"forwarded":110,"duplicates_suppressed":2,"paced":0,
 "quarantined":{"total":8,"schema_violation":5,..},
 "rocketmq_errors":{"total":4,"16:NO_PERMISSION":1,"none:unavailable":2,"none:timeout":1},
 "holding":false,"held_ms_max":1234,"send_latency_ms":{"count":118,"p50":1.7,"p99":9.5}}
A final line is written at exit. "rocketmq_brokers" tells, per RocketMQ
broker, its flushDiskType and brokerRole and whether SEND_OK is durable
(read at start and every minute; not durable or unknown is also logged as
a warning once; docs/operations/bridge.md).

metrics: with metrics.listen ("127.0.0.1:9465"; "" = off; a non-loopback
address needs allow_non_loopback), GET /metrics answers the Prometheus text
format: outpost_bridge_forwarded_total, _quarantined_total{reason},
_duplicates_suppressed_total, _rocketmq_errors_total{code,name},
_send_latency_seconds (histogram), _mqtt_connected{client_id}, _holding,
_held_longest_seconds, _in_hand, _rocketmq_broker_durable{broker} (1, 0,
-1 unknown) and more (docs/reference/metrics.md).

systemd: with Type=notify, READY=1 is sent once the configuration is loaded,
the metrics endpoint listens and the MQTT session started; STATUS= carries
the figures. Under WatchdogSec, WATCHDOG=1 is sent every WatchdogSec/2 only
while forwarding is not stalled: stalled means a message is in hand and
neither a SEND_OK nor a failed RocketMQ answer came for 2 x
(send_timeout_ms x max_attempts + retry_pause_max_ms). Idle, or retrying
while RocketMQ is down, is not stalled.

signals: SIGTERM/SIGINT stop the bridge. A message held for RocketMQ at that
moment is left unacknowledged (the broker redelivers it); the process then
exits without a clean MQTT DISCONNECT.

sessions > 1: this process supervises one process per session (the same
binary), each with its own MQTT session, RocketMQ producer, duplicate cache
and receipt connection "<its client id>-receipts"; a process that dies is
started again (backoff between reconnect_min_ms and reconnect_max_ms). The
status line, metrics and systemd notifications are this process's: totals
over all sessions, mqtt_sessions per client id, "session_processes" with
restarts and pids. READY=1 once every session is connected (or after
connect_timeout_s); WATCHDOG=1 only while no session process is stalled;
SIGTERM stops every session process as above.

exit status: 0 stopped, 1 runtime failure, 2 usage or configuration error.
)";

void print_summary(const BridgeConfig& config) {
    std::printf(
        "configuration OK\n  mqtt %s as %s, group %s, %zu filter(s), session %u s, %d session(s), "
        "%d retired\n",
        config.mqtt.endpoint.uri.c_str(), config.mqtt.endpoint.client_id.c_str(),
        config.mqtt.shared_group.c_str(), config.mqtt.topic_filters.size(),
        config.mqtt.session_expiry_s, config.mqtt.sessions, config.mqtt.retired_sessions);
    std::printf("  rocketmq %s, group %s\n", config.rocketmq.name_servers.c_str(),
                config.rocketmq.producer_group.c_str());
    if (uses_batched_path(config)) {
        std::printf("  batches of up to %d messages, %zu bytes, linger %d ms\n",
                    config.batch.max_messages, config.batch.max_bytes, config.batch.linger_ms);
    } else {
        std::printf("  one message per request\n");
    }
    for (const MappingRule& rule : config.mapping) {
        std::printf("  %s -> %s tag %s\n", rule.mqtt_filter.c_str(), rule.rocketmq_topic.c_str(),
                    rule.tag.c_str());
    }
    std::printf("  quarantine -> %s\n", config.quarantine_topic.c_str());
}

// Starts the metrics endpoint of metrics.listen over `source` into *server
// (left empty when off). False, logged, when it cannot listen.
bool start_metrics(const BridgeConfig& config, const FiguresSource& source,
                   std::unique_ptr<outpost::MetricsServer>* server) {
    if (config.metrics.listen.empty()) return true;
    // parse_bridge_config checked the address; binding can still fail.
    auto address = outpost::parse_listen_address(config.metrics.listen);
    auto started = outpost::MetricsServer::start(
        *address, [&source] { return render_bridge_metrics(source.figures()); });
    if (!started.is_ok()) {
        log_error(started.status().with_context("metrics.listen").to_string());
        return false;
    }
    *server = std::move(*started);
    log_info("metrics at http://" + (*server)->bound_address() + "/metrics");
    return true;
}

// Runs the bridge until a stop signal or a fatal error. Does not return when
// a message is held unacknowledged (std::_Exit, see mqtt_session.h).
// `stats_fd` >= 0: as a session process (session_child.h), reporting there.
// `retired_ids`: the client ids this process drains and ends
// (mqtt.retired_sessions; SessionGroup::create).
int run_bridge(const BridgeConfig& config, int stats_fd,
               const std::vector<std::string>& retired_ids) {
    // Signals are read from a signalfd below; every thread created from here
    // on (paho's included) inherits the mask.
    const sigset_t stop_signals = outpost::block_stop_signals();
    // The main thread sleeps until a stop signal arrives or the session ends
    // (it writes session_done): no polling.
    const int signals = ::signalfd(-1, &stop_signals, SFD_CLOEXEC);
    const int session_done = ::eventfd(0, EFD_CLOEXEC);
    if (signals < 0 || session_done < 0) {
        log_error(std::string("cannot wait for signals: ") + std::strerror(errno));
        return kExitFailure;
    }

    BridgeStats stats;
    StopSignal stop;
    outpost::Result<outpost::rocketmq::ClientSecurity> security =
        load_rocketmq_security(config.rocketmq);
    if (!security.is_ok()) {
        log_error(security.status().message());
        return kExitUsage;
    }
    RocketMqSink sink(config.rocketmq, *security);  // one producer shared by all sessions
    auto delivery = Delivery::create(config, sink, stats, stop);
    if (!delivery.is_ok()) {
        log_error(delivery.status().to_string());
        return kExitUsage;
    }
    auto sessions = SessionGroup::create(config, retired_ids, **delivery, stats, stop);
    if (!sessions.is_ok()) {
        log_error(sessions.status().to_string());
        return kExitUsage;
    }
    // Receipts: their own connection and thread; see receipt_sender.h.
    std::unique_ptr<MqttReceiptSender> receipt_sender;
    std::unique_ptr<ReceiptBatcher> receipts;
    if (config.receipts.enabled) {
        auto sender = make_receipt_sender(config.mqtt);
        if (!sender.is_ok()) {
            log_error(sender.status().to_string());
            return kExitUsage;
        }
        receipt_sender = std::move(sender).value();
        receipts = std::make_unique<ReceiptBatcher>(config.receipts, *receipt_sender);
        (*delivery)->attach_receipts(*receipts);
        stats.set_receipt_source([&receipts, &receipt_sender] {
            const ReceiptCounts counts = receipts->counts();
            const ReceiptAcks acks = receipt_sender->acks();
            return BridgeStats::ReceiptFigures{
                counts.ids_offered,     counts.ids_sent, counts.ids_dropped, counts.messages_sent,
                counts.messages_failed, acks.acked,      acks.failed,
                counts.rejections_offered};
        });
    }
    const FiguresWithSettings settings(stats, config);
    // A session process leaves the broker survey to its supervisor.
    std::unique_ptr<BrokerDurabilityWatch> brokers;
    if (stats_fd < 0) {
        brokers = std::make_unique<BrokerDurabilityWatch>(settings, config, *security);
    }
    const FiguresSource& shown = brokers ? static_cast<const FiguresSource&>(*brokers) : settings;
    StatusReporter reporter(config.status, shown);
    std::unique_ptr<outpost::MetricsServer> metrics;
    if (!start_metrics(config, shown, &metrics)) return kExitFailure;
    const outpost::Notifier notifier;
    Watchdog watchdog(notifier, stats, stall_limit_for(config),
                      std::chrono::milliseconds(config.status.interval_ms));
    log_info("starting: " + config.mqtt.endpoint.uri + " -> RocketMQ " +
             config.rocketmq.name_servers);

    (*sessions)->start([session_done] {
        const uint64_t one = 1;
        (void)!::write(session_done, &one, sizeof one);
    });
    std::unique_ptr<FiguresPipe> figures_pipe;
    if (stats_fd >= 0) {
        // A broken pipe means the supervising bridge is gone: stop as on SIGTERM.
        figures_pipe =
            std::make_unique<FiguresPipe>(stats_fd, stats, [] { ::kill(::getpid(), SIGTERM); });
    }
    if (auto sent = notifier.send("READY=1"); !sent.is_ok()) log_warning(sent.message());
    pollfd wake[2] = {{signals, POLLIN, 0}, {session_done, POLLIN, 0}};
    while (::poll(wake, 2, -1) < 0 && errno == EINTR) {
    }
    signalfd_siginfo received{};
    if ((wake[0].revents & POLLIN) && ::read(signals, &received, sizeof received) > 0) {
        log_info(std::string("stopping on ") + strsignal(static_cast<int>(received.ssi_signo)));
    }
    (void)notifier.send("STOPPING=1");
    stop.request_stop();
    // Each run() ends within one send plus the disconnect bound, unless it is
    // stuck in a paho call behind a held callback: then leave without it.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(config.rocketmq.send_timeout_ms) *
                              (config.rocketmq.max_attempts + 1) +
                          std::chrono::seconds(10);
    const std::optional<SessionEnd> end = (*sessions)->wait_all(deadline);
    if (figures_pipe) figures_pipe->report();
    if (end == SessionEnd::kClean) {
        sessions->reset();  // joins the session threads
        ::close(signals);
        ::close(session_done);
        reporter.report();
        log_info("stopped");
        return kExitOk;
    }
    reporter.report();
    const bool fatal = end == SessionEnd::kFatal;
    log_warning(fatal ? "exiting after a failure in the message callback; the message in hand "
                        "stays unacknowledged"
                      : "exiting with a message held unacknowledged; the broker redelivers it");
    std::_Exit(fatal ? kExitFailure : kExitOk);  // no destructors: paho is blocked (see header)
}

// mqtt.sessions > 1: supervises one session process per session
// (session_processes.h) and answers for them all: status, metrics, systemd.
int run_supervisor(const BridgeConfig& config, const std::string& config_path) {
    const sigset_t stop_signals = outpost::block_stop_signals();
    const int signals = ::signalfd(-1, &stop_signals, SFD_CLOEXEC);
    if (signals < 0) {
        log_error(std::string("cannot wait for signals: ") + std::strerror(errno));
        return kExitFailure;
    }
    outpost::Result<outpost::rocketmq::ClientSecurity> security =
        load_rocketmq_security(config.rocketmq);
    if (!security.is_ok()) {
        log_error(security.status().message());
        return kExitUsage;
    }
    const std::string program = outpost::own_program();
    if (program.empty()) {
        log_error("cannot read /proc/self/exe to start the session processes");
        return kExitFailure;
    }
    log_info("starting " + std::to_string(config.mqtt.sessions) + " session processes: " +
             config.mqtt.endpoint.uri + " -> RocketMQ " + config.rocketmq.name_servers);
    auto processes = SessionProcesses::start(config, program, config_path);
    if (!processes.is_ok()) {
        log_error(processes.status().to_string());
        return kExitFailure;
    }
    const SessionProcesses& totals = **processes;
    const FiguresWithSettings settings(totals, config);
    // The session processes' brokers, surveyed once for them all.
    const BrokerDurabilityWatch shown(settings, config, *security);
    StatusReporter reporter(config.status, shown);
    std::unique_ptr<outpost::MetricsServer> metrics;
    if (!start_metrics(config, shown, &metrics)) return kExitFailure;
    const outpost::Notifier notifier;
    Watchdog watchdog(notifier, totals, stall_limit_for(config),
                      std::chrono::milliseconds(config.status.interval_ms));
    // READY=1 once every session is connected; a broker down at boot must
    // not fail the unit, so after connect_timeout_s READY=1 is sent anyway.
    const auto ready_by = std::chrono::steady_clock::now() + config.mqtt.endpoint.connect_timeout;
    pollfd wake{signals, POLLIN, 0};
    bool signalled = false;
    while (!totals.all_connected() && std::chrono::steady_clock::now() < ready_by) {
        if (::poll(&wake, 1, 50) > 0) {
            signalled = true;
            break;
        }
    }
    if (auto sent = notifier.send("READY=1"); !sent.is_ok()) log_warning(sent.message());
    while (!signalled && ::poll(&wake, 1, -1) < 0 && errno == EINTR) {
    }
    signalfd_siginfo received{};
    if (::read(signals, &received, sizeof received) > 0) {
        log_info(std::string("stopping on ") + strsignal(static_cast<int>(received.ssi_signo)));
    }
    (void)notifier.send("STOPPING=1");
    (*processes)->stop();
    reporter.report();
    ::close(signals);
    log_info("stopped");
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    // Info and up, to stderr ("<N>" priorities when that is the journal).
    outpost::configure_log("outpost-bridge", outpost::LogLevel::kInfo, false);
    bool child_usage_error = false;
    const std::optional<SessionChildArguments> child =
        parse_session_child_arguments(argc, argv, &child_usage_error);
    if (child_usage_error) {
        std::fprintf(stderr,
                     "outpost-bridge: usage (session process): --config FILE --session I "
                     "--stats-fd N\n");
        return kExitUsage;
    }
    if (child) {
        // Only the supervising process talks to systemd.
        ::unsetenv("NOTIFY_SOCKET");
        ::unsetenv("WATCHDOG_USEC");
        ::unsetenv("WATCHDOG_PID");
        outpost::Result<BridgeConfig> config = load_bridge_config(child->config_path);
        if (!config.is_ok() || child->index >= config->mqtt.sessions) {
            std::fprintf(stderr, "outpost-bridge: session process %d: %s\n", child->index,
                         config.is_ok() ? "no such session" : config.status().message().c_str());
            return kExitUsage;
        }
        set_log_tag("session " + std::to_string(child->index));
        // Session process 0 also drains the retired ids: they share its paho
        // receive thread only while there is something left to drain.
        return run_bridge(
            session_child_config(*config, child->index), child->stats_fd,
            child->index == 0 ? retired_client_ids(config->mqtt) : std::vector<std::string>{});
    }
    int exit_code = kExitOk;
    // A named default configuration: GCC 12 at -O3 takes the default
    // argument's temporary for uninitialized (-Wmaybe-uninitialized).
    const BridgeConfig defaults;
    const std::string help = std::string(kHelpUsage) +
                             outpost::render_config_skeleton(bridge_config_keys(defaults)) +
                             kHelpNotes;
    const std::optional<outpost::ServiceArguments> arguments = outpost::parse_service_arguments(
        argc, argv, "outpost-bridge", help.c_str(), nullptr, &exit_code);
    if (!arguments) return exit_code;
    outpost::Result<BridgeConfig> config = load_bridge_config(arguments->config_path);
    if (!config.is_ok()) {
        std::fprintf(stderr, "outpost-bridge: %s\n", config.status().message().c_str());
        return kExitUsage;
    }
    for (const std::string& warning :
         weakened_security_warnings(*config, arguments->config_path)) {
        log_warning(warning);
    }
    if (arguments->check_only) {
        // The secret and TLS files are part of the configuration: check them too.
        if (auto security = load_rocketmq_security(config->rocketmq); !security.is_ok()) {
            std::fprintf(stderr, "outpost-bridge: %s\n", security.status().message().c_str());
            return kExitUsage;
        }
        print_summary(*config);
        return kExitOk;
    }
    if (config->mqtt.sessions > 1) return run_supervisor(*config, arguments->config_path);
    return run_bridge(*config, -1, retired_client_ids(config->mqtt));
}
