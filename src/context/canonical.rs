//! Canonical JSON (object keys sorted, no whitespace) and digests over it. Written by hand
//! instead of relying on `serde_json::Map` ordering, which another crate in the build could
//! switch to insertion order through the `preserve_order` feature.

use serde::Serialize;
use serde_json::Value;

use crate::vault::fsutil::sha256_hex;

/// `value` as canonical JSON text.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// Canonical JSON of any serializable value.
pub fn of<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(v) => to_string(&v),
        Err(_) => String::new(),
    }
}

/// sha256 hex of the canonical JSON of `value`.
pub fn digest<T: Serialize>(value: &T) -> String {
    sha256_hex(of(value).as_bytes())
}

/// `value` as pretty JSON with sorted keys: stable for humans and for byte comparisons.
pub fn to_pretty(value: &Value) -> String {
    let sorted = sort(value);
    serde_json::to_string_pretty(&SortedValue(&sorted)).unwrap_or_default()
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                write(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A value whose objects are stored as sorted (key, value) lists.
enum Sorted {
    Leaf(Value),
    Array(Vec<Sorted>),
    Object(Vec<(String, Sorted)>),
}

fn sort(value: &Value) -> Sorted {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Sorted)> =
                map.iter().map(|(k, v)| (k.clone(), sort(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Sorted::Object(entries)
        }
        Value::Array(items) => Sorted::Array(items.iter().map(sort).collect()),
        other => Sorted::Leaf(other.clone()),
    }
}

struct SortedValue<'a>(&'a Sorted);

impl Serialize for SortedValue<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Sorted::Leaf(v) => v.serialize(s),
            Sorted::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&SortedValue(item))?;
                }
                seq.end()
            }
            Sorted::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, &SortedValue(v))?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sorted_without_whitespace() {
        let v = json!({"b": [1, {"z": 1, "a": "x y"}], "a": null});
        assert_eq!(to_string(&v), r#"{"a":null,"b":[1,{"a":"x y","z":1}]}"#);
        assert!(to_pretty(&v).find("\"a\"").unwrap() < to_pretty(&v).find("\"b\"").unwrap());
        assert_eq!(
            digest(&v),
            digest(&json!({"a": null, "b": [1, {"a": "x y", "z": 1}]}))
        );
    }
}
