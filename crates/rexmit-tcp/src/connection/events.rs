//! The connection's event queue (`Connection::poll_event`): first in, first out, with the
//! first event held in the connection itself. Owns: the order of events. Does not own: when
//! they happen.
//!
//! Why (issue 40 step 6): a data segment raises one `Delivered` that the application takes
//! before the next segment comes, so a queue kept only in a `VecDeque` wrote and read its heap
//! buffer, one more cache line per segment at 10 000 flows. The buffer now holds only events
//! beyond the first that are waiting together.

use super::Event;
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub(super) struct Events {
    /// The oldest event, if any; `rest` is empty whenever this is `None`.
    first: Option<Event>,
    rest: VecDeque<Event>,
}

impl Events {
    pub fn push_back(&mut self, e: Event) {
        if self.first.is_none() {
            debug_assert!(self.rest.is_empty());
            self.first = Some(e);
        } else {
            self.rest.push_back(e);
        }
    }

    #[inline]
    pub fn has_any(&self) -> bool {
        self.first.is_some()
    }

    pub fn pop_front(&mut self) -> Option<Event> {
        let e = self.first.take()?;
        self.first = self.rest.pop_front();
        Some(e)
    }
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`).
#[cfg(test)]
pub(super) fn field_offsets() -> Vec<(&'static str, usize)> {
    field_offsets!(Events; first, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_the_order_they_went_in() {
        let mut q = Events::default();
        let mut model = VecDeque::new();
        let mut n = 0;
        for round in 0..50u64 {
            for _ in 0..round % 4 {
                n += 1;
                q.push_back(Event::Delivered { bytes: n });
                model.push_back(Event::Delivered { bytes: n });
            }
            for _ in 0..round % 3 {
                assert_eq!(q.pop_front(), model.pop_front());
            }
        }
        while let Some(e) = model.pop_front() {
            assert_eq!(q.pop_front(), Some(e));
        }
        assert_eq!(q.pop_front(), None);
    }
}
