#include "daemon/daemon.h"

#include <unistd.h>

#include <string>

#include "common/child_supervisor.h"
#include "common/service_log.h"
#include "daemon/metrics_textfile.h"
#include "daemon/prometheus.h"

namespace outpost::daemon {
namespace {

// outpost-telemetry from the directory outpostd runs from (both are
// installed into bindir, and built into the same build directory), with
// outpostd's configuration file.
Result<TelemetrySupervisorOptions> telemetry_process(const DaemonConfig& config) {
    if (config.config_path.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "the telemetry process needs the configuration file's path");
    }
    std::string program = own_program();
    if (program.empty()) {
        return Status::error(StatusCode::kIoError, "cannot read /proc/self/exe");
    }
    program = program.substr(0, program.rfind('/') + 1) + "outpost-telemetry";
    TelemetrySupervisorOptions options;
    options.command = {program, "--config", config.config_path};
    options.restart_initial = config.publisher.endpoint.reconnect_initial;
    options.restart_max = config.publisher.endpoint.reconnect_max;
    options.start_timeout = config.publisher.endpoint.connect_timeout + std::chrono::seconds(5);
    return options;
}

ingest::ServerOptions ingest_options(const IngestConfig& config) {
    ingest::ServerOptions options;
    options.socket_path = config.socket_path;
    options.socket_mode = config.socket_mode;
    options.max_clients = config.max_clients;
    options.max_request_bytes = config.max_request_bytes;
    options.idle_timeout = config.idle_timeout;
    return options;
}

// DEAD is loud: one error line per event that turns DEAD, on the publisher
// thread (publisher_options.h: a log line is all it may do there).
void log_dead_event(const DeadEvent& event) {
    log_error("event " + event.event_id + " of device " + event.device_id + " (seq " +
              std::to_string(event.seq) + ") is DEAD after " + std::to_string(event.attempts) +
              " attempt(s): " + event.reason + "; send it again with: outpostctl replay " +
              event.event_id + " --reason TEXT");
}

void log_open_report(const Store& store) {
    const OpenReport& report = store.open_report();
    if (!report.moved_aside_path.empty()) {
        log_error("the database was damaged (" + report.corruption_detail + "); moved aside to " +
                  report.moved_aside_path + ", a fresh one was created");
    }
    if (report.created) {
        log_info("created database " + store.path());
    } else if (report.from_version != report.to_version) {
        log_info("migrated database " + store.path() + " from schema " +
                 std::to_string(report.from_version) + " to " + std::to_string(report.to_version));
    }
}

}  // namespace

Result<std::unique_ptr<Daemon>> Daemon::start(const DaemonConfig& config) {
    std::unique_ptr<Daemon> daemon(new Daemon(config));
    if (Status started = daemon->start_parts(); !started.is_ok()) {
        daemon->stop();
        return started;
    }
    return daemon;
}

Daemon::Daemon(const DaemonConfig& config)
    : config_(config), started_(std::chrono::steady_clock::now()) {}

Daemon::~Daemon() {
    stop();
}

Status Daemon::start_parts() {
    Result<std::unique_ptr<Store>> store = Store::open(config_.database_path, config_.store);
    if (!store.is_ok()) return store.status().with_context("opening the store");
    store_ = std::move(*store);
    log_open_report(*store_);

    PublisherOptions publisher_options = config_.publisher;
    publisher_options.on_dead = log_dead_event;
    Result<std::unique_ptr<Publisher>> publisher = Publisher::start(*store_, publisher_options);
    if (!publisher.is_ok()) return publisher.status().with_context("starting the publisher");
    publisher_ = std::move(*publisher);
    log_info("publishing alarms of gateway " + config_.store.gateway_id + " from " +
             config_.database_path + " to " + config_.publisher.endpoint.uri);

    if (config_.telemetry.enabled) {
        Result<TelemetrySupervisorOptions> process = telemetry_process(config_);
        if (!process.is_ok()) return process.status().with_context("starting the telemetry lane");
        Result<std::unique_ptr<TelemetrySupervisor>> lane = TelemetrySupervisor::start(*process);
        if (!lane.is_ok()) return lane.status().with_context("starting the telemetry lane");
        telemetry_ = std::move(*lane);
        log_info("telemetry lane on in process " + std::to_string(telemetry_->pid()) +
                 (config_.telemetry.datagram_socket.empty()
                      ? std::string(" (no datagram socket)")
                      : ", datagrams at " + config_.telemetry.datagram_socket));
    }

    if (!config_.ingest.socket_path.empty()) {
        auto server = ingest::Server::start(*store_, ingest_options(config_.ingest),
                                            [this] { return status_json(snapshot()); });
        if (!server.is_ok()) return server.status().with_context("starting the alarm socket");
        ingest_ = std::move(*server);
        ingest_view_ = ingest_.get();
        log_info("alarm socket listening at " + config_.ingest.socket_path);
    }

    if (!config_.metrics.listen.empty()) {
        Result<ListenAddress> address = parse_listen_address(config_.metrics.listen);
        if (!address.is_ok()) return address.status().with_context("metrics.listen");
        auto server =
            MetricsServer::start(*address, [this] { return render_prometheus(snapshot()); });
        if (!server.is_ok()) return server.status().with_context(config_.metrics.listen);
        metrics_ = std::move(*server);
        log_info("metrics at http://" + metrics_->bound_address() + "/metrics");
    }
    return Status::ok();
}

DaemonSnapshot Daemon::snapshot() const {
    DaemonSnapshot snapshot;
    snapshot.gateway_id = config_.store.gateway_id;
    snapshot.tls_verify_disabled = verification_disabled(broker_leg_security(config_));
    snapshot.uptime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started_)
                             .count();
    // The publisher first: it counts a SENT or DEAD row only after the
    // store committed it, so the store read next already holds every row the
    // counters name, and a scrape never shows outpost_events_dead_total
    // ahead of outpost_dead (the other order let a commit fall between).
    if (publisher_) snapshot.publisher = publisher_->status();
    if (store_) {
        Result<StoreStats> stats = store_->stats();
        if (stats.is_ok()) {
            snapshot.store = *stats;
        } else {
            snapshot.store_error = stats.status().to_string();
        }
    }
    if (telemetry_) {
        snapshot.telemetry = telemetry_->stats();
        snapshot.telemetry_restarts = telemetry_->restarts();
        snapshot.telemetry_pid = telemetry_->pid();
    }
    if (const ingest::Server* server = ingest_view_.load()) snapshot.ingest = server->stats();
    return snapshot;
}

uint64_t Daemon::publisher_heartbeat() const {
    return publisher_ ? publisher_->status().loop_heartbeat : 0;
}

void Daemon::write_textfile() const {
    if (config_.metrics.textfile.empty()) return;
    Status written =
        write_metrics_textfile(config_.metrics.textfile, render_prometheus(snapshot()));
    if (!written.is_ok()) log_warning(written.message());
}

void Daemon::stop() {
    if (stopped_) return;
    stopped_ = true;
    if (ingest_) {
        ingest_->stop();  // nothing new comes in while the window drains
        log_info("alarm socket closed");
    }
    if (publisher_) {
        Status drained = publisher_->stop(config_.drain_timeout);
        const PublisherStatus last = publisher_->status();
        if (drained.is_ok()) {
            log_info("publisher stopped; " + std::to_string(last.sent) +
                     " events sent since start");
        } else {
            log_warning("publisher stopped before every PUBACK arrived (" + drained.message() +
                        "); those events stay pending and go out again after the restart");
        }
    }
    if (telemetry_) telemetry_->stop();
    if (metrics_) metrics_->stop();
    if (store_) {
        write_textfile();
        if (Result<StoreStats> stats = store_->stats(); stats.is_ok()) {
            log_info("left " + std::to_string(stats->pending) + " alarm events pending and " +
                     std::to_string(stats->dead) + " dead in " + config_.database_path);
        }
        if (Status closed = store_->close(); !closed.is_ok()) {
            log_error("closing the store: " + closed.to_string());
        }
    }
}

}  // namespace outpost::daemon
