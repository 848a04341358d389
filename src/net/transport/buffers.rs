//! The transport's buffers: ureq's input side, and an output window behind
//! which a small output is held back until the next one or the next read.

use ureq::unversioned::transport::{Buffers, LazyBuffers};

use crate::net::direct_body;

/// Output held back is written at the latest once it reaches this size.
pub(super) const HOLD_MAX: usize = 16 * 1024;

/// ureq's buffers, with output held back: a small output (a request head) stays
/// in the buffer and the next one (its body) is written behind it, so both leave
/// in one write. ureq writes into `output()` in place, so nothing is copied.
pub(super) struct GwBuffers {
    /// The input side as ureq's own buffers keep it (their output is unused).
    input: LazyBuffers,
    /// Held bytes, then the window ureq writes into; allocated at first use.
    pub(super) output: Vec<u8>,
    /// The window's size: ureq's output_buffer_size.
    window: usize,
    /// Bytes at the start of `output` not written to the socket yet.
    pub(super) held: usize,
}

impl GwBuffers {
    pub(super) fn new(input_size: usize, output_size: usize) -> GwBuffers {
        GwBuffers {
            input: LazyBuffers::new(input_size, 1),
            output: Vec::new(),
            window: output_size,
            held: 0,
        }
    }

    fn window(&mut self) -> &mut [u8] {
        if self.output.is_empty() {
            self.output = vec![0; HOLD_MAX + self.window];
        }
        let window = &mut self.output[self.held..self.held + self.window];
        // A body reader may leave it unwritten and have the caller's bytes sent instead.
        direct_body::note_window(window.as_ptr());
        window
    }

    /// Where the window starts now (null before the first use).
    pub(super) fn window_start(&self) -> *const u8 {
        self.output
            .get(self.held..)
            .map_or(std::ptr::null(), |w| w.as_ptr())
    }
}

impl Buffers for GwBuffers {
    fn output(&mut self) -> &mut [u8] {
        self.window()
    }

    fn input(&self) -> &[u8] {
        self.input.input()
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.input.input_append_buf()
    }

    fn input_appended(&mut self, amount: usize) {
        self.input.input_appended(amount)
    }

    fn input_consume(&mut self, amount: usize) {
        self.input.input_consume(amount)
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        self.window();
        let (tmp, _) = self.input.tmp_and_output();
        (tmp, &mut self.output[self.held..self.held + self.window])
    }

    fn can_use_input(&self) -> bool {
        self.input.can_use_input()
    }
}
