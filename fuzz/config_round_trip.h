// The property both configuration targets check first: a parser's verdict
// is a function of the configuration, not of how the file spells it. A
// refused text gets kInvalidArgument with a message; an accepted one,
// written back as JSON by `written` (every field), parses again to the
// same configuration, and so does the same document dumped compactly.
#ifndef OUTPOST_FUZZ_CONFIG_ROUND_TRIP_H
#define OUTPOST_FUZZ_CONFIG_ROUND_TRIP_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fuzz_check.h"
#include "outpost/status.h"

// The accepted configuration, or nothing when `parse` refused `text`.
template <typename Config, typename Write>
std::optional<Config> accepted_config(const std::string& text,
                                      outpost::Result<Config> (*parse)(const std::string&),
                                      Write written) {
    outpost::Result<Config> config = parse(text);
    if (!config.is_ok()) {
        FUZZ_CHECK(config.status().code() == outpost::StatusCode::kInvalidArgument &&
                       !config.status().message().empty(),
                   "a refused configuration gets kInvalidArgument with a message");
        return std::nullopt;
    }
    const nlohmann::json document = written(*config);
    outpost::Result<Config> again = parse(document.dump());
    FUZZ_CHECK(again.is_ok(), "an accepted configuration, written back, is accepted again");
    FUZZ_CHECK(written(*again) == document, "an accepted configuration reads back the same");
    outpost::Result<Config> compact = parse(nlohmann::json::parse(text).dump());
    FUZZ_CHECK(compact.is_ok() && written(*compact) == document,
               "the JSON data decides, not its layout");
    return std::move(config).value();
}

#endif  // OUTPOST_FUZZ_CONFIG_ROUND_TRIP_H
