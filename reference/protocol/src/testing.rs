//! proptest strategies for JSON values and messages, shared by the tests of every crate of the
//! workspace (enabled there with the `testing` feature; this crate's own tests always have it).

use crate::wire::{ErrorObject, Message, Notification, Request, RequestId};
use proptest::prelude::*;
use serde_json::Value;

pub fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

pub fn arb_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(|i| RequestId::Integer(i.into())),
        any::<u64>().prop_map(|u| RequestId::Integer(u.into())),
        ".{0,10}".prop_map(RequestId::String),
    ]
}

fn arb_params() -> impl Strategy<Value = Option<Value>> {
    proptest::option::of(arb_json())
}

pub fn arb_message() -> impl Strategy<Value = Message> {
    let method = "[a-z/_]{1,20}";
    prop_oneof![
        (arb_id(), method, arb_params()).prop_map(|(id, method, params)| Message::Request(Request {
            id,
            method,
            params
        })),
        (method, arb_params())
            .prop_map(|(method, params)| Message::Notification(Notification { method, params })),
        (arb_id(), arb_json()).prop_map(|(id, r)| Message::result(id, r)),
        (proptest::option::of(arb_id()), any::<i64>(), ".{0,10}", proptest::option::of(arb_json()))
            .prop_map(|(id, code, message, data)| Message::error(id, ErrorObject { code, message, data })),
    ]
}
