//! The session checker and the schema validator on any input: no panic, every inspection
//! describes the value it was given, every `Invalid` verdict is explained.

use mcpspec::judge::checker::SessionChecker;
use mcpspec_protocol::framing::{self, FrameContent, LineDecoder};
use mcpspec_protocol::wire::Message;
use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::{SchemaSet, StreamValidator, Validation};
use serde_json::Value;
use std::sync::OnceLock;

/// The built-in schemas, compiled once per process (compiling takes tens of milliseconds).
pub fn schemas() -> &'static SchemaSet {
    static SCHEMAS: OnceLock<SchemaSet> = OnceLock::new();
    SCHEMAS.get_or_init(SchemaSet::builtin)
}

/// The wire model and the session checker on any byte stream. `data[0]` picks the checker's
/// starting revision and which direction each line travels; the rest is decoded as stdio lines.
/// Every line goes through two checkers with opposite directions, and every JSON value (and
/// batch element) through [`wire_value`](crate::wire::wire_value). Panics on a panic, or when an
/// inspection does not describe the value it was given.
pub fn wire_checker(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let revision = Revision::ALL[usize::from(selector) % Revision::ALL.len()];
    let mut checkers = [SessionChecker::new(revision), SessionChecker::new(revision)];
    for frame in LineDecoder::decode_all(framing::DEFAULT_MAX_MESSAGE_BYTES, stream) {
        let flip = (u64::from(selector >> 3) >> (frame.line % 5)) & 1 == 1;
        let direction = if flip { Direction::ServerToClient } else { Direction::ClientToServer };
        for (checker, direction) in checkers.iter_mut().zip([direction, direction.reverse()]) {
            let inspections = checker.on_frame(direction, frame.content.clone());
            assert!(inspections.iter().all(|i| i.direction == direction));
            let FrameContent::Json { value, .. } = &frame.content else {
                assert!(!inspections.is_empty(), "a line that is not a message passes unremarked");
                continue;
            };
            match value {
                Value::Array(items) => assert!(inspections.len() >= items.len()),
                single => {
                    assert_eq!(inspections.len(), 1, "one inspection for one message");
                    assert_eq!(inspections[0].message, Message::from_value(single).ok());
                    assert_eq!(inspections[0].value.as_ref(), Some(single));
                }
            }
            for v in inspections.iter().flat_map(|i| &i.violations) {
                assert!(!v.rule.id.is_empty() && !v.actual.is_empty(), "{v:?}");
            }
        }
        if let FrameContent::Json { value, .. } = &frame.content {
            crate::wire::decoded_value(value);
        }
    }
}

/// Methods a result may be said to answer (known in some revision, or in none).
const ANSWERED: [Option<&str>; 14] = [
    None,
    Some("initialize"),
    Some("ping"),
    Some("tools/list"),
    Some("tools/call"),
    Some("resources/read"),
    Some("prompts/get"),
    Some("sampling/createMessage"),
    Some("elicitation/create"),
    Some("roots/list"),
    Some("completion/complete"),
    Some("tasks/get"),
    Some("server/discover"),
    Some("no/such"),
];

/// The schema validator of every revision on any JSON. `data[0]` picks the method a result
/// answers and a definition to validate against by name; the rest is decoded as stdio lines.
/// Each value is validated in both directions, as a named definition, through a
/// [`StreamValidator`], and each line as JSON Lines text. Panics on a panic, or on an `Invalid`
/// verdict with no violation to show.
pub fn schema(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let answered = ANSWERED[usize::from(selector) % ANSWERED.len()];
    let set = schemas();
    let frames = LineDecoder::decode_all(framing::DEFAULT_MAX_MESSAGE_BYTES, stream);
    for revision in set.revisions() {
        let schema = set.get(revision).expect("listed revision");
        let definition = schema.definitions().nth(usize::from(selector) * 7 % 97).map(str::to_owned);
        let mut stream_validator = StreamValidator::new(schema);
        let mut lines = StreamValidator::new(schema);
        for frame in &frames {
            let FrameContent::Json { value, .. } = &frame.content else { continue };
            for direction in [Direction::ClientToServer, Direction::ServerToClient] {
                explained(&schema.validate(direction, value, answered));
            }
            if let Some(definition) = &definition {
                explained(&schema.validate_as(definition, value).expect("a listed definition"));
                assert!(schema.is_valid_as(definition, value).is_some());
            }
            let direction =
                if frame.line % 2 == 0 { Direction::ServerToClient } else { Direction::ClientToServer };
            stream_validator.validate(direction, value).iter().for_each(explained);
            let _ = lines.validate_line(None, &value.to_string());
        }
        let _ = stream_validator.unanswered().count();
    }
}

fn explained(v: &Validation) {
    match v {
        Validation::Invalid { violations, definition } => {
            assert!(!violations.is_empty(), "invalid as {definition} with no violation to show");
        }
        // A format mismatch names each string and its format, and nothing else.
        Validation::FormatMismatch { violations, definition } => {
            assert!(!violations.is_empty(), "a format mismatch as {definition} with no violation");
            assert!(violations.iter().all(|v| v.format.is_some()), "{definition}: {violations:?}");
        }
        _ => {}
    }
}
