//! What a model's tokens cost: the price table `wf.prices` in the config, over the
//! defaults below, so usage read from an agent's own session (`src/agent/transcript.rs`)
//! or given to `done` without a cost gets one.
//!
//! A price is in US dollars per million tokens, for plain input, output, input
//! written to the prompt cache and input read from it. A model is priced by the
//! longest key its id starts with (`claude-sonnet-4` prices `claude-sonnet-4-5-20250929`),
//! the config's keys before the defaults; a model no key matches has no cost, only
//! tokens.

use std::collections::BTreeMap;

use crate::state::model::Usage;

pub use crate::config::Price;

const fn price(input: f64, output: f64, cache_write: f64, cache_read: f64) -> Price {
    Price {
        input,
        output,
        cache_write,
        cache_read,
    }
}

/// The vendors' list prices when this table was written (Anthropic: cache writes at
/// 1.25 times input, reads at 0.1; OpenAI: cached input at 0.1, no write price).
/// A project whose prices differ says so in `wf.prices`.
const DEFAULTS: &[(&str, Price)] = &[
    ("claude-opus-4-5", price(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4", price(15.0, 75.0, 18.75, 1.5)),
    ("claude-3-opus", price(15.0, 75.0, 18.75, 1.5)),
    ("claude-sonnet-4", price(3.0, 15.0, 3.75, 0.3)),
    ("claude-3-7-sonnet", price(3.0, 15.0, 3.75, 0.3)),
    ("claude-3-5-sonnet", price(3.0, 15.0, 3.75, 0.3)),
    ("claude-haiku-4-5", price(1.0, 5.0, 1.25, 0.1)),
    ("claude-3-5-haiku", price(0.8, 4.0, 1.0, 0.08)),
    ("gpt-5", price(1.25, 10.0, 0.0, 0.125)),
];

/// The price of `model`: the config's longest matching key, else the defaults'.
pub fn of<'a>(configured: &'a BTreeMap<String, Price>, model: &str) -> Option<&'a Price> {
    longest(configured.iter().map(|(k, p)| (k.as_str(), p)), model)
        .or_else(|| longest(DEFAULTS.iter().map(|(k, p)| (*k, p)), model))
}

fn longest<'a, 'p>(
    table: impl Iterator<Item = (&'a str, &'p Price)>,
    model: &str,
) -> Option<&'p Price> {
    table
        .filter(|(key, _)| model.starts_with(key))
        .max_by_key(|(key, _)| key.len())
        .map(|(_, p)| p)
}

/// What `used` cost at `price`: cache writes and reads at their own prices, the
/// rest of the input at the input price.
pub fn cost(price: &Price, used: &Usage) -> f64 {
    let cached = used
        .cache_write_tokens
        .saturating_add(used.cache_read_tokens);
    let plain = used.input_tokens.saturating_sub(cached);
    #[allow(clippy::cast_precision_loss)] // token counts are far below 2^52
    let dollars = |tokens: u64, per_million: f64| tokens as f64 * per_million / 1e6;
    dollars(plain, price.input)
        + dollars(used.output_tokens, price.output)
        + dollars(used.cache_write_tokens, price.cache_write)
        + dollars(used.cache_read_tokens, price.cache_read)
}

/// `used` with its cost, when it has none and `model` has a price.
pub fn priced(configured: &BTreeMap<String, Price>, model: &str, used: Usage) -> Usage {
    match (used.cost_usd, of(configured, model)) {
        (None, Some(p)) => Usage {
            cost_usd: Some(cost(p, &used)),
            ..used
        },
        _ => used,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(input: u64, output: u64, write: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: write,
            cache_read_tokens: read,
            cost_usd: None,
        }
    }

    #[test]
    fn the_longest_key_prices_a_model_and_the_config_comes_first() {
        let none = BTreeMap::new();
        assert_eq!(
            of(&none, "claude-opus-4-5-20251101"),
            Some(&price(5.0, 25.0, 6.25, 0.5))
        );
        assert_eq!(
            of(&none, "claude-opus-4-1-20250805"),
            Some(&price(15.0, 75.0, 18.75, 1.5))
        );
        assert_eq!(of(&none, "some-local-model"), None);
        assert_eq!(of(&none, "<synthetic>"), None);
        let mine = BTreeMap::from([("claude-opus-4".to_string(), price(1.0, 2.0, 0.0, 0.0))]);
        // The config's shorter key wins over a default's longer one: it is the user's.
        assert_eq!(
            of(&mine, "claude-opus-4-5-20251101"),
            Some(&price(1.0, 2.0, 0.0, 0.0))
        );
    }

    #[test]
    fn cache_tokens_cost_their_own_price() {
        let p = price(3.0, 15.0, 3.75, 0.3);
        // 1M plain input $3, 1M output $15, 1M cache writes $3.75, 1M reads $0.30.
        let u = used(3_000_000, 1_000_000, 1_000_000, 1_000_000);
        assert!((cost(&p, &u) - 22.05).abs() < 1e-9, "{}", cost(&p, &u));
        let none = BTreeMap::new();
        let known = Usage {
            cost_usd: Some(1.0),
            ..u
        };
        assert_eq!(
            priced(&none, "claude-sonnet-4-5", known).cost_usd,
            Some(1.0)
        );
        assert_eq!(priced(&none, "unknown", u).cost_usd, None);
    }
}
