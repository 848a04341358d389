//! Streamed calls: the entry points (`stream`, `stream_events`, `stream_open`)
//! over the pull stream of `event_stream.rs`.

use serde_json::Value;

use crate::api::ops::Operation;
use crate::api::raw_json::JsonText;
use crate::client::event_stream::EventStream;
use crate::client::plain::parse_serialised;
use crate::client::Client;
use crate::error::Error;
use crate::stream::driver::StreamEvent;

impl Client {
    /// Streams an operation: `on_event` sees each event and returns false to
    /// cancel. Returns the assembled final object (see `stream/driver.rs`). Written on
    /// the pull API (`stream_open`): one stream driver, not two.
    pub fn stream(
        &self,
        op: &Operation,
        body: &Value,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<String, Error> {
        let text = body.to_string();
        self.stream_text(op, &parse_serialised(&text)?, on_event)
    }

    /// `stream` with the body as the caller's JSON text.
    pub(crate) fn stream_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<String, Error> {
        let mut stream = EventStream::open(self, op, body, true)?;
        stream.pump(on_event)?;
        stream.finish()
    }

    /// As `stream`, without the final object: for callers that only want the
    /// events, memory stays flat however long the stream runs.
    pub fn stream_events(
        &self,
        op: &Operation,
        body: &Value,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<(), Error> {
        let text = body.to_string();
        self.stream_events_text(op, &parse_serialised(&text)?, on_event)
    }

    /// `stream_events` with the body as the caller's JSON text.
    pub(crate) fn stream_events_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<(), Error> {
        EventStream::open(self, op, body, false)?.pump(on_event)
    }

    /// Sends a streaming request and waits for the answer's headers; the events
    /// are then pulled from the returned stream.
    pub fn stream_open(&self, op: &Operation, body: &Value) -> Result<EventStream<'static>, Error> {
        let text = body.to_string();
        self.stream_open_text(op, &parse_serialised(&text)?)
    }

    /// `stream_open` with the body as the caller's JSON text.
    pub(crate) fn stream_open_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
    ) -> Result<EventStream<'static>, Error> {
        EventStream::open(self, op, body, true).map(EventStream::into_owned)
    }
}
