//! The texts one chat chunk carries, per choice, kept from event to event.

/// The texts one event carries, per choice, in choice order. The strings are
/// kept from event to event so their capacity is reused.
#[derive(Default)]
pub(crate) struct TextSlots {
    slots: Vec<(usize, String)>,
    len: usize,
}

impl TextSlots {
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get(&self, i: usize) -> (usize, &str) {
        let (choice, text) = &self.slots[i];
        (*choice, text)
    }

    /// The text of slot `i`, as `get` gives it.
    pub(crate) fn get_mut(&mut self, i: usize) -> &mut String {
        &mut self.slots[i].1
    }

    /// Adds `piece` to the text of `choice`. Two pieces for one choice next to
    /// each other are joined here; apart, by `sort`. Constant time: a chunk may
    /// name 100,000 choices, so no search over the ones added.
    pub(crate) fn add(&mut self, choice: usize, piece: &str) {
        if let Some((c, text)) = self.len.checked_sub(1).map(|i| &mut self.slots[i]) {
            if *c == choice {
                text.push_str(piece);
                return;
            }
        }
        if self.len == self.slots.len() {
            self.slots.push((choice, String::new()));
        }
        let (c, text) = &mut self.slots[self.len];
        *c = choice;
        text.clear();
        text.push_str(piece);
        self.len += 1;
    }

    /// Puts the texts in choice order and joins the pieces of one choice (in the
    /// order they were added): O(n log n), and O(n) when already in order.
    pub(crate) fn sort(&mut self) {
        let slots = &mut self.slots[..self.len];
        if slots.windows(2).all(|w| w[0].0 < w[1].0) {
            return;
        }
        // Stable: the pieces of one choice keep their order.
        slots.sort_by_key(|(c, _)| *c);
        let mut kept = 0;
        for i in 1..slots.len() {
            if slots[i].0 == slots[kept].0 {
                let piece = std::mem::take(&mut slots[i].1);
                slots[kept].1.push_str(&piece);
                // The emptied slot keeps its buffer for a later event.
                slots[i].1 = piece;
            } else {
                kept += 1;
                slots.swap(kept, i);
            }
        }
        self.len = kept + 1;
    }
}
