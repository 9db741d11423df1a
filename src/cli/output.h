// How outpostctl prints outbox rows and store figures: aligned text for a
// person, JSON (one document per command) for a script.
#ifndef OUTPOST_CLI_OUTPUT_H
#define OUTPOST_CLI_OUTPUT_H

#include <nlohmann/json.hpp>
#include <ostream>

#include "store/outbox.h"

namespace outpost::cli {

// The row's fields; the envelope is included (parsed when it is JSON) only
// when `with_envelope`.
nlohmann::json row_to_json(const store::OutboxRow& row, bool with_envelope);

// One line per row, under a header line.
void print_row_table(std::ostream& out, const std::vector<store::OutboxRow>& rows);

// "field: value" lines, then the envelope pretty-printed.
void print_row_detail(std::ostream& out, const store::OutboxRow& row, int64_t replayed_at_ms);

// Writes `document` followed by a newline.
void print_json(std::ostream& out, const nlohmann::json& document);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_OUTPUT_H
