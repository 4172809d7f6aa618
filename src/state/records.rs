//! The records a workflow keeps beside its tasks, as the plugin writes them:
//! progress, context metrics, constraints and their verifications, the zero-decision
//! audit, delta tracking, log marks and usage.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::{is_zero, yes};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Progress {
    #[serde(default)]
    pub completed: Vec<String>,
    #[serde(default)]
    pub blocked: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub skipped: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ContextMetrics {
    #[serde(rename = "estimatedTokens", default)]
    pub estimated_tokens: u64,
    #[serde(rename = "warningThreshold", default = "warning_threshold")]
    pub warning_threshold: u32,
    #[serde(rename = "dangerThreshold", default = "danger_threshold")]
    pub danger_threshold: u32,
    #[serde(rename = "maxConsecutiveTasks", default = "max_consecutive")]
    pub max_consecutive_tasks: u32,
    #[serde(default)]
    pub history: Vec<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for ContextMetrics {
    fn default() -> Self {
        ContextMetrics {
            estimated_tokens: 0,
            warning_threshold: warning_threshold(),
            danger_threshold: danger_threshold(),
            max_consecutive_tasks: max_consecutive(),
            history: Vec::new(),
            extra: Map::new(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Constraints {
    #[serde(default)]
    pub hard: Vec<Constraint>,
    #[serde(default)]
    pub soft: Vec<Constraint>,
    #[serde(rename = "openQuestions", default)]
    pub open_questions: Vec<String>,
    #[serde(rename = "successCriteria", default)]
    pub success_criteria: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verifications: Vec<ConstraintVerification>,
    /// The highest `C<n>` ever handed out, removed ones included, so no id is reused
    /// (`crate::constraints::next_id`). Absent in states written before it existed.
    #[serde(rename = "lastId", default, skip_serializing_if = "is_zero")]
    pub last_id: u32,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Constraints {
    /// Records a verification: the constraint's `verified` flag and its latest record.
    pub fn record(&mut self, result: &ConstraintVerification) {
        if let Some(c) = self.hard.iter_mut().find(|c| c.id == result.constraint_id) {
            c.verified = Some(result.passed);
        }
        self.verifications
            .retain(|v| v.constraint_id != result.constraint_id);
        self.verifications.push(result.clone());
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Constraint {
    pub id: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub category: String,
    #[serde(rename = "sourceModel")]
    pub source_model: String,
    pub phase: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    #[serde(rename = "verifyCmd", default, skip_serializing_if = "Option::is_none")]
    pub verify_cmd: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ConstraintVerification {
    #[serde(rename = "constraintId")]
    pub constraint_id: String,
    pub passed: bool,
    pub details: String,
    #[serde(rename = "checkedAt")]
    pub checked_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ZeroDecisionAudit {
    #[serde(default = "yes")]
    pub passed: bool,
    #[serde(rename = "antiPatterns", default)]
    pub anti_patterns: Vec<AuditFinding>,
    #[serde(rename = "remainingAmbiguities", default)]
    pub remaining_ambiguities: Vec<Value>,
    #[serde(rename = "auditedAt", default)]
    pub audited_at: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for ZeroDecisionAudit {
    fn default() -> Self {
        ZeroDecisionAudit {
            passed: true,
            anti_patterns: Vec::new(),
            remaining_ambiguities: Vec::new(),
            audited_at: None,
            extra: Map::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AuditFinding {
    #[serde(rename = "taskId")]
    pub task_id: String,
    pub pattern: String,
    pub description: String,
    pub severity: String,
    /// 1-based line of the task or field where it was found (absent in states
    /// written before findings had lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct DeltaTracking {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub changes_dir: String,
    #[serde(default)]
    pub current_change: Option<String>,
    #[serde(default)]
    pub applied_changes: Vec<String>,
    #[serde(default)]
    pub change_counter: u32,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct LogMark {
    /// Sequence number of the last event folded into this snapshot.
    pub seq: u64,
    /// Byte offset in the event log just past that event.
    pub offset: u64,
}

/// Tokens and cost of one run, or of a task's runs added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Every input token, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of `input_tokens`, those written to the prompt cache and those read from it
    /// (Claude's `cache_creation_input_tokens`, `cache_read_input_tokens`), when said.
    #[serde(default, skip_serializing_if = "no_tokens")]
    pub cache_write_tokens: u64,
    #[serde(default, skip_serializing_if = "no_tokens")]
    pub cache_read_tokens: u64,
    /// In US dollars, when the executor says (Claude Code does, Codex does not) or
    /// the price table of `run::prices` knows the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn no_tokens(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    pub fn tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// `self` and `other` added up; a cost is known when either knows one.
    #[must_use]
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(other.cache_write_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_add(other.cache_read_tokens),
            cost_usd: match (self.cost_usd, other.cost_usd) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
            },
        }
    }
}

fn warning_threshold() -> u32 {
    60
}

fn danger_threshold() -> u32 {
    80
}

fn max_consecutive() -> u32 {
    5
}
