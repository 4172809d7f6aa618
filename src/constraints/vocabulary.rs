//! The words a constraint's fields may hold (docs/constraints.md): one definition
//! for `wf constraints add`'s flags (clap) and for checking a set file (serde).

use clap::ValueEnum;
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Requirement,
    Interface,
    Data,
    Error,
    Security,
    Performance,
}

/// Which model (or the user) stated a constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Codex,
    Gemini,
    Claude,
    User,
}

/// When a constraint was stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Analysis,
    Review,
}

/// The word both clap and the state file use: `Category::Security` → `security`.
pub fn name<T: ValueEnum>(value: &T) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flag spelling and the file spelling must stay the same word.
    #[test]
    fn clap_and_serde_spell_every_value_alike() {
        for c in Category::value_variants() {
            let parsed: Category = serde_json::from_value(name(c).into()).unwrap();
            assert_eq!(parsed, *c);
        }
        for s in Source::value_variants() {
            let parsed: Source = serde_json::from_value(name(s).into()).unwrap();
            assert_eq!(parsed, *s);
        }
        for p in Phase::value_variants() {
            let parsed: Phase = serde_json::from_value(name(p).into()).unwrap();
            assert_eq!(parsed, *p);
        }
    }
}
