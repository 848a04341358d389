//! The endpoint and limit tables of docs/endpoints.md must not drift from the operation and
//! rule tables.

use gw::ops;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/endpoints.md"))
        .expect("docs/endpoints.md")
}

#[test]
fn every_operation_path_is_in_the_endpoint_table() {
    let text = readme();
    for op in ops::ALL.iter().chain([&&ops::IMAGE_EDIT_UPLOAD]) {
        let row = format!("`{} {}`", op.method.as_str(), op.path);
        assert!(
            text.contains(&row),
            "docs/endpoints.md lacks the endpoint row {row} ({})",
            op.name
        );
    }
}

#[test]
fn every_rule_field_is_in_the_limits_table() {
    let text = readme();
    for op in ops::ALL.iter().chain([&&ops::IMAGE_EDIT_UPLOAD]) {
        for rule in op.rules {
            let field = format!("`{}`", rule.field);
            assert!(
                text.contains(&field),
                "docs/endpoints.md lacks {field} of {}",
                op.name
            );
        }
    }
}
