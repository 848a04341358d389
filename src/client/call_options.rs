//! Per-call overrides for a derived handle (`gw_client_derive`, `Client::derive`).

use std::collections::BTreeMap;
use std::fmt;

use crate::error::Error;

/// What a handle derived for one call may change; everything else is the base's.
/// Unknown keys are refused, as for client options.
#[derive(Clone, Default)]
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
    /// This call's key instead of the client's (a multi-tenant service); checked like
    /// the client option, never printed, sent only to this call's origin.
    pub api_key: Option<String>,
    /// This call's gateway address instead of the client's, checked like the client
    /// option (plain http only to loopback unless the client allows it). The same
    /// origin reuses the client's pooled connections; another one gets its own.
    pub base_url: Option<String>,
}

// As `#[derive(Deserialize)]` with `#[serde(deny_unknown_fields)]` (see the macro).
crate::client::options::options_deserialize!(
    CallOptions,
    "struct CallOptions",
    CallOptions::default(),
    refuse,
    [
        total_timeout_ms,
        read_timeout_ms,
        connect_timeout_ms,
        first_byte_timeout_ms,
        max_retries,
        headers,
        idempotency_key,
        validate,
        api_key,
        base_url,
    ]
);

// Written by hand so that a per-call key never reaches a Debug print.
impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("total_timeout_ms", &self.total_timeout_ms)
            .field("read_timeout_ms", &self.read_timeout_ms)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("first_byte_timeout_ms", &self.first_byte_timeout_ms)
            .field("max_retries", &self.max_retries)
            .field(
                "headers",
                &self.headers.as_ref().map(|h| h.keys().collect::<Vec<_>>()),
            )
            .field("idempotency_key", &self.idempotency_key)
            .field("validate", &self.validate)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .field("base_url", &self.base_url)
            .finish()
    }
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
