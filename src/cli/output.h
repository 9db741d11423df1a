// How outpostctl prints outbox rows and store figures: aligned text for a
// person, JSON (one document per command) for a script.
#ifndef OUTPOST_CLI_OUTPUT_H
#define OUTPOST_CLI_OUTPUT_H

#include <nlohmann/json.hpp>
#include <ostream>

#include "outpost/store_admin.h"

namespace outpost::cli {

// The row's fields; the envelope is included (parsed when it is JSON) only
// when `with_envelope`.
nlohmann::json row_to_json(const EventRecord& row, bool with_envelope);

// One line per row, under a header line.
void print_row_table(std::ostream& out, const std::vector<EventRecord>& rows);

// "field: value" lines, then the envelope pretty-printed.
void print_row_detail(std::ostream& out, const EventRecord& row);

// Any JSON as "key: value" lines, nested objects and arrays indented by two
// spaces per level below `depth`; strings unquoted. For documents whose
// fields outpostctl does not know (the daemon's live status).
void print_tree(std::ostream& out, const nlohmann::json& document, int depth = 0);

// Writes `document` followed by a newline.
void print_json(std::ostream& out, const nlohmann::json& document);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_OUTPUT_H
