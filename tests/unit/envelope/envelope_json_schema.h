// schema/event.schema.json, rendered from the envelope contract
// (envelope_contract.h). The file in the repository is this function's
// output: tests/unit/envelope/schema_file_test.cpp fails when they differ and
// says how to refresh the file. Edit the table, never the file.
//
// Only this test renders the schema: it is how the file is made and
// checked, never something the product does at run time.
#ifndef OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_H
#define OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_H

#include <string>

namespace outpost::envelope {

// JSON Schema (draft 2020-12) of the envelope, indented by two spaces, with
// a final line feed. Each field's rule becomes keywords as follows:
//   string         "type": "string", minLength/maxLength (code points; a
//                  bound of 0 is left out)
//   kUuidV7, kEventType, kIdentifier, kLabel, kFreeText
//                  "pattern" (ECMA-262, anchored) for the character set
//   kDateTime      "format": "date-time" and a "pattern" for validators that
//                  treat format as an annotation only
//   kSeverity      "enum" of the names
//   integer        "type": "integer", minimum/maximum (or "const")
//   number         "type": "number", minimum/maximum of +-DBL_MAX (finite)
//   object         "type": "object" with its fields under "properties"
// Integers must also be integer literals, which JSON Schema cannot state:
// their descriptions say it (envelope_contract.h explains why).
std::string render_json_schema();

}  // namespace outpost::envelope

#endif  // OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_H
