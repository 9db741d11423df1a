#include "common/config_keys.h"

#include <chrono>
#include <cstddef>
#include <map>
#include <sstream>

namespace outpost {
namespace {

using nlohmann::json;

constexpr std::size_t kCommentColumn = 44;
constexpr std::size_t kWidth = 100;

// The path of the row whose value holds `path`'s key: "broker.tls.ca_file"
// -> "broker.tls", "mapping[].tag" -> "mapping", "gateway_id" -> "".
std::string container_of(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos) return "";
    std::string parent = path.substr(0, dot);
    if (parent.size() > 2 && parent.compare(parent.size() - 2, 2, "[]") == 0) {
        parent.resize(parent.size() - 2);
    }
    return parent;
}

std::string name_of(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

// JSON with a space after each comma of an array and whole numbers without
// ".0", as a person writes it.
std::string json_text(const json& value) {
    if (value.is_number_float()) {
        const double number = value.get<double>();
        const auto whole = static_cast<long long>(number);
        if (number == static_cast<double>(whole)) return std::to_string(whole);
    }
    if (!value.is_array()) return value.dump();
    std::string text = "[";
    for (std::size_t i = 0; i < value.size(); ++i) text += (i ? ", " : "") + value[i].dump();
    return text + "]";
}

// `text` cut at spaces into lines of at most `width` characters.
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::istringstream words(text);
    std::string line;
    for (std::string word; words >> word;) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            lines.push_back(line);
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

class SkeletonWriter {
  public:
    explicit SkeletonWriter(const ConfigKeys& keys) : keys_(keys) {
        std::map<std::string, std::size_t> rows;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            rows[keys[i].path] = i;
            const std::string parent = container_of(keys[i].path);
            children_[parent.empty() ? kRoot : rows.at(parent)].push_back(i);
        }
    }

    std::string text() {
        out_ << "{\n";
        write_members(kRoot, 2);
        out_ << "}\n";
        return out_.str();
    }

  private:
    static constexpr std::size_t kRoot = static_cast<std::size_t>(-1);

    void write_members(std::size_t container, std::size_t indent) {
        const std::vector<std::size_t>& members = children_[container];
        for (std::size_t i = 0; i < members.size(); ++i) {
            write_row(members[i], indent, i + 1 == members.size() ? "" : ",");
        }
    }

    void write_row(std::size_t row, std::size_t indent, const std::string& comma) {
        const ConfigKey& key = keys_[row];
        const std::string pad(indent, ' ');
        const std::string start = pad + "\"" + name_of(key.path) + "\": ";
        if (key.type == ConfigKeyType::kObject) {
            write_line(start + "{", key);
            write_members(row, indent + 2);
            out_ << pad << "}" << comma << "\n";
        } else if (key.type == ConfigKeyType::kObjectList) {
            write_line(start + "[", key);
            out_ << pad << "  {\n";
            write_members(row, indent + 4);
            out_ << pad << "  }\n" << pad << "]" << comma << "\n";
        } else {
            write_line(start + json_text(key.required ? key.example : key.value) + comma, key);
        }
    }

    // `code`, then the key's comment from kCommentColumn on (on the lines
    // below when the code reaches that far).
    void write_line(const std::string& code, const ConfigKey& key) {
        std::string comment = key.required ? "* " : "";
        const std::string unit_suffix = "_" + key.unit;
        const std::string name = name_of(key.path);
        const bool unit_in_name =
            name.size() > unit_suffix.size() &&
            name.compare(name.size() - unit_suffix.size(), unit_suffix.size(), unit_suffix) == 0;
        if (!key.unit.empty() && !unit_in_name) comment += "[" + key.unit + "] ";
        comment += key.help;
        std::string line = code;
        if (line.size() + 2 > kCommentColumn) {
            out_ << line << "\n";
            line.clear();
        }
        for (const std::string& part : wrapped(comment, kWidth - kCommentColumn - 3)) {
            line.resize(kCommentColumn, ' ');
            out_ << line << "// " << part << "\n";
            line.clear();
        }
        if (!line.empty()) out_ << line << "\n";
    }

    const ConfigKeys& keys_;
    std::map<std::size_t, std::vector<std::size_t>> children_;
    std::ostringstream out_;
};

}  // namespace

const char* config_key_type_name(ConfigKeyType type) {
    switch (type) {
        case ConfigKeyType::kBoolean:
            return "boolean";
        case ConfigKeyType::kInteger:
            return "integer";
        case ConfigKeyType::kNumber:
            return "number";
        case ConfigKeyType::kString:
            return "string";
        case ConfigKeyType::kStringList:
            return "array of strings";
        case ConfigKeyType::kStringOrStringList:
            return "string or array of strings";
        case ConfigKeyType::kObject:
            return "object";
        case ConfigKeyType::kObjectList:
            return "array of objects";
    }
    return "?";
}

ConfigKey config_section(const std::string& path, bool required, const std::string& help) {
    return {path, ConfigKeyType::kObject, required, nullptr, nullptr, "", help};
}

ConfigKey config_key(const std::string& path, ConfigKeyType type, const json& value,
                     const std::string& unit, const std::string& help) {
    return {path, type, false, value, nullptr, unit, help};
}

ConfigKey required_config_key(const std::string& path, ConfigKeyType type, const json& value,
                              const json& example, const std::string& help) {
    return {path, type, true, value, example, "", help};
}

ConfigKeys mqtt_endpoint_keys(const std::string& section, const MqttEndpoint& shown,
                              bool fixed_identity, const std::string& client_id_help,
                              const std::string& example_client_id) {
    using T = ConfigKeyType;
    const std::string s = section + ".";
    const MqttTlsOptions& tls = shown.tls;
    const json example_uri = fixed_identity ? json(MqttEndpoint{}.uri) : json();
    const json example_id = fixed_identity ? json(example_client_id) : json();
    ConfigKeys keys = {
        {s + "uri", T::kString, fixed_identity, shown.uri, example_uri, "",
         "The broker, tcp://host:port or ssl://host:port (then " + s +
             "tls applies; a tls object with tcp:// is an error)."},
        {s + "client_id", T::kString, fixed_identity, shown.client_id, example_id, "",
         client_id_help},
        {s + "username", T::kString, false, shown.username, nullptr, "",
         "MQTT user name; empty with an empty password: anonymous."},
        {s + "password", T::kString, false, shown.password, nullptr, "",
         "MQTT password; needs username. Over tcp:// to a host that is not loopback only "
         "with allow_plaintext_credentials."},
        {s + "tls", T::kObject, false, nullptr, nullptr, "",
         "TLS to the broker, for an ssl:// uri only."},
        {s + "tls.ca_file", T::kString, false, tls.ca_file, nullptr, "",
         "PEM CA file the broker's certificate must chain to; empty: OpenSSL's default trust "
         "store."},
        {s + "tls.cert_file", T::kString, false, tls.cert_file, nullptr, "",
         "PEM client certificate (mutual TLS); together with key_file."},
        {s + "tls.key_file", T::kString, false, tls.key_file, nullptr, "",
         "PEM private key of the client certificate."},
        {s + "tls.key_password", T::kString, false, tls.key_password, nullptr, "",
         "Passphrase of an encrypted key_file."},
        {s + "tls.verify_server", T::kBoolean, false, tls.verify_server, nullptr, "",
         "Check the broker's certificate chain and host name. false accepts any server (test "
         "brokers only): warned at start, shown in the status and the metrics."},
        {s + "keepalive_s", T::kInteger, false,
         std::chrono::duration_cast<std::chrono::seconds>(shown.keepalive).count(), nullptr, "s",
         "MQTT keep-alive; the broker drops a connection silent for 1.5 times this. 5 to "
         "65535."},
    };
    return keys;
}

std::string render_config_skeleton(const ConfigKeys& keys) {
    return SkeletonWriter(keys).text();
}

}  // namespace outpost
