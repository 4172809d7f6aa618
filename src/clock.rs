//! The current time, pinnable for tests.
//!
//! `WF_NOW=2026-01-08T10:00:00Z` freezes every timestamp `wf` writes, so snapshot
//! tests are stable. It is meant for tests only; a value that does not parse is
//! ignored rather than trusted.

use jiff::Timestamp;

pub fn now() -> Timestamp {
    pinned().unwrap_or_else(Timestamp::now)
}

/// `WF_NOW`, read once: nothing in `wf` sets it, and a run asks the time several
/// times a task.
fn pinned() -> Option<Timestamp> {
    static PINNED: std::sync::OnceLock<Option<Timestamp>> = std::sync::OnceLock::new();
    *PINNED.get_or_init(|| {
        std::env::var("WF_NOW")
            .ok()
            .and_then(|v| v.parse::<Timestamp>().ok())
    })
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

/// A point in time given on the command line: an RFC 3339 time
/// (`2026-11-25T10:00:00Z`) or an age before `now` — a number and a unit of `s`, `m`,
/// `h` or `d` (`30s`, `15m`, `2h`, `3d`), as `journalctl` and `docker logs` take it.
pub fn parse_since(text: &str, now: Timestamp) -> Result<Timestamp, String> {
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&i| i > 0 && i + 1 == text.len());
    let (count, unit) = match unit_at {
        Some(i) => (text[..i].parse::<i64>().ok(), &text[i..]),
        None => (None, ""),
    };
    let secs_per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    count
        .and_then(|n| n.checked_mul(secs_per))
        .filter(|_| secs_per > 0)
        .and_then(|secs| now.checked_sub(jiff::SignedDuration::from_secs(secs)).ok())
        .ok_or_else(|| {
            format!("{text} is neither a time like 2026-11-25T10:00:00Z nor an age like 30s, 15m, 2h or 3d")
        })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    #[test]
    fn a_time_is_written_in_utc_as_the_second_it_falls_in() {
        let at = |s: &str| super::format_ts(s.parse::<jiff::Timestamp>().unwrap());
        assert_eq!(at("2026-01-08T10:00:00.9Z"), "2026-01-08T10:00:00Z");
        assert_eq!(at("2026-01-08T12:00:01+02:00"), "2026-01-08T10:00:01Z");
        assert_eq!(at("1969-12-31T23:59:59.5Z"), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn since_takes_a_time_or_an_age() {
        let now: jiff::Timestamp = "2026-01-08T10:00:00Z".parse().unwrap();
        let at = |text: &str| super::parse_since(text, now).map(super::format_ts);
        assert_eq!(at("2026-01-08T09:00:00Z").unwrap(), "2026-01-08T09:00:00Z");
        assert_eq!(at("30s").unwrap(), "2026-01-08T09:59:30Z");
        assert_eq!(at("15m").unwrap(), "2026-01-08T09:45:00Z");
        assert_eq!(at("2h").unwrap(), "2026-01-08T08:00:00Z");
        assert_eq!(at("3d").unwrap(), "2026-01-05T10:00:00Z");
        for bad in ["", "m", "15", "15x", "1.5h", "-2h", "2hours", "yesterday"] {
            assert!(at(bad).is_err(), "{bad:?}");
        }
        assert!(at("9999999999999999d").is_err());
    }

    #[test]
    fn a_deadline_too_far_for_the_clock_is_in_effect_never() {
        let far = super::deadline_after(Duration::from_secs(u64::MAX));
        assert!(far > Instant::now() + Duration::from_secs(50 * 365 * 24 * 3600));
        let near = super::deadline_after(Duration::from_secs(1));
        assert!(near <= Instant::now() + Duration::from_secs(1));
    }
}
