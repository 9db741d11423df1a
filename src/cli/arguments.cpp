#include "cli/arguments.h"

namespace outpost::cli {

std::optional<std::string> ParsedArguments::value(const std::string& option) const {
    auto found = values.find(option);
    if (found == values.end()) return std::nullopt;
    return found->second;
}

const OptionSpec& global_options() {
    // --socket is global so it may stand before the command word; only the
    // commands whose spec lists it accept it (see main.cpp).
    static const OptionSpec spec{
        {"--db", "--quota-bytes", "--socket"}, {"--json", "--check", "--help", "-h"}, 0};
    return spec;
}

namespace {

// Walks `words`; options outside `spec` and the global set are errors only
// when `strict`, so the first pass can find the command before knowing it.
bool walk(const std::vector<std::string>& words, const OptionSpec& spec, bool strict,
          ParsedArguments& parsed, std::string& error) {
    const OptionSpec& global = global_options();
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        bool is_option = word.size() > 1 && word[0] == '-';
        if (!is_option) {
            if (parsed.command.empty()) {
                parsed.command = word;
            } else if (strict) {
                if (parsed.positionals.size() >= spec.max_positionals) {
                    error = "unexpected argument '" + word + "'";
                    return false;
                }
                parsed.positionals.push_back(word);
            }
            continue;
        }
        bool takes_value = global.value_options.count(word) || spec.value_options.count(word);
        bool is_flag = global.flag_options.count(word) || spec.flag_options.count(word);
        if (takes_value) {
            if (i + 1 >= words.size()) {
                error = "option " + word + " needs a value";
                return false;
            }
            parsed.values[word] = words[++i];
        } else if (is_flag) {
            parsed.flags.insert(word == "-h" ? "--help" : word);
        } else if (strict) {
            error = "unknown option " + word;
            return false;
        }
    }
    return true;
}

}  // namespace

ParsedArguments parse_command_word(const std::vector<std::string>& words, std::string& error) {
    ParsedArguments parsed;
    walk(words, OptionSpec{}, false, parsed, error);
    return parsed;
}

bool parse_for_command(const std::vector<std::string>& words, const OptionSpec& spec,
                       ParsedArguments& parsed, std::string& error) {
    parsed = ParsedArguments{};
    return walk(words, spec, true, parsed, error);
}

}  // namespace outpost::cli
