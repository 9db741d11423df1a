// Message properties: RocketMQ carries a message's metadata (keys, tags,
// unique id, ...) as one string of `name \x01 value \x02` pairs.
#ifndef OUTPOST_ROCKETMQ_PROPERTIES_H
#define OUTPOST_ROCKETMQ_PROPERTIES_H

#include <map>
#include <string>
#include <string_view>

#include "outpost/status.h"

namespace outpost::rocketmq {

// Property names the broker and the admin tools understand.
constexpr const char* kPropertyKeys = "KEYS";  // space-separated; indexed for queryMsgByKey
constexpr const char* kPropertyTags = "TAGS";
constexpr const char* kPropertyWaitStoreOk = "WAIT";  // "true": answer after the store
constexpr const char* kPropertyUniqueKey = "UNIQ_KEY";
constexpr const char* kPropertyShardingKey = "__SHARDINGKEY";

// Encodes the pairs in name order. Fails with kInvalidArgument, naming the
// property, when a name is empty or a name or value contains \x01 or \x02
// (they would corrupt the encoding).
Result<std::string> encode_properties(const std::map<std::string, std::string>& properties);

// Decodes an encoded string. A trailing pair without \x02 is accepted (older
// clients omit it); a pair without \x01, with an empty name or a second
// \x01, and a name given twice fail with kInvalidArgument: what decodes
// holds no separator byte and encodes back to the same pairs.
Result<std::map<std::string, std::string>> decode_properties(std::string_view encoded);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_PROPERTIES_H
