// outpost-bridge's figures for Prometheus (GET /metrics on metrics.listen),
// in the conventions outpostd follows (common/prometheus_text.h), every
// family named outpost_bridge_*:
//   received, redelivered, forwarded, duplicates_suppressed    counters
//   quarantined_total{reason}        one series per quarantine reason, 0 included
//   rocketmq_errors_total{code,name} failed RocketMQ sends by the response
//                                    code RocketMQ answered with
//                                    ({code="16",name="NO_PERMISSION"}), or
//                                    code="none" with the failure's class when
//                                    no answer came (rocketmq_error_label.h)
//   send_latency_seconds             histogram, first send to SEND_OK
//   mqtt_connected{client_id}        1 per connected MQTT session; several
//                                    sessions add label values, not families
//   tls_verify_disabled{leg}         1 when the mqtt or rocketmq leg accepts
//                                    any server certificate
//   rocketmq_broker_durable{broker}  1 / 0 / -1: the broker's SEND_OK is
//                                    durable, not, unknown (once surveyed;
//                                    broker_durability_watch.h)
//   holding, held_longest_seconds    a message held unacknowledged while
//                                    RocketMQ fails, and the longest such hold
//   in_hand                          received and not yet settled (the watchdog's
//                                    "work pending")
//   session_process_restarts_total   only with session processes
//                                    (session_processes.h)
#ifndef OUTPOST_BRIDGE_OPS_METRICS_H
#define OUTPOST_BRIDGE_OPS_METRICS_H

#include <string>

#include "bridge/ops/bridge_stats.h"

namespace outpost::bridge {

std::string render_bridge_metrics(const BridgeFigures& figures);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_METRICS_H
