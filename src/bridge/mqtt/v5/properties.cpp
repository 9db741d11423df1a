#include "bridge/mqtt/v5/properties.h"

#include <cstdio>
#include <string_view>

#include "bridge/mqtt/v5/reason_codes.h"

namespace outpost::bridge::mqtt5 {
namespace {

enum Allowed : unsigned {
    kInConnack = 1u << 0,
    kInPublish = 1u << 1,
    kInSuback = 1u << 2,
    kInDisconnect = 1u << 3,
    kEverywhere = kInConnack | kInPublish | kInSuback | kInDisconnect,
};

unsigned bit_of(PropertyContext context) {
    switch (context) {
        case PropertyContext::kConnack:
            return kInConnack;
        case PropertyContext::kPublish:
            return kInPublish;
        case PropertyContext::kSuback:
            return kInSuback;
        case PropertyContext::kDisconnect:
            return kInDisconnect;
    }
    return 0;
}

// Which packets may carry property `id`; 0 for identifiers this receiver
// never accepts (those of CONNECT, SUBSCRIBE and AUTH, and unknown ones).
unsigned allowed_in(uint32_t id) {
    switch (id) {
        case 0x01:
        case 0x02:
        case 0x03:
        case 0x08:
        case 0x09:
        case 0x0B:
        case 0x23:
            return kInPublish;
        case 0x11:
        case 0x1C:
            return kInConnack | kInDisconnect;
        case 0x12:
        case 0x13:
        case 0x15:
        case 0x16:
        case 0x1A:
        case 0x21:
        case 0x22:
        case 0x24:
        case 0x25:
        case 0x27:
        case 0x28:
        case 0x29:
        case 0x2A:
            return kInConnack;
        case 0x1F:
        case 0x26:
            return kEverywhere;
        default:
            return 0;
    }
}

template <typename T>
void set_once(std::optional<T>* slot, T value, WireReader* reader, const char* name) {
    if (slot->has_value()) {
        reader->fail(name, "given twice", kProtocolError);
        return;
    }
    *slot = std::move(value);
}

uint8_t flag(WireReader* reader, const char* name) {
    const uint8_t value = reader->byte(name);
    if (value > 1)
        reader->fail(name, "must be 0 or 1, is " + std::to_string(value), kProtocolError);
    return value;
}

std::string text(WireReader* reader, const char* name) {
    return std::string(reader->utf8_string(name));
}

void decode_one(uint32_t id, WireReader* reader, Properties* out) {
    switch (id) {
        case 0x01:
            set_once(&out->payload_format_indicator, flag(reader, "Payload Format Indicator"),
                     reader, "Payload Format Indicator");
            break;
        case 0x02:
            set_once(&out->message_expiry_interval,
                     reader->four_byte_integer("Message Expiry Interval"), reader,
                     "Message Expiry Interval");
            break;
        case 0x03:
            set_once(&out->content_type, text(reader, "Content Type"), reader, "Content Type");
            break;
        case 0x08:
            set_once(&out->response_topic, text(reader, "Response Topic"), reader,
                     "Response Topic");
            break;
        case 0x09:
            set_once(&out->correlation_data, std::string(reader->binary("Correlation Data")),
                     reader, "Correlation Data");
            break;
        case 0x0B: {
            const uint32_t value = reader->variable_byte_integer("Subscription Identifier");
            if (value == 0)
                reader->fail("Subscription Identifier", "must not be 0", kProtocolError);
            out->subscription_identifiers.push_back(value);
            break;
        }
        case 0x11:
            set_once(&out->session_expiry_interval,
                     reader->four_byte_integer("Session Expiry Interval"), reader,
                     "Session Expiry Interval");
            break;
        case 0x12:
            set_once(&out->assigned_client_identifier, text(reader, "Assigned Client Identifier"),
                     reader, "Assigned Client Identifier");
            break;
        case 0x13:
            set_once(&out->server_keep_alive, reader->two_byte_integer("Server Keep Alive"), reader,
                     "Server Keep Alive");
            break;
        case 0x15:
            set_once(&out->authentication_method, text(reader, "Authentication Method"), reader,
                     "Authentication Method");
            break;
        case 0x16:
            reader->binary("Authentication Data");
            break;
        case 0x1A:
            set_once(&out->response_information, text(reader, "Response Information"), reader,
                     "Response Information");
            break;
        case 0x1C:
            set_once(&out->server_reference, text(reader, "Server Reference"), reader,
                     "Server Reference");
            break;
        case 0x1F:
            set_once(&out->reason_string, text(reader, "Reason String"), reader, "Reason String");
            break;
        case 0x21: {
            const uint16_t value = reader->two_byte_integer("Receive Maximum");
            if (value == 0) reader->fail("Receive Maximum", "must not be 0", kProtocolError);
            set_once(&out->receive_maximum, value, reader, "Receive Maximum");
            break;
        }
        case 0x22:
            set_once(&out->topic_alias_maximum, reader->two_byte_integer("Topic Alias Maximum"),
                     reader, "Topic Alias Maximum");
            break;
        case 0x23:
            set_once(&out->topic_alias, reader->two_byte_integer("Topic Alias"), reader,
                     "Topic Alias");
            break;
        case 0x24:
            set_once(&out->maximum_qos, flag(reader, "Maximum QoS"), reader, "Maximum QoS");
            break;
        case 0x25:
            set_once(&out->retain_available, flag(reader, "Retain Available"), reader,
                     "Retain Available");
            break;
        case 0x26: {
            std::string name = text(reader, "User Property name");
            std::string value = text(reader, "User Property value");
            out->user_properties.emplace_back(std::move(name), std::move(value));
            break;
        }
        case 0x27: {
            const uint32_t value = reader->four_byte_integer("Maximum Packet Size");
            if (value == 0) reader->fail("Maximum Packet Size", "must not be 0", kProtocolError);
            set_once(&out->maximum_packet_size, value, reader, "Maximum Packet Size");
            break;
        }
        case 0x28:
            set_once(&out->wildcard_subscription_available,
                     flag(reader, "Wildcard Subscription Available"), reader,
                     "Wildcard Subscription Available");
            break;
        case 0x29:
            set_once(&out->subscription_identifiers_available,
                     flag(reader, "Subscription Identifiers Available"), reader,
                     "Subscription Identifiers Available");
            break;
        case 0x2A:
            set_once(&out->shared_subscription_available,
                     flag(reader, "Shared Subscription Available"), reader,
                     "Shared Subscription Available");
            break;
        default:
            break;  // allowed_in() refused it already
    }
}

}  // namespace

void decode_properties(WireReader* reader, PropertyContext context, Properties* out) {
    const uint32_t length = reader->variable_byte_integer("Property Length");
    if (reader->failed()) return;
    if (length > reader->remaining()) {
        reader->fail("Property Length", std::to_string(length) + " runs past the packet's end");
        return;
    }
    WireReader block(reader->bytes(length, "properties"), "property");
    while (block.remaining() > 0) {
        const uint32_t id = block.variable_byte_integer("identifier");
        if (block.failed()) break;
        if ((allowed_in(id) & bit_of(context)) == 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(id));
            block.fail("identifier", std::string(hex) + " is not allowed in this packet");
            break;
        }
        decode_one(id, &block, out);
    }
    if (block.failed()) reader->fail("properties", block.error(), block.reason_code());
}

}  // namespace outpost::bridge::mqtt5
