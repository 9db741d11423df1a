// The ingestion wire protocol (firmware_glue/ingest-protocol.md), shared by
// the server and its clients (outpostctl): request and answer objects, and
// the error codes that are not store StatusCode names.
#ifndef OUTPOST_INGEST_PROTOCOL_H
#define OUTPOST_INGEST_PROTOCOL_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "outpost/alarm.h"
#include "outpost/status.h"

namespace outpost::ingest {

// Wire error codes of the protocol itself. Store failures use
// status_code_name(): invalid_argument, store_full, disk_full, io_error,
// busy, outcome_unknown, closed, ...
inline constexpr char kInvalidJson[] = "invalid_json";           // not one JSON document
inline constexpr char kInvalidUtf8[] = "invalid_utf8";           // the line is not UTF-8
inline constexpr char kInvalidRequest[] = "invalid_request";     // wrong shape, type, field
inline constexpr char kUnknownOp[] = "unknown_op";               // "op" names no operation
inline constexpr char kRequestTooLarge[] = "request_too_large";  // line over the limit
inline constexpr char kInternal[] = "internal";                  // a bug; the message says where

struct WireError {
    std::string code;
    std::string message;
};

// Reads the "alarm" object of a raise_alarm request. Field names follow the
// envelope: deviceId and alarmType (required strings), eventType, severity
// (a severity_name()), value (number or null), unit, text, idempotencyKey.
// Unknown fields are refused so that a typo ("device_id") cannot silently
// drop data. The store checks the values themselves (patterns, lengths).
std::optional<Alarm> alarm_from_json(const nlohmann::json& object, WireError& error);

// The raise_alarm request for `alarm` (the inverse of alarm_from_json).
nlohmann::json raise_alarm_request(const Alarm& alarm);

// {"ok":true,"eventId":...,"deviceId":...,"seq":N,"duplicate":B}
nlohmann::json recorded_answer(const RecordedEvent& recorded);

// {"ok":false,"error":{"code":code,"message":message}}
nlohmann::json error_answer(const std::string& code, const std::string& message);
nlohmann::json error_answer(const Status& status);

// The JSON text plus '\n'. Never throws: invalid UTF-8 in strings is replaced.
std::string to_line(const nlohmann::json& document);

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_PROTOCOL_H
