//! Per-call overrides for a derived handle (`gw_client_derive`, `Client::derive`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::Error;

/// What a handle derived for one call may change; everything else is the base's.
/// Unknown keys are refused, as for client options.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallOptions {
    pub total_timeout_ms: Option<u64>,
    pub read_timeout_ms: Option<u64>,
    pub connect_timeout_ms: Option<u64>,
    pub first_byte_timeout_ms: Option<u64>,
    pub max_retries: Option<u32>,
    /// Merged over the base's headers (same name: this value wins).
    pub headers: Option<BTreeMap<String, String>>,
    /// Sent as `Idempotency-Key` on every attempt of a POST on this handle.
    pub idempotency_key: Option<String>,
    pub validate: Option<bool>,
}

impl CallOptions {
    /// Parses overrides JSON; NULL-equivalent (empty) gives none.
    pub fn from_json(json: &str) -> Result<CallOptions, Error> {
        if json.trim().is_empty() {
            return Ok(CallOptions::default());
        }
        crate::client::options::parse_named(json)
    }
}
