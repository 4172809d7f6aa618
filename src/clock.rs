//! The current time, pinnable for tests.
//!
//! `WF_NOW=2026-01-08T10:00:00Z` freezes every timestamp `wf` writes, so snapshot
//! tests are stable. It is meant for tests only; a value that does not parse is
//! ignored rather than trusted.

use jiff::Timestamp;

pub fn now() -> Timestamp {
    std::env::var("WF_NOW")
        .ok()
        .and_then(|v| v.parse::<Timestamp>().ok())
        .unwrap_or_else(Timestamp::now)
}

/// RFC 3339 in UTC with whole seconds, as the plugin writes (`2026-01-08T10:00:00Z`).
pub fn now_rfc3339() -> String {
    format_ts(now())
}

pub fn format_ts(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Milliseconds since the epoch, for file names such as `backup-<ms>.json`.
pub fn now_millis() -> i64 {
    now().as_millisecond()
}

/// `Instant::now() + d` that cannot overflow: a `d` too long for the clock (a plan's
/// `timeout: 18446744073709551615`, `--wait` with as much) gives a deadline a century
/// away, which in effect never comes.
pub fn deadline_after(d: std::time::Duration) -> std::time::Instant {
    const CENTURY: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 24 * 3600);
    let now = std::time::Instant::now();
    now.checked_add(d)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    #[test]
    fn a_deadline_too_far_for_the_clock_is_in_effect_never() {
        let far = super::deadline_after(Duration::from_secs(u64::MAX));
        assert!(far > Instant::now() + Duration::from_secs(50 * 365 * 24 * 3600));
        let near = super::deadline_after(Duration::from_secs(1));
        assert!(near <= Instant::now() + Duration::from_secs(1));
    }
}
