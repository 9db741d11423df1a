package org.outpost.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * schema/event.schema.json, read at run time and applied as written: the consumer holds no copy of
 * the rules, so a change to the schema file changes what the consumer accepts with no code change.
 *
 * <p>It implements the JSON Schema keywords the envelope schema uses (type, required, properties,
 * additionalProperties, const, enum, pattern, minimum, maximum, minLength, maxLength, format
 * date-time, $ref into $defs) and refuses to load a schema that uses any other validation keyword: a schema
 * that grew a rule this code cannot check fails at start-up, never silently.
 */
public final class EnvelopeSchema {
    /** The resource scripts/consumer.sh packs from schema/event.schema.json. */
    public static final String RESOURCE = "/event.schema.json";

    private static final Set<String> ANNOTATIONS = Set.of("$schema", "$id", "title", "description", "$comment");
    private static final Set<String> KEYWORDS =
            Set.of("type", "required", "properties", "additionalProperties", "const", "enum", "pattern",
                    "minimum", "maximum", "minLength", "maxLength", "format", "$ref", "$defs");
    private static final Pattern DATE_TIME =
            Pattern.compile("^(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})\\z");

    private final JsonNode root;
    private final Map<String, Pattern> patterns = new HashMap<>();
    private final long knownVersion;

    private EnvelopeSchema(JsonNode root) {
        this.root = root;
        checkKeywords(root, "#");
        JsonNode version = root.path("properties").path("schemaVersion").path("const");
        if (!version.canConvertToLong()) {
            throw new IllegalStateException("the envelope schema has no properties.schemaVersion.const");
        }
        this.knownVersion = version.longValue();
    }

    /** The schema packed into the consumer's jar. */
    public static EnvelopeSchema load() {
        try (InputStream in = EnvelopeSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("the jar lacks " + RESOURCE + " (rebuild with scripts/consumer.sh build)");
            return new EnvelopeSchema(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the envelope schema: " + e.getMessage(), e);
        }
    }

    /** A schema file on disk, e.g. the repository's schema/event.schema.json. */
    public static EnvelopeSchema load(Path path) throws IOException {
        return new EnvelopeSchema(new ObjectMapper().readTree(Files.readAllBytes(path)));
    }

    /** The one schemaVersion this schema describes (its schemaVersion "const"). */
    public long knownVersion() {
        return knownVersion;
    }

    /** The first violation in document order, or null when {@code document} is valid. */
    public String firstViolation(JsonNode document) {
        List<String> out = new ArrayList<>();
        validate(root, document, "", out);
        return out.isEmpty() ? null : out.get(0);
    }

    private void checkKeywords(JsonNode schema, String where) {
        if (!schema.isObject()) throw new IllegalStateException("schema at " + where + " is not an object");
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String keyword = it.next();
            if (ANNOTATIONS.contains(keyword)) continue;
            if (!KEYWORDS.contains(keyword)) {
                throw new IllegalStateException("the envelope schema uses \"" + keyword + "\" at " + where
                        + ", which outpost-consumer does not implement: extend EnvelopeSchema");
            }
        }
        if (schema.has("format") && !schema.get("format").asText().equals("date-time")) {
            throw new IllegalStateException("unsupported format " + schema.get("format") + " at " + where);
        }
        if (schema.has("additionalProperties") && !schema.get("additionalProperties").isBoolean()) {
            throw new IllegalStateException("additionalProperties at " + where + " must be a boolean here");
        }
        for (String nested : new String[] {"properties", "$defs"}) {
            for (Map.Entry<String, JsonNode> entry : schema.path(nested).properties()) {
                checkKeywords(entry.getValue(), where + "/" + nested + "/" + entry.getKey());
            }
        }
        if (schema.has("pattern")) pattern(schema.get("pattern").asText());
    }

    private Pattern pattern(String source) {
        // ECMA-262 "$" (no multiline) matches only at the very end; Java's also before a final
        // line break.
        return patterns.computeIfAbsent(source, s -> Pattern.compile(s.endsWith("$") && !s.endsWith("\\$")
                ? s.substring(0, s.length() - 1) + "\\z" : s));
    }

    private JsonNode resolve(String ref) {
        if (!ref.startsWith("#/")) throw new IllegalStateException("only local $ref is supported: " + ref);
        JsonNode node = root;
        for (String part : ref.substring(2).split("/")) node = node.path(part);
        if (node.isMissingNode()) throw new IllegalStateException("unresolved $ref " + ref);
        return node;
    }

    private void validate(JsonNode schema, JsonNode value, String path, List<String> out) {
        String name = path.isEmpty() ? "the envelope" : path;
        if (schema.has("$ref")) validate(resolve(schema.get("$ref").asText()), value, path, out);
        if (schema.has("type") && !hasType(value, schema.get("type").asText())) {
            out.add(name + " must be of type " + schema.get("type").asText());
            return;
        }
        if (schema.has("const") && !sameValue(schema.get("const"), value)) {
            out.add(name + " must be " + schema.get("const"));
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode option : schema.get("enum")) found |= sameValue(option, value);
            if (!found) out.add(name + " must be one of " + schema.get("enum"));
        }
        if (value.isTextual()) {
            String text = value.textValue();
            int length = text.codePointCount(0, text.length());
            if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
                out.add(name + " must have at least " + schema.get("minLength").asInt() + " characters");
            }
            if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
                out.add(name + " must have at most " + schema.get("maxLength").asInt() + " characters (has " + length + ")");
            }
            if (schema.has("pattern") && !pattern(schema.get("pattern").asText()).matcher(text).find()) {
                out.add(name + " must match " + schema.get("pattern").asText());
            }
            if (schema.has("format") && !isDateTime(text)) {
                out.add(name + " must be an RFC 3339 date-time");
            }
        }
        if (value.isNumber() && schema.has("minimum") && value.decimalValue().compareTo(schema.get("minimum").decimalValue()) < 0) {
            out.add(name + " must be >= " + schema.get("minimum"));
        }
        if (value.isNumber() && schema.has("maximum") && value.decimalValue().compareTo(schema.get("maximum").decimalValue()) > 0) {
            out.add(name + " must be <= " + schema.get("maximum"));
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) out.add(prefix(path) + required.asText() + " is required");
            }
            JsonNode properties = schema.path("properties");
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                JsonNode fieldSchema = properties.get(field.getKey());
                if (fieldSchema != null) {
                    validate(fieldSchema, field.getValue(), prefix(path) + field.getKey(), out);
                } else if (schema.path("additionalProperties").isBoolean() && !schema.get("additionalProperties").asBoolean()) {
                    out.add(prefix(path) + field.getKey() + " is not an envelope field");
                }
            }
        }
    }

    private static String prefix(String path) {
        return path.isEmpty() ? "" : path + ".";
    }

    /**
     * JSON Schema types, with "integer" as the envelope contract reads it: an integer literal (1,
     * not 1.0 or 1e3; a consumer reads seq into a 64-bit integer, and a number written with a
     * fraction or exponent is exact only up to 2^53).
     */
    static boolean hasType(JsonNode value, String type) {
        switch (type) {
            case "object": return value.isObject();
            case "array": return value.isArray();
            case "string": return value.isTextual();
            case "boolean": return value.isBoolean();
            case "null": return value.isNull();
            case "number": return value.isNumber();
            case "integer": return value.isIntegralNumber();
            default: throw new IllegalStateException("unknown JSON Schema type " + type);
        }
    }

    /** JSON Schema equality: numbers compare by value (1 == 1.0). */
    static boolean sameValue(JsonNode expected, JsonNode actual) {
        if (expected.isNumber() && actual.isNumber()) return expected.decimalValue().compareTo(actual.decimalValue()) == 0;
        return expected.equals(actual);
    }

    static boolean isDateTime(String text) {
        var match = DATE_TIME.matcher(text);
        if (!match.matches()) return false;
        int month = Integer.parseInt(match.group(2));
        int day = Integer.parseInt(match.group(3));
        return month >= 1 && month <= 12 && day >= 1 && day <= 31 && Integer.parseInt(match.group(4)) <= 23
                && Integer.parseInt(match.group(5)) <= 59 && Integer.parseInt(match.group(6)) <= 60;
    }
}
