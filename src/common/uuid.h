// UUIDv7 generation (RFC 9562): 48-bit Unix milliseconds, version 7, 12-bit
// sub-millisecond counter, variant, 62 random bits. Event ids are generated
// once, stored, and never regenerated, so they stay stable across retries,
// restarts and replays.
#ifndef OUTPOST_COMMON_UUID_H
#define OUTPOST_COMMON_UUID_H

#include <cstdint>
#include <string>

namespace outpost {

// Returns a new UUIDv7 in canonical lower-case 8-4-4-4-12 form. Ids made by
// one process are strictly increasing even when `unix_ms` stands still or
// goes backwards (the wall clock of a gateway jumps), so they sort in
// creation order within a process. Thread-safe.
std::string make_uuid_v7(int64_t unix_ms);

// Makes every later id of this process sort after `newest`, a UUIDv7 made by
// any process (or an earlier run): the store seeds the generator from its
// newest event id, so ids grow with the rowids even when the wall clock went
// back across a restart. Text that is not a canonical UUID is ignored.
// Thread-safe.
void seed_uuid_v7(const std::string& newest);

// True if `text` is a canonical UUID (any version), lower or upper case.
bool is_canonical_uuid(const std::string& text);

}  // namespace outpost

#endif  // OUTPOST_COMMON_UUID_H
