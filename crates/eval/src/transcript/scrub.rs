//! Secrets in transcripts: what is scrubbed, when, and what the file says about it.
//!
//! Every text a transcript writer writes goes through a [`Scrubber`] (the API key,
//! every `*_API_KEY` / `*_TOKEN` environment value, the credentials of the base URL,
//! `Bearer` tokens, the values of keys such as `api_key`): each occurrence becomes
//! [`REDACTED`].
//!
//! Scrubbing happens **before hashing**. An exchange is scrubbed as a whole first
//! ([`proagent_llm::record::Exchange::scrub`]); only then are the sha256 of its system
//! prompt and of its canonical request computed, from the scrubbed text. So every
//! hash in a transcript is the hash of exactly what the line holds, and a transcript
//! whose prompts contained a secret still passes the reader's checks.
//!
//! Every record that had something replaced says so in a `"scrubbed": N` field (the
//! number of replacements, never what was there); records with nothing replaced have
//! no such field.
//!
//! Values under [`MIN_SECRET_CHARS`] characters and plain English words are never
//! secrets ([`proagent_llm::scrub::could_be_secret`]), so a word of the prompts in a
//! `*_TOKEN` variable leaves the transcript readable.
//!
//! Replay: the re-run builds the prompt with the secret in it again, while the
//! recording holds `[REDACTED]`. The replayer ([`proagent_llm::replay::ReplayModel`])
//! scrubs each live request with the same kind of scrubber before looking it up, so
//! the request matches exactly when the same secrets are known; where they are not
//! (the variable unset on this machine), each scrubbed span is a wildcard and the
//! replayer says so. A reply that was itself scrubbed is served as recorded, with
//! `[REDACTED]` in it. Comparing a re-run with its recording
//! ([`super::diff::first_divergence`]) reads scrubbed spans the same way.
//!
//! Last line of defence: a serialised line in which the scrubber still finds a secret
//! (possible only for exotic secrets that match JSON escape sequences) is scrubbed as
//! text and a warning is logged, since never writing a secret matters more than that
//! line's hashes.

pub use proagent_llm::scrub::{MIN_SECRET_CHARS, REDACTED, Scrubber, redact_url};

use super::schema::Record;

/// Scrubs the free-form payload of a header (its config), step or footer record and
/// adds the number of replacements to the record's `scrubbed` count. Exchange
/// records are left alone: the writer scrubs an exchange before hashing it.
pub fn scrub_payload(s: &Scrubber, record: &mut Record) -> u64 {
    let (value, count) = match record {
        Record::Header(h) => (&mut h.config, &mut h.scrubbed),
        Record::Step(r) => (&mut r.data, &mut r.scrubbed),
        Record::Footer(f) => (&mut f.data, &mut f.scrubbed),
        Record::Exchange(_) => return 0,
    };
    let n = s.scrub_value(value);
    *count += n;
    n
}
