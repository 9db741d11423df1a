#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz/corpus/<target>/ (seed-*), one small
valid example per shape each parser takes, so that every run starts from
inputs that reach deep into the code. Inputs the fuzzer found and kept
(scripts/fuzz --merge) live beside them under their hash names.
Run from the repository root: python3 fuzz/make_seeds.py"""
import json
import os
import struct

ENVELOPE = open("tests/unit/envelope/golden/alarm_typical.json", "rb").read().strip()
ALARM = {"deviceId": "pump-1", "alarmType": "OVER_TEMP", "severity": "critical",
         "value": 97.5, "unit": "degC", "text": "bearing hot", "idempotencyKey": "k-1"}


def write(target, name, data):
    folder = os.path.join("fuzz", "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())


def compact(document):
    return json.dumps(document, separators=(",", ":"))


def frame(header, body=b""):
    text = compact(header).encode()
    return struct.pack(">ii", 4 + len(text) + len(body), len(text)) + text + body


def fdp_strings(*parts):
    """Front of a FuzzedDataProvider input: ConsumeRandomLengthString ends
    each string at a backslash followed by another character."""
    return b"".join(p.replace(b"\\", b"\\\\") + b"\\n" for p in parts)


# ingest_request: one request line each
write("ingest_request", "ping", '{"op":"ping"}')
write("ingest_request", "status", '{"op":"status"}')
write("ingest_request", "raise", compact({"op": "raise_alarm", "alarm": ALARM}))
write("ingest_request", "raise-minimal",
      compact({"op": "raise_alarm", "alarm": {"deviceId": "d", "alarmType": "A"}}))
write("ingest_request", "raise-cleared", compact({"op": "raise_alarm", "alarm": dict(
    ALARM, eventType="ALARM_CLEARED", value=None, severity="info")}))
write("ingest_request", "repeated-key",
      '{"op":"raise_alarm","alarm":{"deviceId":"a","deviceId":"b","alarmType":"X"}}')

# telemetry_datagram
write("telemetry_datagram", "flat", b"temp\n21.5")
write("telemetry_datagram", "levels", b"site/line-2/pressure\n{\"bar\":3.1}")
write("telemetry_datagram", "binary", b"raw\n\x00\x01\xff")

# rocketmq_frame
write("rocketmq_frame", "request", frame({"code": 105, "language": "CPP", "version": 401,
      "opaque": 7, "flag": 0, "extFields": {"topic": "outpost_alarms"}}))
write("rocketmq_frame", "response", frame({"code": 0, "language": "JAVA", "version": 401,
      "opaque": 7, "flag": 1, "remark": "ok", "extFields": {"msgId": "AC1", "queueId": 3}},
      b'{"brokerDatas":[]}'))
write("rocketmq_frame", "no-ext", frame({"code": 17, "opaque": -1, "remark": None}))

# rocketmq_route
write("rocketmq_route", "two-brokers", compact({
    "brokerDatas": [{"cluster": "c", "brokerName": "broker-b", "brokerAddrs": {"0": "10.0.0.2:10911"}},
                    {"cluster": "c", "brokerName": "broker-a",
                     "brokerAddrs": {"0": "10.0.0.1:10911", "1": "10.0.0.3:10911"}}],
    "queueDatas": [{"brokerName": "broker-b", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6},
                   {"brokerName": "broker-a", "readQueueNums": 2, "writeQueueNums": "2", "perm": 6}]}))
write("rocketmq_route", "read-only", compact({
    "brokerDatas": [{"brokerName": "a", "brokerAddrs": {"1": "10.0.0.9:10911"}}],
    "queueDatas": [{"brokerName": "a", "writeQueueNums": 8, "perm": 4}]}))

# regressions (rocketmq_queue_selection_test.cpp): a huge queue count, a broker twice
write("rocketmq_route", "huge-queue-count", compact({
    "brokerDatas": [{"brokerName": "a", "brokerAddrs": {"0": "x"}}],
    "queueDatas": [{"brokerName": "a", "writeQueueNums": 2147483647, "perm": 6}]}))
write("rocketmq_route", "broker-twice", compact({
    "brokerDatas": [{"brokerName": "a", "brokerAddrs": {"0": "x"}}],
    "queueDatas": [{"brokerName": "a", "writeQueueNums": 2, "perm": 6},
                   {"brokerName": "a", "writeQueueNums": 1, "perm": 6}]}))

# rocketmq_properties
write("rocketmq_properties", "second-separator", b"A\x01x\x01y\x02")
write("rocketmq_properties", "name-twice", b"KEYS\x01one\x02KEYS\x01two\x02")
write("rocketmq_properties", "send", b"KEYS\x01e-1\x02TAGS\x01critical\x02WAIT\x01true\x02")
write("rocketmq_properties", "no-trailer", b"UNIQ_KEY\x01AC10\x02__SHARDINGKEY\x01pump-1")

# daemon_config, bridge_config
write("daemon_config", "example", open("firmware_glue/outpostd.example.json", "rb").read())
write("daemon_config", "minimal",
      compact({"gateway_id": "gw-1", "database": {"path": "/var/lib/outpost/outbox.db"}}))
bridge_minimal = {"mqtt": {"uri": "tcp://127.0.0.1:1883", "client_id": "bridge-1"},
                  "rocketmq": {"name_servers": "127.0.0.1:9876"},
                  "mapping": [{"mqtt_filter": "outpost/+/alarm/+",
                               "rocketmq_topic": "outpost_alarms"}],
                  "quarantine_topic": "outpost_quarantine"}
write("bridge_config", "minimal", compact(bridge_minimal))
write("bridge_config", "full", compact(dict(bridge_minimal,
      mqtt=dict(bridge_minimal["mqtt"], username="b", password="p", topic_filters=["site/#"],
                tls={"ca_file": "/etc/ca.pem", "verify_server": False}),
      rocketmq={"name_servers": ["10.0.0.1:9876", "10.0.0.2:9876"], "max_attempts": 2},
      mapping=[{"mqtt_filter": "site/#", "rocketmq_topic": "site", "tag": "sev-${payload.severity}"}],
      limits={"max_payload_bytes": 1000, "max_messages_per_s": 50.5},
      identity={"device_level": -1},
      status={"file": "/run/b.json", "interval_ms": 500}, dedupe_capacity=10)))

# bridge_delivery: tag, topic, then the payload; the last byte is the
# boolean "redelivered".
write("bridge_delivery", "forwarded",
      fdp_strings(b"${payload.severity}", b"outpost/gw-1/alarm/pump-1") + ENVELOPE + b"\x00")
write("bridge_delivery", "wrong-gateway",
      fdp_strings(b"${eventType}", b"outpost/gw-2/alarm/pump-1") + ENVELOPE + b"\x01")
