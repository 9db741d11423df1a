#include "rocketmq/codes.h"

namespace outpost::rocketmq {

namespace {

constexpr const char* kUnknownCodeName = "UNKNOWN_CODE";

}  // namespace

const char* response_code_name(std::int32_t code) {
    switch (code) {
        case kResponseSuccess:
            return "SUCCESS";
        case kResponseSystemError:
            return "SYSTEM_ERROR";
        case kResponseSystemBusy:
            return "SYSTEM_BUSY";
        case kResponseRequestCodeNotSupported:
            return "REQUEST_CODE_NOT_SUPPORTED";
        case kResponseFlushDiskTimeout:
            return "FLUSH_DISK_TIMEOUT";
        case kResponseSlaveNotAvailable:
            return "SLAVE_NOT_AVAILABLE";
        case kResponseFlushSlaveTimeout:
            return "FLUSH_SLAVE_TIMEOUT";
        case kResponseMessageIllegal:
            return "MESSAGE_ILLEGAL";
        case kResponseServiceNotAvailable:
            return "SERVICE_NOT_AVAILABLE";
        case kResponseNoPermission:
            return "NO_PERMISSION";
        case kResponseTopicNotExist:
            return "TOPIC_NOT_EXIST";
        case kResponseInvalidParameter:
            return "INVALID_PARAMETER";
        case kResponseFlowControl:
            return "FLOW_CONTROL";
        case kResponseGoAway:
            return "GO_AWAY";
        default:
            return kUnknownCodeName;
    }
}

bool is_known_response_code(std::int32_t code) {
    return response_code_name(code) != kUnknownCodeName;
}

}  // namespace outpost::rocketmq
