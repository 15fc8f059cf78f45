//! The smallest input that still fails the same way.
//!
//! A [`Probe`] runs a candidate against the implementation (a fresh process each time) and
//! says whether it still fails with the same signature. Minimization is budgeted in probes
//! and in time: a hang costs a timeout per probe. So every phase aims at few probes: chunks
//! before single items, binary search wherever a size is the likely cause (nesting depth,
//! string length), and a cache so no candidate is run twice.
//!
//! The phases, each on what the previous one left:
//! 1. the writes: ddmin (chunks of writes removed, the chunk size halving, order kept);
//! 2. each write that is one JSON line: long chains of single-child nesting cut by binary
//!    search on their depth (worked on as text: such documents are often deeper than any
//!    parser here will go), then members and elements removed in chunks, containers replaced
//!    by one of their children and long strings cut by binary search on their length, the
//!    message re-encoded with [`framing::encode`] after each change;
//! 3. the bytes of the writes, largest first: ddmin over byte ranges, bounded.
//!
//! Only candidates smaller than the best so far are run, and only one the probe confirmed
//! replaces it: the result is the input or a confirmed failure, never larger.

use super::Input;
use mcpspec_protocol::framing;
use serde_json::Value;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, Instant};

/// Runs a candidate and tells whether it fails as the original did.
#[allow(async_fn_in_trait)]
pub trait Probe {
    async fn still_fails(&mut self, candidate: &Input) -> bool;
}

/// How much minimization may spend on one finding.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub probes: usize,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { probes: 500, time: Duration::from_secs(30) }
    }
}

/// Chains of single-child nesting at least this long are cut by binary search on their depth;
/// shorter ones are left to the structural steps, one level per probe.
const CHAIN_MIN: usize = 8;

/// At most this many chains per write get a binary search of their own.
const CHAINS_PER_WRITE: usize = 4;

/// Strings at least this long (in characters) are cut by binary search on their length.
const STRING_MIN: usize = 16;

/// What the byte phase may spend in all: after the structural phases it rarely finds much in a
/// JSON line, and every probe is a process.
const BYTE_PROBES: usize = 64;

/// In a write that is a JSON line, the byte phase removes no chunk smaller than this fraction
/// of the write: a few bytes cut from JSON break it, which the structural phase already knew.
const JSON_BYTE_GRANULARITY: usize = 16;

/// Shrinks `input` (which fails) while `probe` says the candidate still fails. `label` and
/// `fresh` are kept; a shrunk input's label says it was minimized.
pub async fn minimize(input: Input, probe: &mut impl Probe, budget: Budget) -> Input {
    let mut shrinker = Shrinker::new(input.clone(), probe, budget);
    shrinker.shape().await;
    shrinker.writes().await;
    shrinker.json().await;
    shrinker.bytes().await;
    let mut best = shrinker.best;
    if best.writes != input.writes || best.http != input.http {
        best.label = format!("{}, minimized", input.label);
    }
    best
}

/// The best input so far and what is left of the budget.
struct Shrinker<'p, P> {
    best: Input,
    probe: &'p mut P,
    probes_left: usize,
    probes_run: usize,
    deadline: Option<Instant>,
    /// Hashes of the candidates already run (a hash, not the candidate: some are megabytes).
    tried: HashSet<u64>,
    hasher: RandomState,
    exhausted: bool,
}

impl<'p, P: Probe> Shrinker<'p, P> {
    fn new(best: Input, probe: &'p mut P, budget: Budget) -> Self {
        Shrinker {
            best,
            probe,
            probes_left: budget.probes,
            probes_run: 0,
            deadline: Instant::now().checked_add(budget.time),
            tried: HashSet::new(),
            hasher: RandomState::new(),
            exhausted: false,
        }
    }

    /// Runs the candidate if it is smaller than the best, new, and the budget allows; true
    /// when it still fails (and is now the best).
    async fn attempt(&mut self, writes: Vec<Vec<u8>>) -> bool {
        if self.exhausted || writes.is_empty() {
            return false;
        }
        let size: usize = writes.iter().map(Vec::len).sum();
        // Smaller in bytes, or as many bytes in fewer writes (empty writes removed): an order
        // every accepted candidate descends, so minimization ends.
        if (size, writes.len()) >= (self.best.len_bytes(), self.best.writes.len()) {
            return false;
        }
        if !self.tried.insert(self.hasher.hash_one(&writes)) {
            return false;
        }
        if !self.spend() {
            return false;
        }
        let candidate = Input {
            label: self.best.label.clone(),
            writes,
            fresh: self.best.fresh,
            http: self.best.http.clone(),
        };
        if self.probe.still_fails(&candidate).await {
            self.best = candidate;
            true
        } else {
            false
        }
    }

    /// One probe of the budget, if any is left (none: minimization is over).
    fn spend(&mut self) -> bool {
        if self.probes_left == 0 || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.exhausted = true;
            return false;
        }
        self.probes_left -= 1;
        self.probes_run += 1;
        true
    }

    /// [`Shrinker::attempt`] with write `index` replaced.
    async fn attempt_write(&mut self, index: usize, write: Vec<u8>) -> bool {
        let mut writes = self.best.writes.clone();
        writes[index] = write;
        self.attempt(writes).await
    }

    /// `value` as write `index` (a value that cannot be encoded is never run).
    async fn attempt_value(&mut self, index: usize, doc: &JsonLine, value: &Value) -> bool {
        match doc.encode(value) {
            Some(write) => self.attempt_write(index, write).await,
            None => false,
        }
    }

    /// The smallest `k` in `0..=hi` for which `candidate(k)` (written as write `index`) still
    /// fails, by binary search, assuming `candidate(hi)` is the current write. The best is
    /// `candidate(k)` afterwards.
    async fn bisect(&mut self, index: usize, hi: usize, candidate: impl Fn(usize) -> Vec<u8>) -> usize {
        let (mut lo, mut hi) = (0, hi);
        while lo < hi && !self.exhausted {
            let mid = lo + (hi - lo) / 2;
            if self.attempt_write(index, candidate(mid)).await {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        hi
    }

    /// Phase 0, over HTTP: the input sent as a correct client sends it, or with one bent
    /// header fewer at a time (an HTTP shape is never what makes a reproducer big, but a
    /// header that plays no part in the failure misleads whoever reads it); a bent response
    /// made smaller.
    async fn shape(&mut self) {
        let Some(shape) = self.best.http.clone() else { return };
        if self.attempt_shape(None).await {
            return;
        }
        for name in shape.headers.iter().map(|(name, _)| name.clone()) {
            let Some(mut fewer) = self.best.http.clone() else { return };
            fewer.headers.retain(|(n, _)| *n != name);
            let fewer = (fewer.method.is_some() || !fewer.headers.is_empty() || fewer.reply.is_some())
                .then_some(fewer);
            self.attempt_shape(fewer).await;
            if self.exhausted {
                return;
            }
        }
        // A bent response (fuzzing a client): a smaller bend of it while one still fails.
        while let Some(reply) = self.best.http.as_ref().and_then(|h| h.reply.clone()) {
            let mut shrunk = false;
            for smaller in reply.smaller() {
                let Some(mut shape) = self.best.http.clone() else { return };
                shape.reply = Some(smaller);
                if self.attempt_shape(Some(shape)).await {
                    shrunk = true;
                    break;
                }
                if self.exhausted {
                    return;
                }
            }
            if !shrunk {
                return;
            }
        }
    }

    /// The best input with another HTTP shape: true when it still fails (and is now the best).
    async fn attempt_shape(&mut self, http: Option<crate::fuzz::HttpShape>) -> bool {
        if self.exhausted || !self.spend() {
            return false;
        }
        let candidate = Input { http, ..self.best.clone() };
        if self.probe.still_fails(&candidate).await {
            self.best = candidate;
            true
        } else {
            false
        }
    }

    /// Phase 1: ddmin over the writes.
    async fn writes(&mut self) {
        let mut plan = Ddmin::new(self.best.writes.len(), 1);
        while let Some((start, end)) = plan.next() {
            let mut writes = self.best.writes.clone();
            writes.drain(start..end);
            let kept = self.attempt(writes).await;
            if self.exhausted {
                return;
            }
            plan.report(kept);
        }
    }

    /// Phase 2: each write that is one JSON line, largest first.
    async fn json(&mut self) {
        for index in self.largest_first() {
            self.cut_chains(index).await;
            self.reduce_structure(index).await;
            if self.exhausted {
                return;
            }
        }
    }

    /// Cuts the longest chains of single-child nesting in write `index` to the smallest depth
    /// that still fails.
    async fn cut_chains(&mut self, index: usize) {
        for rank in 0..CHAINS_PER_WRITE {
            let write = self.best.writes[index].clone();
            let Some(line) = one_line(&write) else { return };
            let Some(nodes) = Nesting::scan(line) else { return };
            let mut chains = nodes.chains();
            chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
            let Some(chain) = chains.into_iter().filter(|c| c.len() > CHAIN_MIN).nth(rank) else { return };
            // Keeping depth `d` replaces the chain's outermost node by the node `d` levels
            // above its innermost one.
            let (outer_start, outer_end) = chain[0];
            let levels = chain.len() - 1;
            let newline = &write[line.len()..];
            let candidate = |d: usize| {
                let (start, end) = chain[levels - d];
                [&line[..outer_start], &line[start..end], &line[outer_end..], newline].concat()
            };
            self.bisect(index, levels, candidate).await;
            if self.exhausted {
                return;
            }
        }
    }

    /// Removes members and elements, replaces containers by a child and cuts long strings in
    /// write `index`, until none of that shrinks it.
    async fn reduce_structure(&mut self, index: usize) {
        let Some(mut doc) = JsonLine::parse(&self.best.writes[index]) else { return };
        loop {
            let before = self.best.len_bytes();
            self.remove_children(index, &mut doc).await;
            self.hoist_children(index, &mut doc).await;
            self.cut_strings(index, &mut doc).await;
            if self.exhausted || self.best.len_bytes() == before {
                return;
            }
        }
    }

    async fn remove_children(&mut self, index: usize, doc: &mut JsonLine) {
        let mut at = 0;
        let mut listed = Listing::of(&doc.value);
        while let Some(path) = listed.next(&mut at) {
            let count = node(&doc.value, &path).map_or(0, children);
            let mut plan = Ddmin::new(count, 1);
            while let Some((start, end)) = plan.next() {
                let mut value = doc.value.clone();
                if let Some(node) = node_mut(&mut value, &path) {
                    remove_range(node, start, end);
                }
                let kept = self.attempt_value(index, doc, &value).await;
                if self.exhausted {
                    return;
                }
                if kept {
                    doc.value = value;
                    // Containers are listed outermost first: those before this one stay where
                    // they are, those after may be gone.
                    listed = Listing::of(&doc.value);
                }
                plan.report(kept);
            }
        }
    }

    async fn hoist_children(&mut self, index: usize, doc: &mut JsonLine) {
        // Not the message itself (index 0): a child of it in its place is no message, and the
        // failures worth a reproducer are those of messages (the byte phase still tries it).
        let mut at = 1;
        let mut listed = Listing::of(&doc.value);
        while let Some(path) = listed.next(&mut at) {
            let count = node(&doc.value, &path).map_or(0, children);
            for child in 0..count {
                let mut value = doc.value.clone();
                if let Some(node) = node_mut(&mut value, &path) {
                    *node = take_child(node, child);
                }
                let kept = self.attempt_value(index, doc, &value).await;
                if self.exhausted {
                    return;
                }
                if kept {
                    doc.value = value;
                    listed = Listing::of(&doc.value);
                    break;
                }
            }
        }
    }

    async fn cut_strings(&mut self, index: usize, doc: &mut JsonLine) {
        for path in long_strings(&doc.value) {
            let Some(Value::String(text)) = node(&doc.value, &path) else { continue };
            let chars: Vec<char> = text.chars().collect();
            let n = chars.len();
            let current = self.best.writes[index].clone();
            let with = |text: String| {
                let mut value = doc.value.clone();
                if let Some(node) = node_mut(&mut value, &path) {
                    *node = Value::String(text);
                }
                value
            };
            // A candidate that cannot be encoded is the current write, which is never run.
            let write = |value: Value| doc.encode(&value).unwrap_or_else(|| current.clone());
            let prefix = |k: usize| chars[..k].iter().collect::<String>();
            let suffix = |k: usize| chars[n - k..].iter().collect::<String>();
            // The beginning first (ids and arguments are usually too long, not wrong at the
            // end); the end when no shorter beginning fails.
            let k = self.bisect(index, n, |k| write(with(prefix(k)))).await;
            let text = match k < n {
                true => prefix(k),
                false => suffix(self.bisect(index, n, |k| write(with(suffix(k)))).await),
            };
            let value = with(text);
            doc.value = value;
            if self.exhausted {
                return;
            }
        }
    }

    /// Phase 3: ddmin over the bytes of each write, largest first, within [`BYTE_PROBES`].
    async fn bytes(&mut self) {
        let stop_at = self.probes_run + BYTE_PROBES;
        for index in self.largest_first() {
            let len = self.best.writes[index].len();
            let finest = match JsonLine::parse(&self.best.writes[index]) {
                Some(_) => (len / JSON_BYTE_GRANULARITY).max(1),
                None => 1,
            };
            let mut plan = Ddmin::new(len, finest);
            while let Some((start, end)) = plan.next() {
                if self.probes_run >= stop_at {
                    return;
                }
                let mut write = self.best.writes[index].clone();
                write.drain(start..end);
                // An empty write is the write removed, which phase 1 tried.
                let kept = !write.is_empty() && self.attempt_write(index, write).await;
                if self.exhausted {
                    return;
                }
                plan.report(kept);
            }
        }
    }

    fn largest_first(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.best.writes.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.best.writes[i].len()));
        order
    }
}

/// The plan of a ddmin over a sequence of `len` items, as a state machine: [`Ddmin::next`]
/// names the range to try without, [`Ddmin::report`] says whether that was kept. Chunks start
/// at half the sequence and halve down to `finest`, where passes repeat until one removes
/// nothing.
#[derive(Debug)]
struct Ddmin {
    len: usize,
    chunk: usize,
    finest: usize,
    start: usize,
    removed_in_pass: bool,
    /// The range handed out and not yet reported.
    pending: Option<(usize, usize)>,
}

impl Ddmin {
    fn new(len: usize, finest: usize) -> Ddmin {
        let finest = finest.max(1);
        Ddmin { len, chunk: (len / 2).max(finest), finest, start: 0, removed_in_pass: false, pending: None }
    }

    fn next(&mut self) -> Option<(usize, usize)> {
        if self.start >= self.len {
            if self.chunk > self.finest {
                self.chunk = (self.chunk / 2).max(self.finest);
            } else if !self.removed_in_pass {
                return None;
            }
            self.start = 0;
            self.removed_in_pass = false;
        }
        if self.len == 0 {
            return None;
        }
        let range = (self.start, (self.start + self.chunk).min(self.len));
        self.pending = Some(range);
        Some(range)
    }

    fn report(&mut self, kept: bool) {
        let Some((start, end)) = self.pending.take() else { return };
        if kept {
            // The items after the range moved into it: the same start is tried again.
            self.len -= end - start;
            self.removed_in_pass = true;
        } else {
            self.start = end;
        }
    }
}

/// The line of a write that is one line: without its final newline, which it must end with
/// unless it is the only line.
fn one_line(write: &[u8]) -> Option<&[u8]> {
    let line = write.strip_suffix(b"\n").unwrap_or(write);
    (!line.contains(&b'\n')).then_some(line)
}

/// The containers of a JSON text and how they nest, found by a scan that keeps its own stack
/// (the text may be nested deeper than any recursive parser survives).
#[derive(Debug, Default)]
struct Nesting {
    /// `(start, end)` byte span of each container, in the order they open.
    spans: Vec<(usize, usize)>,
    /// The one child of a container that has exactly one, if that child is a container.
    only_child: Vec<Option<usize>>,
}

impl Nesting {
    /// `None` when the text's brackets do not balance.
    fn scan(text: &[u8]) -> Option<Nesting> {
        struct Open {
            id: usize,
            object: bool,
            expect_key: bool,
            children: usize,
        }
        let mut nesting = Nesting::default();
        let mut stack: Vec<Open> = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let b = text[i];
            let value_start = match b {
                b' ' | b'\t' | b'\r' | b'\n' => false,
                b',' | b':' => {
                    if let Some(top) = stack.last_mut() {
                        top.expect_key = top.object && b == b',';
                    }
                    false
                }
                b']' | b'}' => {
                    let top = stack.pop()?;
                    if top.object != (b == b'}') {
                        return None;
                    }
                    nesting.spans[top.id].1 = i + 1;
                    if top.children != 1 {
                        nesting.only_child[top.id] = None;
                    }
                    false
                }
                _ => true,
            };
            let mut next = i + 1;
            if value_start {
                let is_key = stack.last().is_some_and(|top| top.object && top.expect_key);
                let container = matches!(b, b'[' | b'{').then_some(nesting.spans.len());
                if b == b'"' {
                    next = string_end(text, i);
                } else if container.is_none() {
                    next = i + text[i..]
                        .iter()
                        .position(|c| b" \t\r\n,:[]{}\"".contains(c))
                        .unwrap_or(text.len() - i);
                }
                if let Some(top) = stack.last_mut().filter(|_| !is_key) {
                    top.children += 1;
                    if top.children == 1 {
                        nesting.only_child[top.id] = container;
                    }
                }
                if let Some(id) = container {
                    nesting.spans.push((i, text.len()));
                    nesting.only_child.push(None);
                    stack.push(Open { id, object: b == b'{', expect_key: b == b'{', children: 0 });
                }
            }
            i = next.max(i + 1);
        }
        stack.is_empty().then_some(nesting)
    }

    /// Each maximal chain of single-child nesting: the spans of its containers, outermost
    /// first; the last one's content is anything.
    fn chains(&self) -> Vec<Vec<(usize, usize)>> {
        let mut is_only_child = vec![false; self.spans.len()];
        for child in self.only_child.iter().flatten() {
            is_only_child[*child] = true;
        }
        let mut chains = Vec::new();
        for (head, linked) in is_only_child.iter().enumerate() {
            if *linked || self.only_child[head].is_none() {
                continue;
            }
            let mut chain = vec![self.spans[head]];
            let mut at = head;
            while let Some(child) = self.only_child[at] {
                chain.push(self.spans[child]);
                at = child;
            }
            chains.push(chain);
        }
        chains
    }
}

/// Where the string starting at `text[start] == b'"'` ends (after its closing quote).
fn string_end(text: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

/// A write that is one JSON line, parsed. Chains of nesting too deep for serde_json stand in
/// the value as placeholder strings and are put back as the text they were when encoding: the
/// structure around them still shrinks, and they were cut to size before.
struct JsonLine {
    value: Value,
    /// The text of each placeholder: `"<PLACEHOLDER><i>"` in the encoded value.
    chains: Vec<String>,
}

/// Starts every placeholder: text a line that has it is not parsed with placeholders.
const PLACEHOLDER: &str = "\u{1}mcpspec-minimize-chain-";

impl JsonLine {
    fn parse(write: &[u8]) -> Option<JsonLine> {
        let line = std::str::from_utf8(one_line(write)?).ok()?;
        if let Ok(value) = serde_json::from_str(line) {
            return Some(JsonLine { value, chains: Vec::new() });
        }
        if line.contains(PLACEHOLDER) {
            return None;
        }
        let nesting = Nesting::scan(line.as_bytes())?;
        let mut chains: Vec<(usize, usize)> =
            nesting.chains().into_iter().filter(|c| c.len() > CHAIN_MIN).map(|c| c[0]).collect();
        chains.sort_unstable();
        let (mut text, mut taken, mut at) = (String::new(), Vec::new(), 0);
        for (start, end) in chains {
            if start < at {
                continue; // inside a chain already set aside
            }
            text.push_str(&line[at..start]);
            text.push_str(&serde_json::to_string(&format!("{PLACEHOLDER}{}", taken.len())).ok()?);
            taken.push(line[start..end].to_owned());
            at = end;
        }
        text.push_str(&line[at..]);
        let value = serde_json::from_str(&text).ok()?;
        Some(JsonLine { value, chains: taken })
    }

    /// The write of `value`: its canonical line, with the chains put back.
    fn encode(&self, value: &Value) -> Option<Vec<u8>> {
        let mut line = String::from_utf8(framing::encode(value)).ok()?;
        for (i, chain) in self.chains.iter().enumerate() {
            let placeholder = serde_json::to_string(&format!("{PLACEHOLDER}{i}")).ok()?;
            line = line.replacen(&placeholder, chain, 1);
        }
        Some(line.into_bytes())
    }
}

/// One step from a container to a child.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Index(usize),
}

/// The paths of the containers in `value`, outermost first. A parsed value is at most as deep
/// as serde_json's recursion limit, so walking it is safe; the walk keeps a queue anyway.
fn containers(value: &Value) -> Vec<Vec<Step>> {
    paths(value, |v| v.is_array() || v.is_object())
}

/// The containers of a value the structural steps work on, outermost first.
struct Listing {
    containers: Vec<Vec<Step>>,
    skipped: HashSet<Vec<Step>>,
}

impl Listing {
    fn of(value: &Value) -> Listing {
        Listing { containers: containers(value), skipped: long_chain_links(value) }
    }

    /// The path of the container at `*at` or after it that is not skipped; `*at` moves past it.
    fn next(&self, at: &mut usize) -> Option<Vec<Step>> {
        while let Some(path) = self.containers.get(*at) {
            *at += 1;
            if !self.skipped.contains(path) {
                return Some(path.clone());
            }
        }
        None
    }
}

/// The links of the long chains of single-child nesting in `value` (all their containers but
/// the innermost): removing or hoisting at one of them cuts the chain by a level, which the
/// binary search on its depth already tried, so the structural steps leave them alone.
fn long_chain_links(value: &Value) -> HashSet<Vec<Step>> {
    let is_container = |v: &Value| v.is_array() || v.is_object();
    let link = |v: &Value| match v {
        Value::Array(items) if items.len() == 1 && is_container(&items[0]) => Some(Step::Index(0)),
        Value::Object(members) if members.len() == 1 => {
            members.iter().find(|(_, m)| is_container(m)).map(|(k, _)| Step::Key(k.clone()))
        }
        _ => None,
    };
    let mut links = HashSet::new();
    for head in containers(value) {
        let parent_links = head
            .split_last()
            .is_some_and(|(last, parent)| node(value, parent).and_then(link).as_ref() == Some(last));
        if parent_links || node(value, &head).and_then(link).is_none() {
            continue;
        }
        let mut chain = vec![head];
        while let Some(step) = node(value, chain.last().expect("not empty")).and_then(link) {
            let next = [chain.last().expect("not empty").as_slice(), &[step]].concat();
            chain.push(next);
        }
        if chain.len() > CHAIN_MIN {
            chain.pop();
            links.extend(chain);
        }
    }
    links
}

/// The paths of the strings worth a binary search, longest first.
fn long_strings(value: &Value) -> Vec<Vec<Step>> {
    let long = |v: &Value| {
        v.as_str().is_some_and(|s| s.chars().count() >= STRING_MIN && !s.starts_with(PLACEHOLDER))
    };
    let mut found = paths(value, long);
    found.sort_by_key(|p| std::cmp::Reverse(node(value, p).and_then(Value::as_str).map_or(0, str::len)));
    found
}

fn paths(value: &Value, wanted: impl Fn(&Value) -> bool) -> Vec<Vec<Step>> {
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([(Vec::new(), value)]);
    while let Some((path, v)) = queue.pop_front() {
        if wanted(v) {
            found.push(path.clone());
        }
        let step = |s: Step| [path.as_slice(), &[s]].concat();
        match v {
            Value::Array(items) => {
                queue.extend(items.iter().enumerate().map(|(i, item)| (step(Step::Index(i)), item)))
            }
            Value::Object(members) => {
                queue.extend(members.iter().map(|(k, item)| (step(Step::Key(k.clone())), item)))
            }
            _ => {}
        }
    }
    found
}

fn node<'v>(mut value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    for step in path {
        value = match step {
            Step::Key(k) => value.get(k)?,
            Step::Index(i) => value.get(i)?,
        };
    }
    Some(value)
}

fn node_mut<'v>(mut value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    for step in path {
        value = match step {
            Step::Key(k) => value.get_mut(k)?,
            Step::Index(i) => value.get_mut(i)?,
        };
    }
    Some(value)
}

fn children(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.len(),
        Value::Object(members) => members.len(),
        _ => 0,
    }
}

/// Removes children `start..end` of a container, keeping the order of the rest.
fn remove_range(value: &mut Value, start: usize, end: usize) {
    match value {
        Value::Array(items) => {
            items.drain(start..end.min(items.len()));
        }
        Value::Object(members) => {
            let kept =
                std::mem::take(members).into_iter().enumerate().filter(|(i, _)| *i < start || *i >= end);
            *members = kept.map(|(_, member)| member).collect();
        }
        _ => {}
    }
}

fn take_child(value: &mut Value, index: usize) -> Value {
    match value {
        Value::Array(items) => items.get_mut(index).map(Value::take).unwrap_or_default(),
        Value::Object(members) => members.values_mut().nth(index).map(Value::take).unwrap_or_default(),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests;
