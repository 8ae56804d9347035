//! CSL-JSON checked against the Citation Style Language's own schema (`tests/csl`), by a small
//! JSON Schema validator for the keywords that schema uses.

use serde_json::Value;

/// A value against a JSON Schema (draft-07), for the keywords the CSL schema uses; any other
/// validating keyword panics, so a schema that needs more is noticed. Errors name the place.
fn validate(schema: &Value, root: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let obj = schema.as_object().expect("a schema is an object");
    for (k, s) in obj {
        match k.as_str() {
            "description" | "title" | "examples" | "$schema" | "$id" | "definitions" => {}
            "$ref" => {
                let name = s.as_str().unwrap();
                let name = name
                    .rsplit_once("#/definitions/")
                    .map(|(_, n)| n)
                    .unwrap_or_else(|| panic!("unsupported $ref {name}"));
                validate(&root["definitions"][name], root, v, at, errors);
            }
            "type" => {
                let types: Vec<&str> = match s {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(a) => a.iter().map(|t| t.as_str().unwrap()).collect(),
                    _ => panic!("bad type"),
                };
                let ok = types.iter().any(|t| match *t {
                    "string" => v.is_string(),
                    "number" => v.is_number(),
                    "integer" => v.is_i64() || v.is_u64(),
                    "boolean" => v.is_boolean(),
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    "null" => v.is_null(),
                    other => panic!("unknown type {other}"),
                });
                if !ok {
                    errors.push(format!("{at}: {v} is not {types:?}"));
                }
            }
            "enum" => {
                if !s.as_array().unwrap().contains(v) {
                    errors.push(format!("{at}: {v} is not one of the enum"));
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for r in s.as_array().unwrap() {
                        if !o.contains_key(r.as_str().unwrap()) {
                            errors.push(format!("{at}: {r} is required"));
                        }
                    }
                }
            }
            "properties" => {
                if let Some(o) = v.as_object() {
                    for (name, val) in o {
                        if let Some(ps) = s.get(name) {
                            validate(ps, root, val, &format!("{at}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(s, &Value::Bool(false), "only `false` is supported");
                if let Some(o) = v.as_object() {
                    let known = obj.get("properties").and_then(Value::as_object);
                    for name in o.keys() {
                        if !known.is_some_and(|k| k.contains_key(name)) {
                            errors.push(format!("{at}: property {name} is not allowed"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, item) in a.iter().enumerate() {
                        validate(s, root, item, &format!("{at}[{i}]"), errors);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(a) = v.as_array() {
                    let n = s.as_u64().unwrap() as usize;
                    let bad = if k == "minItems" {
                        a.len() < n
                    } else {
                        a.len() > n
                    };
                    if bad {
                        errors.push(format!("{at}: {k} {n}, has {}", a.len()));
                    }
                }
            }
            "anyOf" => {
                let ok = s.as_array().unwrap().iter().any(|alt| {
                    let mut e = Vec::new();
                    validate(alt, root, v, at, &mut e);
                    e.is_empty()
                });
                if !ok {
                    errors.push(format!("{at}: matches none of anyOf"));
                }
            }
            other => panic!("the validator does not support the keyword {other}"),
        }
    }
}

/// What is wrong with `doc` as CSL-JSON, by the CSL schema in `tests/csl` (empty: nothing).
pub fn csl_errors(doc: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(include_str!("../../csl/csl-data.json"))
        .expect("the CSL schema parses");
    let mut errors = Vec::new();
    validate(&schema, &schema, doc, "$", &mut errors);
    errors
}
