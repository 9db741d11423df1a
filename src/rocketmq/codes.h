// Numeric codes of the RocketMQ remoting protocol that this client uses.
// Values are fixed by the protocol (RequestCode / ResponseCode upstream).
#ifndef OUTPOST_ROCKETMQ_CODES_H
#define OUTPOST_ROCKETMQ_CODES_H

#include <cstdint>

namespace outpost::rocketmq {

// Request codes.
constexpr std::int32_t kRequestSendMessage = 10;
constexpr std::int32_t kRequestUpdateAndCreateTopic = 17;
constexpr std::int32_t kRequestGetBrokerConfig = 26;
constexpr std::int32_t kRequestGetRouteInfoByTopic = 105;
constexpr std::int32_t kRequestSendBatchMessage = 320;  // header in the V2 (one-letter) form

// Response codes.
constexpr std::int32_t kResponseSuccess = 0;
constexpr std::int32_t kResponseSystemError = 1;
constexpr std::int32_t kResponseSystemBusy = 2;
constexpr std::int32_t kResponseRequestCodeNotSupported = 3;
constexpr std::int32_t kResponseFlushDiskTimeout = 10;
constexpr std::int32_t kResponseSlaveNotAvailable = 11;
constexpr std::int32_t kResponseFlushSlaveTimeout = 12;
constexpr std::int32_t kResponseMessageIllegal = 13;
constexpr std::int32_t kResponseServiceNotAvailable = 14;
constexpr std::int32_t kResponseNoPermission = 16;
constexpr std::int32_t kResponseTopicNotExist = 17;
constexpr std::int32_t kResponseInvalidParameter = 29;
constexpr std::int32_t kResponseFlowControl = 215;
constexpr std::int32_t kResponseGoAway = 1500;

// The remoting "version" we announce. 401 (V4_9_4) or later makes the name
// server answer route queries in strict JSON.
constexpr std::int32_t kRemotingVersion = 401;

// The topic a broker with autoCreateTopicEnable=true uses as the template for
// topics it creates on first send.
constexpr const char* kAutoCreateTopicTemplate = "TBW102";
// Write queues of a topic the broker creates on first send (the
// defaultTopicQueueNums a send request carries).
constexpr std::int32_t kAutoCreatedTopicQueueCount = 4;

// Returns the upstream name of a response code ("SYSTEM_BUSY"), or
// "UNKNOWN_CODE" for codes this client does not know. The one table of code
// names: logs, errors and the bridge's error metrics all read it.
const char* response_code_name(std::int32_t code);

// True when response_code_name knows `code`.
bool is_known_response_code(std::int32_t code);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_CODES_H
