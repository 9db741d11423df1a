// RFC 3339 date-times, the form of the envelope's occurredAt: written by the
// store, checked by the bridge. Pure functions of their arguments: no time
// zone, no locale, and no time_t (32 bits on some gateways' C libraries).
#ifndef OUTPOST_COMMON_RFC3339_H
#define OUTPOST_COMMON_RFC3339_H

#include <cstdint>
#include <string>

namespace outpost {

// The range a four-digit year can write, in milliseconds since 1970 (UTC).
constexpr std::int64_t kFirstRfc3339Ms = -62167219200000;  // 0000-01-01T00:00:00.000Z
constexpr std::int64_t kLastRfc3339Ms = 253402300799999;   // 9999-12-31T23:59:59.999Z

// "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC, always milliseconds, always 24 bytes),
// e.g. "1970-01-01T00:00:12.345Z". A value outside the range above is
// clamped to its nearest end: a gateway clock gone wild must still yield a
// date-time every consumer parses, and the true value stays in the row (and
// bootId + uptimeMs date the event anyway).
std::string format_rfc3339_ms(std::int64_t unix_ms);

// True for an RFC 3339 date-time, section 5.6:
//   YYYY-MM-DD(T|t)HH:MM:SS[.fraction](Z|z|+HH:MM|-HH:MM)
// with month 01-12, a day that exists in that month (leap years counted),
// hour 00-23, minute 00-59, second 00-60 (leap second), offset hours 00-23
// and minutes 00-59. Both the separator and "Z" may be lower case (5.6, NOTE).
bool is_rfc3339_date_time(const std::string& text);

}  // namespace outpost

#endif  // OUTPOST_COMMON_RFC3339_H
