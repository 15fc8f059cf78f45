//! Minimization against predicates standing in for an implementation: each probe is counted,
//! since in a campaign each is a process (and a hang, seconds).

use super::*;
use futures::executor::block_on;
use proptest::prelude::*;
use serde_json::json;

/// A probe that asks a predicate and counts how often it was asked.
struct Predicate<F> {
    fails: F,
    calls: usize,
}

impl<F: FnMut(&Input) -> bool> Probe for Predicate<F> {
    async fn still_fails(&mut self, candidate: &Input) -> bool {
        self.calls += 1;
        (self.fails)(candidate)
    }
}

fn predicate<F: FnMut(&Input) -> bool>(fails: F) -> Predicate<F> {
    Predicate { fails, calls: 0 }
}

const PLENTY: Budget = Budget { probes: 10_000, time: Duration::from_secs(600) };

/// The deepest nesting of a write whose brackets balance (strings aside, which these tests
/// do not put brackets in), else 0: an unbalanced write is a parse error, not deep nesting.
fn depth(write: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in write {
        match b {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return 0,
            },
            _ => {}
        }
    }
    if depth == 0 {
        deepest
    } else {
        0
    }
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn tools_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn session_noise() -> Vec<Vec<u8>> {
    vec![
        framing::encode(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
        framing::encode(
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}),
        ),
        framing::encode(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})),
    ]
}

#[test]
fn deep_nesting_shrinks_to_near_the_failing_depth_in_logarithmic_probes() {
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"v\":{}}}}}}}\n",
        nested(20_000)
    );
    let mut writes = session_noise();
    writes.insert(1, deep.into_bytes());
    let input = Input { label: "deep".into(), writes, fresh: false, http: None };
    let mut probe = predicate(|c: &Input| c.writes.iter().any(|w| depth(w) >= 500));
    let out = block_on(minimize(input, &mut probe, PLENTY));
    eprintln!(
        "deep nesting: {} probes, {} bytes: {}",
        probe.calls,
        out.len_bytes(),
        String::from_utf8_lossy(&out.writes[0][..60])
    );
    assert_eq!(out.writes.len(), 1);
    assert!((500..=520).contains(&depth(&out.writes[0])), "{}", depth(&out.writes[0]));
    assert!(probe.calls < 120, "{} probes", probe.calls);
}

#[test]
fn a_100_000_deep_document_alone_shrinks_without_recursion() {
    let input = Input {
        label: "deeper".into(),
        writes: vec![format!("{}\n", nested(100_000)).into_bytes()],
        fresh: true,
        http: None,
    };
    let mut probe = predicate(|c: &Input| c.writes.iter().any(|w| depth(w) >= 64));
    let out = block_on(minimize(input, &mut probe, PLENTY));
    eprintln!("100 000 deep: {} probes", probe.calls);
    assert_eq!(depth(&out.writes[0]), 64);
    assert!(probe.calls < 60, "{} probes", probe.calls);
}

#[test]
fn a_long_id_shrinks_to_about_the_length_that_fails() {
    let id = "x".repeat(60_000);
    let mut writes = session_noise();
    writes.push(framing::encode(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"})));
    let input = Input { label: "long id".into(), writes, fresh: false, http: None };
    let long_id = |w: &Vec<u8>| {
        serde_json::from_slice::<Value>(w).ok().and_then(|m| m["id"].as_str().map(|s| s.len() >= 1_000))
            == Some(true)
    };
    let mut probe = predicate(|c: &Input| c.writes.iter().any(long_id));
    let out = block_on(minimize(input, &mut probe, PLENTY));
    eprintln!("long id: {} probes, {} bytes", probe.calls, out.len_bytes());
    assert_eq!(out.writes.len(), 1);
    let message: Value = serde_json::from_slice(&out.writes[0]).unwrap();
    let len = message["id"].as_str().unwrap().len();
    assert!((1_000..=1_100).contains(&len), "{len}");
    assert!(out.len_bytes() <= 1_100 + 20, "{}", out.len_bytes());
}

#[test]
fn a_bad_byte_shrinks_to_a_tiny_write() {
    let mut bad = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello "#.to_vec();
    bad.push(0xff);
    bad.extend_from_slice(b" world, and a good deal more text after the byte\"}}}\n");
    let mut writes = session_noise();
    writes.insert(2, bad);
    let input = Input { label: "invalid utf-8".into(), writes, fresh: false, http: None };
    let mut probe = predicate(|c: &Input| c.writes.iter().any(|w| w.contains(&0xff)));
    let out = block_on(minimize(input, &mut probe, PLENTY));
    eprintln!("bad byte: {} probes, {:?}", probe.calls, out.writes);
    assert_eq!(out.writes, vec![vec![0xff]]);
    assert!(probe.calls < 60, "{} probes", probe.calls);
}

#[test]
fn a_tools_call_keeps_only_what_makes_it_fail() {
    let culprit = json!({
        "jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 17, "b": 0, "note": "divide"}, "_meta": {"progressToken": "p-4"}}
    });
    let mut writes = session_noise();
    writes.insert(1, framing::encode(&tools_call(3, "add", json!({"a": 1, "b": 2}))));
    writes.insert(3, framing::encode(&culprit));
    let input = Input { label: "tools/call add, b zero".into(), writes, fresh: true, http: None };
    let divides_by_zero = |w: &Vec<u8>| {
        serde_json::from_slice::<Value>(w).is_ok_and(|m| {
            m["method"] == "tools/call" && m["params"]["name"] == "add" && m["params"]["arguments"]["b"] == 0
        })
    };
    let mut probe = predicate(|c: &Input| c.writes.iter().any(divides_by_zero));
    let out = block_on(minimize(input, &mut probe, PLENTY));
    eprintln!("tools/call add: {} probes", probe.calls);
    assert_eq!(
        out.writes,
        vec![framing::encode(
            &json!({"method": "tools/call", "params": {"name": "add", "arguments": {"b": 0}}})
        )]
    );
    assert_eq!(out.label, "tools/call add, b zero, minimized");
    assert!(out.fresh);
}

#[test]
fn the_probe_budget_is_spent_exactly() {
    let input = Input {
        label: "budget".into(),
        writes: (0..40)
            .map(|i| framing::encode(&json!({"jsonrpc": "2.0", "id": i, "method": "ping"})))
            .collect(),
        fresh: false,
        http: None,
    };
    let fails = |c: &Input| c.writes.len() >= 3;
    let mut unlimited = predicate(fails);
    block_on(minimize(input.clone(), &mut unlimited, PLENTY));
    let needed = unlimited.calls;
    eprintln!("budget: {needed} probes unlimited");
    assert!(needed > 20, "{needed}");
    for probes in [0, 1, 7, needed / 2, needed - 1, needed, needed + 5] {
        let mut probe = predicate(fails);
        let out =
            block_on(minimize(input.clone(), &mut probe, Budget { probes, time: Duration::from_secs(600) }));
        assert_eq!(probe.calls, probes.min(needed), "budget {probes}");
        assert!(fails(&out));
    }
    let mut probe = predicate(|_: &Input| true);
    let out = block_on(minimize(input.clone(), &mut probe, Budget { probes: 1_000, time: Duration::ZERO }));
    assert_eq!((probe.calls, out), (0, input));
}

#[test]
fn an_input_that_nothing_shrinks_comes_back_unchanged() {
    let input = Input::messages("ping", &[json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})]);
    let original = input.clone();
    let mut probe = predicate(move |c: &Input| *c == Input { label: c.label.clone(), ..original.clone() });
    let out = block_on(minimize(input.clone(), &mut probe, PLENTY));
    assert_eq!(out, input);
}

#[test]
fn chains_are_found_in_text_with_their_spans() {
    let text = br#"{"a":[1,[[["x"]]]],"b":{"c":{"d":2}}}"#;
    let nesting = Nesting::scan(text).unwrap();
    let chains: Vec<Vec<&str>> = nesting
        .chains()
        .iter()
        .map(|c| c.iter().map(|&(s, e)| std::str::from_utf8(&text[s..e]).unwrap()).collect())
        .collect();
    assert_eq!(
        chains,
        vec![vec![r#"[[["x"]]]"#, r#"[["x"]]"#, r#"["x"]"#], vec![r#"{"c":{"d":2}}"#, r#"{"d":2}"#]]
    );
    assert!(Nesting::scan(b"[[]").is_none() && Nesting::scan(b"[}").is_none());
}

/// Small JSON messages with nesting and long-ish strings: what the structural phase works on.
fn arb_message() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z1\\[{]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the input and whichever way it fails, the result still fails and is no larger.
    #[test]
    fn the_result_fails_and_is_no_larger(
        writes in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![
                Just(b'['), Just(b']'), Just(b'{'), Just(b'}'), Just(b'"'), Just(b':'), Just(b','),
                Just(b'\n'), Just(b'a'), Just(b'1'), Just(0xffu8), any::<u8>()], 0..60),
            1..6),
        json_writes in proptest::collection::vec(arb_message(), 0..3),
        rule in 0usize..4,
        needle in prop_oneof![Just(b'a'), Just(b'1'), Just(0xffu8), Just(b'[')],
        fresh in any::<bool>(),
    ) {
        let mut all = writes;
        all.extend(json_writes.iter().map(framing::encode));
        let input = Input { label: "any".into(), writes: all, fresh, http: None };
        let fails = move |c: &Input| match rule {
            0 => c.stream().contains(&needle),
            1 => c.writes.iter().filter(|w| w.contains(&needle)).count() >= 2,
            2 => c.writes.iter().map(|w| depth(w)).max().unwrap_or(0) >= 2,
            _ => c.len_bytes() >= 10 && c.stream().iter().filter(|b| **b == needle).count() % 2 == 1,
        };
        prop_assume!(fails(&input));
        let mut probe = predicate(fails);
        let out = block_on(minimize(input.clone(), &mut probe, Budget { probes: 300, time: Duration::from_secs(60) }));
        prop_assert!(fails(&out));
        prop_assert!(out.len_bytes() <= input.len_bytes());
        prop_assert!(probe.calls <= 300);
        prop_assert_eq!(out.fresh, input.fresh);
        prop_assert!(out.label.starts_with("any"));
    }
}
