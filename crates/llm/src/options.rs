//! The model-spec options, read once for every caller: the command line's model flags,
//! a `proagent[...]` or `llmco[...]` seat spec, the Python package's keyword options and the
//! web server's list of what a page may set all go through [`ModelSpec::apply_option`] and
//! the lists here, and a seat label's model part is [`ModelSpec::changed_options`]. A served
//! model's base URL defaults in one place, [`default_base_url`] (in `http`).
//!
//! Guarantees: [`ModelSpec::apply_option`] is total (any key and value give `Ok` or an
//! error, never a panic); an error names the option and says what it takes; a value is
//! applied only when it is in range, so a spec never holds a value the backends would
//! refuse. [`ModelSpec::changed_options`] lists only keys of [`LABELLED_OPTIONS`], in that
//! order, with values [`ModelSpec::apply_option`] reads back to the same spec.

use crate::family::{Effort, Family, TokenParam};
use crate::http::{ApiKey, MAX_BACKOFF, default_base_url};
use crate::scrub::Scrubber;
use crate::spec::ModelSpec;
use proagent_core::limits::MAX_RETRIES;

/// The model-spec options [`ModelSpec::apply_option`] knows, in the order flags list them.
pub const MODEL_OPTIONS: [&str; 14] = join_options(&[&SAMPLING_OPTIONS, &HTTP_OPTIONS]);

/// The options of [`MODEL_OPTIONS`] that say how a served model is reached (the run's, never
/// a seat's).
pub const HTTP_OPTIONS: [&str; 6] =
    ["base_url", "connect_timeout", "request_timeout", "retries", "backoff_ms", "backoff_max_ms"];

/// The options after the model that a seat label lists when they differ from a new spec's,
/// in the order labels list them ([`ModelSpec::changed_options`]). `effort`, `family` and
/// `token_param` set the request-parameter rules of [`crate::family`]; `structured` asks
/// for answers in a JSON schema ([`crate::structured`]).
pub const LABELLED_OPTIONS: [&str; 7] =
    ["temperature", "top_p", "max_tokens", "effort", "family", "token_param", "structured"];

/// The options of [`MODEL_OPTIONS`] a seat spec may set: the model and
/// [`LABELLED_OPTIONS`] (how a served model is reached comes from the run, never from a
/// seat).
pub const SAMPLING_OPTIONS: [&str; 8] = join_options(&[&["model"], &LABELLED_OPTIONS]);

/// The option lists `parts` one after the other, as one list of `N` options; built at
/// compile time, so a list whose length is not `N` does not compile. Agents build their
/// seat-option lists with it from [`SAMPLING_OPTIONS`] and their own switches.
pub const fn join_options<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            assert!(n < N, "the option lists are longer than N");
            out[n] = parts[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(n == N, "the option lists are shorter than N");
    out
}

/// `list` without the option `dropped`, as a list of `N` options (built at compile time:
/// a `dropped` that is not in `list`, or a wrong `N`, does not compile).
pub const fn without_option<const N: usize>(list: &[&'static str], dropped: &str) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < list.len() {
        if !same(list[i], dropped) {
            assert!(n < N, "the list has more than N other options");
            out[n] = list[i];
            n += 1;
        }
        i += 1;
    }
    assert!(n == N && n + 1 == list.len(), "the dropped option must be in the list once, N the rest");
    out
}

/// Whether two option names are the same (at compile time).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A value a model-spec option does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}={value:?}: {expected}")]
pub struct ModelOptionError {
    /// The option, as given.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// What the option takes.
    pub expected: String,
}

impl ModelOptionError {
    /// The error as the command line words it for the flag of the option
    /// (`--connect-timeout must be a number of seconds in (0, 86400], got 0`).
    pub fn as_flag(&self) -> String {
        format!("--{} must be {}, got {}", self.key.trim().replace('_', "-"), self.expected, self.value)
    }
}

/// The spec of model `name` (trimmed) with the default sampling, as it is reached when
/// served: the base URL from `base_url` or [`default_base_url`], the key from
/// `$OPENAI_API_KEY`, and the environment's other secrets for scrubbing.
pub fn served_model(name: &str, base_url: Option<&str>) -> ModelSpec {
    let mut spec = ModelSpec::new(name.trim());
    spec.secrets = Scrubber::from_env();
    spec.base_url = Some(default_base_url(base_url));
    spec.api_key = std::env::var("OPENAI_API_KEY").ok().and_then(ApiKey::new);
    spec
}

/// A number that `ok` accepts, or an error saying what was `expected`.
fn number<T: std::str::FromStr>(
    key: &str,
    value: &str,
    ok: impl Fn(&T) -> bool,
    expected: &str,
) -> Result<T, ModelOptionError> {
    value.parse::<T>().ok().filter(|v| ok(v)).ok_or_else(|| ModelOptionError {
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    })
}

impl ModelSpec {
    /// Sets option `key` (trimmed; one of [`MODEL_OPTIONS`]) to `value` (trimmed),
    /// range-checked as the command-line flags are: the one parser of model options for the
    /// flags, seat specs and Python. `Ok(false)`: `key` is not a model-spec option and
    /// nothing changed (the caller may know it); `Err`: the value is refused and nothing
    /// changed.
    pub fn apply_option(&mut self, key: &str, value: &str) -> Result<bool, ModelOptionError> {
        let spec = self;
        let value = value.trim();
        let bad = |expected: &str| ModelOptionError {
            key: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let seconds = |v: &f64| v.is_finite() && *v > 0.0 && *v <= 86_400.0;
        let max_ms = MAX_BACKOFF.as_millis() as u64;
        let millis = format!("a whole number of milliseconds in [0, {max_ms}]");
        match key.trim() {
            "model" => {
                if value.is_empty() {
                    return Err(bad("a model name"));
                }
                spec.model = value.to_string();
            }
            "temperature" => {
                spec.temperature = number(key, value, |t: &f32| (0.0..=2.0).contains(t), "a number in [0, 2]")?;
                spec.explicit.insert("temperature".into());
            }
            "top_p" => {
                spec.top_p = number(key, value, |t: &f32| *t > 0.0 && *t <= 1.0, "a number in (0, 1]")?;
                spec.explicit.insert("top_p".into());
            }
            "max_tokens" => {
                spec.max_tokens = number(key, value, |n: &u32| *n >= 1, "a whole number of at least 1")?;
                spec.explicit.insert("max_tokens".into());
            }
            "effort" => spec.reasoning_effort = Some(value.parse::<Effort>().map_err(|e| bad(&e.0))?),
            "family" => spec.family = Some(value.parse::<Family>().map_err(|e| bad(&e.0))?),
            "token_param" => spec.token_param = Some(value.parse::<TokenParam>().map_err(|e| bad(&e.0))?),
            "structured" => {
                spec.structured = match value.to_ascii_lowercase().as_str() {
                    "on" | "true" | "yes" | "1" => true,
                    "off" | "false" | "no" | "0" => false,
                    _ => return Err(bad("on or off")),
                }
            }
            "base_url" => {
                if value.is_empty() {
                    return Err(bad("a URL"));
                }
                spec.base_url = Some(value.to_string());
            }
            "connect_timeout" => {
                spec.connect_timeout_s = Some(number(key, value, seconds, "a number of seconds in (0, 86400]")?);
            }
            "request_timeout" => {
                spec.request_timeout_s = Some(number(key, value, seconds, "a number of seconds in (0, 86400]")?);
            }
            "retries" => {
                let expected = format!("a whole number in [0, {MAX_RETRIES}]");
                spec.retries = Some(number(key, value, |n: &u32| *n <= MAX_RETRIES, &expected)?);
            }
            "backoff_ms" => spec.backoff_ms = Some(number(key, value, |n: &u64| *n <= max_ms, &millis)?),
            "backoff_max_ms" => spec.backoff_max_ms = Some(number(key, value, |n: &u64| *n <= max_ms, &millis)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The options of [`LABELLED_OPTIONS`] whose values differ from a new spec's, as
    /// `(key, value)` in that order: the model part of a seat label after the model's name
    /// (`temperature=0.7`, `effort=high`, `structured=on`). Each value reads back through
    /// [`ModelSpec::apply_option`] to the same setting.
    pub fn changed_options(&self) -> Vec<(&'static str, String)> {
        let d = ModelSpec::new("");
        let name = |n: Option<&'static str>| n.map(str::to_string);
        let options = [
            ("temperature", (self.temperature != d.temperature).then(|| self.temperature.to_string())),
            ("top_p", (self.top_p != d.top_p).then(|| self.top_p.to_string())),
            ("max_tokens", (self.max_tokens != d.max_tokens).then(|| self.max_tokens.to_string())),
            ("effort", name(self.reasoning_effort.map(Effort::name))),
            ("family", name(self.family.map(Family::name))),
            ("token_param", name(self.token_param.map(TokenParam::name))),
            ("structured", self.structured.then(|| "on".to_string())),
        ];
        options.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_option_applies_and_checks_its_range() {
        let mut s = ModelSpec::new("x");
        for (k, v) in [
            ("model", " gpt-4o "),
            ("temperature", "0.7"),
            ("top_p", "0.9"),
            ("max_tokens", "64"),
            ("effort", "high"),
            ("family", "reasoning"),
            ("token_param", "max_tokens"),
            ("structured", "on"),
            ("base_url", "http://127.0.0.1:1/v1"),
            ("connect_timeout", "2.5"),
            ("request_timeout", "30"),
            ("retries", "3"),
            ("backoff_ms", "10"),
            ("backoff_max_ms", "20"),
        ] {
            assert_eq!(s.apply_option(k, v), Ok(true), "{k}");
        }
        assert_eq!((s.model.as_str(), s.temperature, s.top_p, s.max_tokens), ("gpt-4o", 0.7, 0.9, 64));
        assert!(s.structured && s.sampling().structured);
        assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:1/v1"));
        assert_eq!((s.connect_timeout_s, s.request_timeout_s, s.retries), (Some(2.5), Some(30.0), Some(3)));
        assert_eq!((s.backoff_ms, s.backoff_max_ms), (Some(10), Some(20)));
        assert_eq!(
            (s.reasoning_effort, s.family, s.token_param),
            (Some(Effort::High), Some(Family::Reasoning), Some(TokenParam::MaxTokens))
        );
        assert_eq!(s.explicit.iter().map(String::as_str).collect::<Vec<_>>(), ["max_tokens", "temperature", "top_p"]);
        let before = s.clone();
        for (k, v, expected) in [
            ("model", "  ", "a model name"),
            ("temperature", "2.5", "a number in [0, 2]"),
            ("temperature", "NaN", "a number in [0, 2]"),
            ("top_p", "0", "a number in (0, 1]"),
            ("max_tokens", "0", "a whole number of at least 1"),
            ("effort", "extreme", "low, medium or high"),
            ("family", "fast", "chat or reasoning"),
            ("token_param", "max_length", "max_tokens or max_completion_tokens"),
            ("structured", "maybe", "on or off"),
            ("base_url", "", "a URL"),
            ("connect_timeout", "0", "a number of seconds in (0, 86400]"),
            ("request_timeout", "inf", "a number of seconds in (0, 86400]"),
            ("retries", "101", "a whole number in [0, 100]"),
            ("backoff_ms", "-1", "a whole number of milliseconds in [0, 3600000]"),
            ("backoff_max_ms", "3600001", "a whole number of milliseconds in [0, 3600000]"),
        ] {
            let e = s.apply_option(k, v).unwrap_err();
            assert_eq!((e.key.as_str(), e.expected.as_str()), (k, expected));
            assert!(e.to_string().starts_with(&format!("{k}=")), "{e}");
        }
        assert_eq!(s, before, "a refused value changes nothing");
        assert_eq!(s.apply_option("memory_k", "2"), Ok(false));
        let e = s.apply_option("connect_timeout", "0").unwrap_err();
        assert_eq!(e.as_flag(), "--connect-timeout must be a number of seconds in (0, 86400], got 0");
    }

    #[test]
    fn changed_options_name_every_set_option_in_label_order_and_read_back() {
        assert_eq!(ModelSpec::new("m").changed_options(), []);
        let mut s = ModelSpec::new("m");
        for (k, v) in [
            ("structured", "yes"),
            ("token_param", "max_completion_tokens"),
            ("max_tokens", "64"),
            ("effort", "low"),
            ("temperature", "0.7"),
            ("family", "chat"),
            ("top_p", "0.95"),
            ("base_url", "http://127.0.0.1:1/v1"),
            ("retries", "2"),
        ] {
            assert_eq!(s.apply_option(k, v), Ok(true), "{k}");
        }
        let changed = s.changed_options();
        assert_eq!(
            changed,
            [
                ("temperature", "0.7".to_string()),
                ("top_p", "0.95".to_string()),
                ("max_tokens", "64".to_string()),
                ("effort", "low".to_string()),
                ("family", "chat".to_string()),
                ("token_param", "max_completion_tokens".to_string()),
                ("structured", "on".to_string()),
            ]
        );
        let keys: Vec<&str> = changed.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, LABELLED_OPTIONS, "every labelled option, in the list's order");
        let mut back = ModelSpec::new("m");
        for (k, v) in &changed {
            assert_eq!(back.apply_option(k, v), Ok(true), "{k}");
        }
        assert_eq!(back.changed_options(), changed);
        let mut expected = s.clone();
        (expected.base_url, expected.retries) = (None, None);
        assert_eq!(back, expected, "the label's options rebuild the sampling and the parameter rules");
    }

    #[test]
    fn the_option_lists_are_built_from_one_another() {
        assert_eq!(SAMPLING_OPTIONS[0], "model");
        assert_eq!(&SAMPLING_OPTIONS[1..], LABELLED_OPTIONS);
        assert_eq!(MODEL_OPTIONS[..8], SAMPLING_OPTIONS);
        assert_eq!(MODEL_OPTIONS[8..], HTTP_OPTIONS);
        const JOINED: [&str; 4] = join_options(&[&["a"], &[], &["b", "c"], &["d"]]);
        assert_eq!(JOINED, ["a", "b", "c", "d"]);
        const DROPPED: [&str; 3] = without_option(&JOINED, "c");
        assert_eq!(DROPPED, ["a", "b", "d"]);
    }

    #[test]
    fn the_base_url_default_is_the_given_one_first() {
        assert_eq!(default_base_url(Some("http://h/v1")), "http://h/v1");
        assert_eq!(served_model(" m ", Some("http://h/v1")).base_url.as_deref(), Some("http://h/v1"));
        assert_eq!(served_model(" m ", Some("http://h/v1")).model, "m");
    }

    /// Random keys and values (known keys with junk, junk keys, unicode, huge numbers)
    /// never panic, and every refusal names its option and leaves the spec as it was.
    #[test]
    fn random_strings_never_panic() {
        let mut rng = ChaCha8Rng::seed_from_u64(38);
        let alphabet: Vec<char> = "0123456789.-+eEinfNa _x=,[]é\u{0}\u{2028}/:".chars().collect();
        let text = |rng: &mut ChaCha8Rng| -> String {
            let n = rng.random_range(0..12);
            (0..n).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect()
        };
        let mut spec = ModelSpec::new("m");
        for _ in 0..20_000 {
            let key = if rng.random_bool(0.8) {
                MODEL_OPTIONS[rng.random_range(0..MODEL_OPTIONS.len())].to_string()
            } else {
                text(&mut rng)
            };
            let value = text(&mut rng);
            let before = spec.clone();
            match spec.apply_option(&key, &value) {
                Ok(true) => assert!(MODEL_OPTIONS.contains(&key.trim())),
                Ok(false) => {
                    assert!(!MODEL_OPTIONS.contains(&key.trim()));
                    assert_eq!(spec, before);
                }
                Err(e) => {
                    assert_eq!(e.key, key);
                    assert!(e.to_string().contains(&key), "{e}");
                    assert_eq!(spec, before);
                }
            }
        }
    }
}
