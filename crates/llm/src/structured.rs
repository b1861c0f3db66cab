//! Structured answers: a JSON schema a request asks the server to answer in (OpenAI's
//! `response_format` of type `json_schema`, which vLLM turns into guided decoding and
//! Ollama's OpenAI-compatible endpoint accepts too), the refusal that makes a client fall
//! back to free text, and the stand-in's way of answering in a schema.
//!
//! Guarantees: every schema built here is an object of string fields, all required, no
//! other properties (what OpenAI's strict mode accepts); [`fill_schema`] is total (any
//! text and any schema give JSON or `None`, never a panic) and deterministic.

use crate::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The fault kind recorded when a server refuses a request's schema and the request is
/// sent again as plain text.
pub const STRUCTURED_FALLBACK: &str = "structured_refused";

/// A JSON schema a reply must follow: OpenAI's `json_schema` object (its name and schema;
/// it is always sent with `strict: true`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseSchema {
    /// The schema's name (letters, digits, `_` and `-`, at most 64).
    pub name: String,
    /// The JSON schema itself.
    pub schema: Value,
}

/// One field of an object schema: its name and either a free string
/// (`allowed` empty) or one of a fixed list of strings.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property name.
    pub name: &'static str,
    /// What the field holds, for the model.
    pub description: &'static str,
    /// The only values allowed (empty: any string).
    pub allowed: Vec<String>,
}

impl Field {
    /// A free-text string field.
    pub fn text(name: &'static str, description: &'static str) -> Field {
        Field { name, description, allowed: Vec::new() }
    }

    /// A string field that must be one of `allowed`.
    pub fn one_of(name: &'static str, description: &'static str, allowed: Vec<String>) -> Field {
        Field { name, description, allowed }
    }
}

impl ResponseSchema {
    /// An object schema named `name` whose fields are `fields`, in order, every one a
    /// required string, no other property allowed.
    pub fn object(name: &str, fields: &[Field]) -> ResponseSchema {
        let mut props = Map::new();
        for f in fields {
            let mut p = json!({"type": "string", "description": f.description});
            if !f.allowed.is_empty() {
                p["enum"] = json!(f.allowed);
            }
            props.insert(f.name.to_string(), p);
        }
        let required: Vec<&str> = fields.iter().map(|f| f.name).collect();
        ResponseSchema {
            name: name.to_string(),
            schema: json!({"type": "object", "properties": props, "required": required, "additionalProperties": false}),
        }
    }

    /// The schema's required properties, in order (empty for a schema that lists none).
    pub fn fields(&self) -> Vec<String> {
        self.schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// The values a property is limited to (empty: any string).
    pub fn allowed(&self, field: &str) -> Vec<String> {
        self.schema
            .pointer(&format!("/properties/{field}/enum"))
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    }
}

/// Whether a refusal (HTTP `status`, the server's `message`) is about the structured
/// answer: a 400 or 422 whose text names `response_format`, `json_schema` or guided
/// decoding. Such a request is sent again without its schema, once.
pub fn is_schema_refusal(status: u16, message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    matches!(status, 400 | 422) && (m.contains("response_format") || m.contains("json_schema") || m.contains("guided"))
}

/// The text's answer in `schema`, as JSON text: each required field is read from the
/// first line labelled with its name (`Plan: ...`, `**Action:** ...`, `Plan for Player 0:
/// ...`, any case: the name starts the line after markdown marks, and a `:` follows within
/// a few words), up to the next labelled line. A field limited to a list of values takes
/// the listed value the read text starts with, else the longest listed one it contains; a
/// free-text field without a label is empty. The rule-based stand-ins answer in labelled
/// lines, so the built-in mock server answers a structured request by passing the
/// stand-in's reply through this. `None` when no field has a label, or a listed-value field
/// matches no listed value.
pub fn fill_schema(text: &str, schema: &ResponseSchema) -> Option<String> {
    let fields = schema.fields();
    if fields.is_empty() {
        return None;
    }
    // Each line's field (if it is labelled) and the value after its label.
    let labelled: Vec<(Option<usize>, &str)> = text
        .lines()
        .map(|line| {
            let body = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '#' | '-' | '>' | '_'));
            let lower = body.to_ascii_lowercase();
            let field = fields.iter().position(|f| {
                let f = f.to_ascii_lowercase();
                lower.starts_with(&f)
                    && lower[f.len()..].chars().next().is_some_and(|c| !c.is_alphanumeric() && c != '_')
                    && lower.find(':').is_some_and(|at| at >= f.len() && at <= f.len() + 24)
            });
            match field {
                // ASCII folding keeps offsets, and ':' is one byte.
                Some(i) => (Some(i), lower.find(':').map_or("", |at| &body[at + 1..])),
                None => (None, line),
            }
        })
        .collect();
    if labelled.iter().all(|(f, _)| f.is_none()) {
        // A one-field free-text schema takes the whole text.
        return match fields.as_slice() {
            [only] if schema.allowed(only).is_empty() && !text.trim().is_empty() => {
                let mut out = Map::new();
                out.insert(only.clone(), Value::String(text.trim().to_string()));
                serde_json::to_string(&Value::Object(out)).ok()
            }
            _ => None,
        };
    }
    let mut out = Map::new();
    for (i, name) in fields.iter().enumerate() {
        let value = match labelled.iter().position(|(f, _)| *f == Some(i)) {
            Some(at) => {
                let mut v = vec![labelled[at].1];
                v.extend(labelled[at + 1..].iter().take_while(|(f, _)| f.is_none()).map(|(_, l)| *l));
                v.join("\n")
            }
            None => String::new(),
        };
        let value = value.trim().trim_matches(|c: char| matches!(c, '*' | '"' | '`' | '.') || c.is_whitespace());
        let allowed = schema.allowed(name);
        let value = if allowed.is_empty() {
            value.to_string()
        } else {
            let v = value.to_ascii_lowercase();
            let mut by_len = allowed.clone();
            // The longest listed value first, so "Not Okay" wins over "Okay" and "room 10"
            // over "room 1".
            by_len.sort_by_key(|a| std::cmp::Reverse(a.len()));
            by_len
                .iter()
                .find(|a| v.starts_with(&a.to_ascii_lowercase()))
                .or_else(|| by_len.iter().find(|a| v.contains(&a.to_ascii_lowercase())))?
                .clone()
        };
        out.insert(name.to_string(), Value::String(value));
    }
    serde_json::to_string(&Value::Object(out)).ok()
}

/// A built-in model that answers in a request's schema: the inner model's labelled reply
/// passed through [`fill_schema`] (a reply that does not fit is returned as it is, and the
/// caller's strict reading counts it unreadable). How a rule-based stand-in serves a seat
/// with structured answers, as the built-in mock server does over HTTP. Requests without
/// a schema pass through unchanged, and so does the model's name.
pub struct SchemaAnswers {
    inner: Arc<dyn LanguageModel>,
}

impl SchemaAnswers {
    /// `inner`, answering in schemas.
    pub fn new(inner: Arc<dyn LanguageModel>) -> SchemaAnswers {
        SchemaAnswers { inner }
    }
}

#[async_trait]
impl LanguageModel for SchemaAnswers {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut reply = self.inner.chat(request).await?;
        if let Some(json) = request.response_format.as_ref().and_then(|s| fill_schema(&reply.text, s)) {
            reply.text = json;
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> ResponseSchema {
        ResponseSchema::object("plan", &[Field::text("analysis", "a"), Field::text("plan", "p")])
    }

    #[test]
    fn object_schemas_are_strict() {
        let s =
            ResponseSchema::object("v", &[Field::one_of("verification", "v", vec!["Okay".into(), "Not Okay".into()])]);
        assert_eq!(s.schema["additionalProperties"], false);
        assert_eq!(s.fields(), ["verification"]);
        assert_eq!(s.allowed("verification"), ["Okay", "Not Okay"]);
        assert_eq!(plan().fields(), ["analysis", "plan"]);
    }

    #[test]
    fn labelled_text_fills_the_schema() {
        let j = fill_schema("Analysis: soup is ready.\nPlan: fill_dish_with_soup()", &plan()).unwrap();
        assert_eq!(j, r#"{"analysis":"soup is ready","plan":"fill_dish_with_soup()"}"#);
        assert_eq!(fill_schema("Plan: x", &plan()).unwrap(), r#"{"analysis":"","plan":"x"}"#, "a missing text field");
        assert_eq!(fill_schema("Reanalysis: a\nplans: b", &plan()), None, "labels inside words");
        let j = fill_schema("**Analysis:** a\nmore\nPlan for Player 0: \"wait(1)\".", &plan()).unwrap();
        assert_eq!(j, r#"{"analysis":"a\nmore","plan":"wait(1)"}"#);
        let v =
            ResponseSchema::object("v", &[Field::one_of("verification", "v", vec!["Okay".into(), "Not Okay".into()])]);
        assert_eq!(fill_schema("Verification: Not Okay.", &v).unwrap(), r#"{"verification":"Not Okay"}"#);
        assert_eq!(fill_schema("**Verification**: okay", &v).unwrap(), r#"{"verification":"Okay"}"#);
        assert_eq!(fill_schema("Verification: okay", &v).unwrap(), r#"{"verification":"Okay"}"#);
        assert_eq!(fill_schema("Verification: maybe", &v), None);
        let one = ResponseSchema::object("t", &[Field::text("interpretation", "i")]);
        assert_eq!(fill_schema(" Bob wants a clue. ", &one).unwrap(), r#"{"interpretation":"Bob wants a clue."}"#);
        assert_eq!(fill_schema("Bob wants a clue.", &v), None, "a listed-value field needs its label");
    }

    #[test]
    fn schema_refusals_are_recognised() {
        assert!(is_schema_refusal(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported"));
        assert!(is_schema_refusal(422, "guided decoding backend failed"));
        assert!(!is_schema_refusal(400, "maximum context length exceeded"));
        assert!(!is_schema_refusal(401, "response_format"));
    }

    #[test]
    fn fill_schema_is_total() {
        for t in ["", ":", "plan:", "İ Plan: x Analysis:", "analysis:plan:", "\u{212A}analysis: a plan: b"] {
            let _ = fill_schema(t, &plan());
        }
    }
}
