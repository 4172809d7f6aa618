//! Project discovery, ids, and the state store seen from outside.

use crate::test::Test;

#[test]
fn status_without_a_workflow_says_how_to_start() {
    let t = Test::new();
    let run = t.wf(&["status"]).code(2);
    assert!(run.stderr.contains("wf workflow-start"), "{}", run.stderr);
}

#[test]
fn invalid_project_id_in_config_is_refused() {
    for bad in ["../x", "", &"a".repeat(65)] {
        let t = Test::new();
        t.write(
            ".claude/config/project-config.json",
            serde_json::json!({"project": {"id": bad}}).to_string(),
        );
        let run = t.wf(&["status"]).code(2);
        assert!(run.stderr.contains("project.id"), "{}", run.stderr);
        assert!(run.stderr.contains("project-config.json"), "{}", run.stderr);
    }
}
