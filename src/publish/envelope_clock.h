// When an outbox row was recorded, read back from its stored envelope
// ("bootId" and "uptimeMs", schema/event.schema.json). The store samples
// uptimeMs as its batch begins, so "now - uptimeMs" spans the commit, its
// fsync and the publish: the latency a user of record_alarm experiences.
#ifndef OUTPOST_PUBLISH_ENVELOPE_CLOCK_H
#define OUTPOST_PUBLISH_ENVELOPE_CLOCK_H

#include <cstdint>
#include <optional>
#include <string>

namespace outpost::publish {

// The envelope's uptimeMs if its bootId equals `boot_id` (uptimes of another
// boot are not comparable), else nullopt. Does not parse the whole JSON:
// inside a JSON string every quote is escaped, so the unescaped key pattern
// can only match the top-level members.
std::optional<int64_t> recorded_uptime_ms(const std::string& envelope, const std::string& boot_id);

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_ENVELOPE_CLOCK_H
