use super::*;
use mcpspec_protocol::Direction;
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};

fn catalog(revision: Revision) -> Catalog {
    Catalog {
        revision: Some(revision),
        capabilities: json!({"tools": {}, "prompts": {}, "resources": {}}),
        tools: vec![
            json!({"name": "echo", "inputSchema": {"type": "object",
                "properties": {"message": {"type": "string"}}, "required": ["message"]}}),
            json!({"name": "add", "inputSchema": {"type": "object", "additionalProperties": false,
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}),
            json!({"name": "bounded", "inputSchema": {"type": "object",
                "properties": {
                    "n": {"type": "integer", "minimum": 1, "maximum": 10},
                    "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2},
                    "mode": {"enum": ["fast", "slow"]},
                    "nested": {"$ref": "#/$defs/point"}},
                "required": ["n", "mode"],
                "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}}}),
            json!({"name": "rm", "annotations": {"destructiveHint": true},
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}),
        ],
        prompts: vec![
            json!({"name": "simple_prompt"}),
            json!({"name": "complex_prompt", "arguments": [
                {"name": "temperature", "required": true}, {"name": "style"}]}),
        ],
        resources: vec![json!({"uri": "test://static-text", "name": "static"})],
        templates: vec![json!({"uriTemplate": "test://template/{id}/data", "name": "by id"})],
    }
}

fn generator(revision: Revision) -> Generator {
    Generator::new(catalog(revision), SchemaSet::shared_builtin())
}

/// The JSON messages of an input's writes (lines that parse).
fn messages(input: &Input) -> Vec<Value> {
    input.stream().split(|b| *b == b'\n').filter_map(|line| serde_json::from_slice(line).ok()).collect()
}

#[test]
fn same_arguments_give_the_same_bytes() {
    let (a, b) = (generator(Revision::V2025_06_18), generator(Revision::V2025_06_18));
    let corpus = [Input::messages("seed", &[json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})])];
    for index in 0..300 {
        assert_eq!(a.input(7, index, &[]), b.input(7, index, &[]));
        assert_eq!(a.input(7, index, &corpus), b.input(7, index, &corpus));
    }
}

#[test]
fn different_indices_and_seeds_give_different_inputs() {
    let g = generator(Revision::V2025_11_25);
    let inputs: HashSet<Vec<u8>> = (0..500).map(|i| g.input(1, i, &[]).stream()).collect();
    // A few inputs are the same by nature (a message truncated to nothing, an error for id null).
    assert!(inputs.len() >= 490, "{}", inputs.len());
    assert_ne!(g.input(1, 0, &[]), g.input(2, 0, &[]));
}

/// Every kind of the era drawn over 10 000 inputs (the rarest, a fresh process, is 1 in 1 000),
/// with every nesting depth band.
fn assert_every_kind_appears(revision: Revision) {
    let g = generator(revision);
    let mut seen = BTreeSet::new();
    let mut depths = Vec::new();
    for index in 0..10_000 {
        let generated = g.generate(42, index, &[]);
        if let Kind::Structural(Mutation::DeepNesting) = generated.kind {
            let depth = generated.input.label.split(" nested ").nth(1).and_then(|r| r.split(' ').next());
            depths.push(depth.and_then(|d| d.parse::<usize>().ok()).expect("the label names the depth"));
        }
        seen.insert(generated.kind);
    }
    let expected: BTreeSet<Kind> = g.kinds.items.iter().copied().collect();
    let missing: Vec<_> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "{revision}: never drawn: {missing:?}");
    let sequences = Sequence::weighted(revision.era()).len();
    assert_eq!(expected.len(), 1 + Mutation::WEIGHTED.len() + Framing::WEIGHTED.len() + sequences);
    for band in [64, 1_000, 10_000] {
        assert!(depths.iter().any(|d| *d > band), "{revision}: no nesting deeper than {band}: {depths:?}");
    }
}

#[test]
fn every_kind_and_mutation_appears_in_both_eras() {
    assert_every_kind_appears(Revision::V2025_11_25);
    assert_every_kind_appears(Revision::V2026_07_28);
}

#[test]
fn a_third_of_inputs_mutate_the_corpus_when_there_is_one() {
    let g = generator(Revision::V2025_06_18);
    let corpus = [
        Input::messages("two pings", &vec![json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}); 2]),
        Input { label: "garbage".into(), writes: vec![vec![0xff, b'{', b'\n']], fresh: false, http: None },
    ];
    let generated: Vec<Generated> = (0..600).map(|i| g.generate(3, i, &corpus)).collect();
    let from_corpus: Vec<&Generated> = generated.iter().filter(|g| g.from_corpus).collect();
    assert!((150..250).contains(&from_corpus.len()), "{}", from_corpus.len());
    assert!(from_corpus.iter().any(|g| matches!(g.kind, Kind::Structural(_))));
    assert!(from_corpus
        .iter()
        .any(|g| matches!(g.kind, Kind::Framing(_)) && g.input.label.contains("garbage")));
    assert!(from_corpus.iter().all(|g| g.input.label.starts_with("corpus (")));
}

#[test]
fn generated_messages_are_valid_at_every_released_revision() {
    let schemas = SchemaSet::shared_builtin();
    for revision in Revision::RELEASED {
        let g = generator(revision);
        let schema = schemas.get(revision).expect("built-in schema");
        let mut methods = BTreeSet::new();
        let mut invalid = Vec::new();
        // Kind-a messages straight from their source: a third of the inputs' cost.
        for index in 0..1000 {
            let mut d = Draw { rng: ChaCha8Rng::seed_from_u64(5), index, ids: 0 };
            d.rng.set_stream(index);
            let message = g.valid(&mut d).message;
            methods.insert(message["method"].as_str().unwrap_or_default().to_owned());
            let verdict = schema.validate(Direction::ClientToServer, &message, None);
            if !verdict.is_structurally_valid() {
                invalid.push(format!("{message}\n  {verdict}"));
            }
        }
        assert!(
            invalid.is_empty(),
            "{revision}: {} invalid:\n{}",
            invalid.len(),
            invalid[..invalid.len().min(5)].join("\n")
        );
        let expected = g.methods.iter().map(|m| m.method.clone()).collect::<BTreeSet<_>>();
        assert!(
            expected.is_subset(&methods),
            "{revision}: never generated {:?}",
            expected.difference(&methods)
        );
    }
}

#[test]
fn tool_arguments_mostly_fit_their_input_schema() {
    let g = generator(Revision::V2025_11_25);
    let validators: Vec<(String, jsonschema::Validator)> = g
        .tools
        .iter()
        .map(|t| (t.name.clone(), jsonschema::validator_for(&t.input_schema).expect("test schemas compile")))
        .collect();
    let (mut valid, mut total) = (0, 0);
    for index in 0..3000 {
        let generated = g.generate(11, index, &[]);
        if generated.kind != Kind::Generated {
            continue;
        }
        for message in messages(&generated.input).iter().filter(|m| m["method"] == "tools/call") {
            let Some((_, validator)) =
                validators.iter().find(|(name, _)| message["params"]["name"] == **name)
            else {
                continue; // a tools/call from the schema, with a made-up name
            };
            total += 1;
            valid += usize::from(validator.is_valid(&message["params"]["arguments"]));
        }
    }
    assert!(total > 200, "{total}");
    assert!(valid * 100 >= total * 90, "{valid} of {total} valid");
}

#[test]
fn destructive_tools_are_called_only_when_asked() {
    let calls_rm = |g: &Generator| {
        (0..2000).any(|i| messages(&g.input(9, i, &[])).iter().any(|m| m["params"]["name"] == "rm"))
    };
    assert!(!calls_rm(&generator(Revision::V2025_11_25)));
    assert!(calls_rm(&generator(Revision::V2025_11_25).with_destructive(true)));
}

#[test]
fn modern_requests_carry_meta_with_the_protocol_version() {
    let g = generator(Revision::V2026_07_28);
    let mut requests = 0;
    for index in 0..2000 {
        let generated = g.generate(13, index, &[]);
        if !matches!(
            generated.kind,
            Kind::Generated | Kind::Sequence(Sequence::CancelRace | Sequence::IdReuse)
        ) {
            continue;
        }
        for message in messages(&generated.input).iter().filter(|m| m.get("id").is_some()) {
            requests += 1;
            let meta = &message["params"]["_meta"];
            assert_eq!(meta[modern::PROTOCOL_VERSION_KEY], "2026-07-28", "{message}");
            assert!(meta[modern::CLIENT_CAPABILITIES_KEY].is_object(), "{message}");
        }
    }
    assert!(requests > 500, "{requests}");
}

#[test]
fn ids_are_unique_across_inputs_and_never_the_drivers() {
    let g = generator(Revision::V2025_11_25);
    let mut ids: HashSet<String> = HashSet::new();
    for index in 0..2000 {
        let generated = g.generate(17, index, &[]);
        let input_ids: HashSet<String> = messages(&generated.input)
            .iter()
            .filter_map(|m| m.get("id").map(Value::to_string))
            .filter(|id| id != "null")
            .collect();
        for id in &input_ids {
            assert!(!id.starts_with("\"mcpspec-"), "{id} in {}", generated.input.label);
        }
        if generated.kind == Kind::Generated || generated.kind == Kind::Sequence(Sequence::Flood) {
            for id in input_ids {
                assert!(ids.insert(id.clone()), "id {id} used twice ({})", generated.input.label);
            }
        }
    }
}

#[test]
fn most_inputs_are_small_and_big_ones_rare() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let g = generator(revision);
        let sizes: Vec<usize> = (0..3000).map(|i| g.input(21, i, &[]).len_bytes()).collect();
        let small = sizes.iter().filter(|s| **s < 4096).count();
        let big = sizes.iter().filter(|s| **s >= 64 * 1024).count();
        assert!(small * 100 >= sizes.len() * 85, "{revision}: only {small} of 3000 under 4 KiB");
        assert!(big * 1000 <= sizes.len() * 25, "{revision}: {big} of 3000 at 64 KiB or more");
        assert!(sizes.iter().all(|s| *s <= 4 << 20));
    }
}

#[test]
fn labels_say_what_an_input_is() {
    let g = generator(Revision::V2025_03_26);
    let labels: Vec<String> = (0..3000).map(|i| g.input(1, i, &[]).label).collect();
    for wanted in ["tools/call echo", ": /params", "retyped to", "framing: ", "split over", "cancel race on "]
    {
        assert!(labels.iter().any(|l| l.contains(wanted)), "no label with {wanted:?}");
    }
    assert!(labels.iter().all(|l| !l.is_empty() && l.len() < 200));
}

#[test]
fn recursive_and_odd_tool_schemas_end() {
    let mut c = catalog(Revision::V2025_11_25);
    c.tools = vec![
        json!({"name": "loop", "inputSchema": {"type": "object",
            "properties": {"next": {"$ref": "#"}}, "required": ["next"]}}),
        json!({"name": "anything", "inputSchema": true}),
        json!({"name": "no_schema"}),
        json!({"inputSchema": {"type": "object"}}),
    ];
    let g = Generator::new(c, SchemaSet::shared_builtin());
    let calls: BTreeSet<String> = (0..1000)
        .flat_map(|i| messages(&g.input(1, i, &[])))
        .filter(|m| m["method"] == "tools/call")
        .filter_map(|m| m["params"]["name"].as_str().map(str::to_owned))
        .collect();
    assert!(["loop", "anything", "no_schema"].iter().all(|t| calls.contains(*t)), "{calls:?}");
}

#[test]
fn templates_are_filled_expression_by_expression() {
    assert_eq!(
        mcpspec_protocol::arguments::template_variables("test://a/{id}/b{?q,page}"),
        ["id", "q", "page"]
    );
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for _ in 0..50 {
        let uri = fill_template("test://template/{id}/data{?q}", &mut rng);
        assert!(uri.starts_with("test://template/") && uri.contains("/data"), "{uri}");
        assert!(!uri.contains('{') && !uri.contains('}'), "{uri}");
    }
}

#[test]
fn text_level_mutations_hold_what_a_value_cannot() {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "a/b": {"c": [1, 2]}}});
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..200 {
        let (line, what) = mutate::mutate(&message, Mutation::DuplicateKey, &mut rng);
        let text = String::from_utf8(line).expect("UTF-8");
        let token = what.strip_suffix(" given twice").and_then(|p| p.rsplit_once('/')).expect(&what).1;
        let key = serde_json::to_string(&token.replace("~1", "/").replace("~0", "~")).unwrap();
        assert!(text.matches(&format!("{key}:")).count() >= 2, "{what}: {text}");

        let (line, what) = mutate::mutate(&message, Mutation::DropField, &mut rng);
        let dropped: Value = serde_json::from_slice(&line).expect("still JSON");
        let pointer = what.strip_suffix(" dropped").expect(&what);
        assert!(dropped.pointer(pointer).is_none() && message.pointer(pointer).is_some(), "{what}");

        let (line, what) = mutate::mutate(&message, Mutation::DeepNesting, &mut rng);
        let depth: usize =
            what.split(" nested ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        let opened = line.iter().filter(|b| matches!(b, b'[' | b'{')).count();
        assert!(opened >= depth, "{what}");
    }
    let (line, _) = mutate::mutate(&message, Mutation::LongId, &mut rng);
    let long: Value = serde_json::from_slice(&line).unwrap();
    assert!(long["id"].as_str().is_some_and(|id| id.len() >= 256 && !id.starts_with("mcpspec-")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_seed_and_index_give_a_bounded_input(seed in any::<u64>(), index in any::<u64>(), modern in any::<bool>()) {
        let revision = if modern { Revision::V2026_07_28 } else { Revision::V2024_11_05 };
        let g = generator(revision);
        let corpus = [g.input(seed, index ^ 1, &[])];
        for input in [g.input(seed, index, &[]), g.input(seed, index, &corpus)] {
            prop_assert!(!input.writes.is_empty());
            prop_assert!(input.len_bytes() <= 4 << 20);
        }
    }
}

/// `cargo test -p mcpspec --lib fuzz::generate -- --ignored --nocapture`
#[test]
#[ignore = "timing, run by hand"]
fn generation_speed() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let g = generator(revision);
        let n = 100_000;
        let start = std::time::Instant::now();
        let mut bytes = 0;
        let mut small = std::time::Duration::ZERO;
        let mut small_count = 0;
        for i in 0..n {
            let t = std::time::Instant::now();
            let input = g.input(1, i, &[]);
            if input.len_bytes() < 4096 {
                small += t.elapsed();
                small_count += 1;
            }
            bytes += input.len_bytes();
        }
        let all = start.elapsed();
        println!(
            "{revision}: {:.1} µs per input overall, {:.1} µs per small input ({small_count} of {n}), {} MB",
            all.as_secs_f64() * 1e6 / n as f64,
            small.as_secs_f64() * 1e6 / small_count as f64,
            bytes / 1_000_000
        );
    }
}
