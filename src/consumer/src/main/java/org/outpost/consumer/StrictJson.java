package org.outpost.consumer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON as the envelope contract reads it, stricter than RFC 8259 leaves room for: the same rules
 * the gateway and the bridge apply (schema/event.schema.json, "Envelope text rules" in
 * docs/CONSUMING.md).
 *
 * <ul>
 *   <li>UTF-8, well formed, with no byte order mark;
 *   <li>one JSON value and nothing after it;
 *   <li>no object with the same key twice (parsers disagree on which one wins);
 *   <li>no control character (U+0000 to U+001F, U+007F) in any string or key, escaped or not;
 *   <li>every integer within a signed 64-bit integer, every other number finite as a double.
 * </ul>
 */
public final class StrictJson {
    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .disable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                    .build();

    private StrictJson() {}

    /** Parses {@code body}; throws with the rule it breaks. */
    public static JsonNode parse(byte[] body) throws EnvelopeException {
        if (body.length >= 3
                && (body[0] & 0xFF) == 0xEF
                && (body[1] & 0xFF) == 0xBB
                && (body[2] & 0xFF) == 0xBF) {
            throw new EnvelopeException("the body starts with a UTF-8 byte order mark");
        }
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body));
        } catch (CharacterCodingException e) {
            throw new EnvelopeException("the body is not well-formed UTF-8");
        }
        JsonNode root;
        try (JsonParser parser = MAPPER.createParser(body)) {
            if (parser.nextToken() == null) throw new EnvelopeException("the body is empty");
            root = MAPPER.readTree(parser);
            if (parser.nextToken() != null && parser.currentToken() != JsonToken.NOT_AVAILABLE) {
                throw new EnvelopeException("the body holds more than one JSON value");
            }
        } catch (JsonProcessingException e) {
            String message = firstLine(e.getOriginalMessage());
            if (message.startsWith("Duplicate field")) {
                throw new EnvelopeException("an object holds a key twice (" + message + ")");
            }
            throw new EnvelopeException("the body is not valid JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new EnvelopeException("the body cannot be read: " + e.getMessage());
        }
        check(root, "");
        return root;
    }

    private static void check(JsonNode node, String path) throws EnvelopeException {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String where = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
                if (hasControl(field.getKey())) {
                    throw new EnvelopeException("a key holds a control character (in " + printable(where) + ")");
                }
                check(field.getValue(), where);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) check(node.get(i), path + "[" + i + "]");
        } else if (node.isTextual()) {
            if (hasControl(node.textValue())) {
                throw new EnvelopeException(printable(path) + " holds a control character");
            }
        } else if (node.isBigInteger() && !node.canConvertToLong()) {
            throw new EnvelopeException(printable(path) + " is an integer outside the signed 64-bit range");
        } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
            throw new EnvelopeException(printable(path) + " is a number too large for a double");
        }
    }

    private static boolean hasControl(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7F) return true;
        }
        return false;
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length() && i < 80; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7F) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.length() == 0 ? "the document" : out.toString();
    }

    private static String firstLine(String text) {
        if (text == null) return "unknown error";
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
