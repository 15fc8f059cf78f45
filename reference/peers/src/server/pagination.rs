//! Cursor-based pagination (`server/utilities/pagination.mdx`) with opaque cursors.
//!
//! A cursor is a hash of the list it belongs to and the offset it resumes at, remembered by the
//! session that issued it: a cursor of another list, of another session, or made up by the client
//! is invalid (-32602, "Invalid cursors SHOULD result in an error with code -32602"). The same
//! page always gets the same cursor ("provide stable cursors").
//!
//! The modern era (2026-07-28) may not rely on earlier requests (`basic/index.mdx`: "Servers
//! **MUST NOT** rely on prior requests over the same connection to establish context"; over HTTP
//! each request meets a fresh server): there a cursor is recognised by recomputing the cursor of
//! every offset of the list, which needs no memory. An empty string is a cursor like any other
//! and names no page: it is answered -32602 as an invalid cursor, never as "from the start".

use super::invalid_params;
use crate::faults::Fault;
use mcpspec_protocol::wire::ErrorObject;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The cursor of a list at an offset. FNV-1a: stable, dependency-free, and not a number a client
/// could guess the meaning of.
fn cursor_text(list: &str, offset: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in format!("mcpspec/{list}/{offset}").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("pg_{h:016x}")
}

/// A list's items: the fixture's, then `grown` more that `make` builds by index, only for the
/// page served (`--catalogue`: a page of 10,000 items costs a page).
pub(crate) struct Items<'a> {
    pub fixed: Vec<Value>,
    pub grown: usize,
    pub make: &'a dyn Fn(usize) -> Value,
}

impl<'a> Items<'a> {
    /// The fixture's items alone.
    pub fn fixed(fixed: Vec<Value>) -> Items<'a> {
        Items { fixed, grown: 0, make: &|_| Value::Null }
    }

    fn len(&self) -> usize {
        self.fixed.len() + self.grown
    }

    fn range(&self, range: std::ops::Range<usize>) -> Vec<Value> {
        let fixed = self.fixed.len();
        range.map(|i| if i < fixed { self.fixed[i].clone() } else { (self.make)(i - fixed) }).collect()
    }
}

/// How a list is paged: items per page, the server's fault, and whether cursors must be
/// recognised without memory (the modern era).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paging {
    pub page_size: usize,
    pub fault: Option<Fault>,
    pub modern: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Cursors {
    issued: HashMap<String, (&'static str, usize)>,
}

impl Cursors {
    fn cursor(&mut self, list: &'static str, offset: usize) -> String {
        let c = cursor_text(list, offset);
        self.issued.insert(c.clone(), (list, offset));
        c
    }

    /// One page of `items` under the member `key` (`tools`, `resources`, …), for the request's
    /// `params.cursor`. The last page has no `nextCursor`.
    pub(crate) fn page(
        &mut self,
        list: &'static str,
        key: &str,
        items: Items<'_>,
        params: Option<&Value>,
        how: Paging,
    ) -> Result<Value, ErrorObject> {
        let Paging { page_size, fault, modern } = how;
        let page_size = page_size.max(1);
        let offset = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match self.issued.get(c) {
                Some((l, offset)) if *l == list => *offset,
                _ if modern && (1..items.len()).any(|o| cursor_text(list, o) == *c) => {
                    (1..items.len()).find(|o| cursor_text(list, *o) == *c).unwrap_or(0)
                }
                _ if fault == Some(Fault::AcceptInvalidCursor) => 0,
                _ => return Err(invalid_params(&format!("invalid cursor {c:?} for {list}"))),
            },
            Some(other) => {
                return Err(invalid_params(&format!(
                    "params.cursor must be a string, found {}",
                    mcpspec_protocol::wire::describe(Some(other))
                )))
            }
        };
        let end = (offset + page_size).min(items.len());
        let page: Vec<Value> = if offset < end { items.range(offset..end) } else { Vec::new() };
        let mut result = json!({ key: page });
        if end < items.len() {
            // The fault makes consecutive pages overlap by one item.
            let next =
                if fault == Some(Fault::PaginationDuplicates) && end - 1 > offset { end - 1 } else { end };
            result["nextCursor"] = self.cursor(list, next).into();
        } else if fault == Some(Fault::PaginationCycle) {
            result["nextCursor"] = self.cursor(list, 0).into();
        }
        Ok(result)
    }
}
