//! Times as the host's Go reads them, and the clock of the user's machine
//! (docs/host.md, "How output is decoded", "The user's machine, not a
//! clean room").
//!
//! The host parses a non-empty Event `timestamp` and an AgentSession
//! `start_time` with Go's `time.Parse(time.RFC3339, s)`: a time it refuses
//! fails the hook. Go's layouts are where plugins go wrong off UTC: the
//! layout `Z0700` prints `Z` in UTC and `+0530` elsewhere, which RFC 3339
//! (and the host) refuses. So every sandbox runs in a zone that is not UTC
//! and whose offset is not a whole hour ([`USER_ZONE`]), and the session
//! replay in one with daylight saving, west of UTC ([`REPLAY_ZONE`]).

/// A time zone the harness runs plugins in: its tz database name, and the
/// POSIX rule that says the same to a C library where the database is
/// missing (Go cannot read the rule: a Go plugin then runs in UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    /// The tz database name (`Asia/Kolkata`).
    pub name: &'static str,
    /// The same zone as a POSIX `TZ` rule (`IST-5:30`).
    pub posix: &'static str,
}

/// Every sandbox's zone: India, five hours and a half east of UTC, all year.
pub const USER_ZONE: Zone = Zone {
    name: "Asia/Kolkata",
    posix: "IST-5:30",
};

/// The session replay's zone: Newfoundland, three hours and a half west of
/// UTC, with daylight saving (two and a half from March to November).
pub const REPLAY_ZONE: Zone = Zone {
    name: "America/St_Johns",
    posix: "NST3:30NDT,M3.2.0,M11.1.0",
};

/// The variable a process reads its zone from.
pub const TZ_VAR: &str = "TZ";

/// Parses `s` as Go's `time.Parse(time.RFC3339, s)` does, and says why
/// when the host refuses it.
///
/// `YYYY-MM-DDTHH:MM:SS`, an optional fraction (`.` or `,` and digits),
/// then `Z` or `±hh:mm`: `T` and `Z` upper case, a real day of the month,
/// a second below 60 (no leap second). Go's general parser, which
/// `time.Parse` falls back to, also takes an hour of one digit and a zone
/// offset up to `24:60`; `+0530`, without its colon, is refused.
pub fn parse_rfc3339(s: &str) -> Result<(), String> {
    let mut rest = s.as_bytes();
    let year = digits(&mut rest, 4, 4).ok_or("no four-digit year")?;
    literal(&mut rest, b'-')?;
    let month = digits(&mut rest, 2, 2).ok_or("no two-digit month")?;
    literal(&mut rest, b'-')?;
    let day = digits(&mut rest, 2, 2).ok_or("no two-digit day")?;
    literal(&mut rest, b'T')?;
    let hour = digits(&mut rest, 1, 2).ok_or("no hour")?;
    literal(&mut rest, b':')?;
    let minute = digits(&mut rest, 2, 2).ok_or("no two-digit minute")?;
    literal(&mut rest, b':')?;
    let second = digits(&mut rest, 2, 2).ok_or("no two-digit second")?;
    if let [b'.' | b',', d, ..] = rest
        && d.is_ascii_digit()
    {
        let n = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        rest = &rest[1 + n..];
    }
    zone(&mut rest)?;
    if !rest.is_empty() {
        return Err(format!(
            "extra text {:?} after the time",
            String::from_utf8_lossy(rest)
        ));
    }
    let out_of_range = [
        ("month", !(1..=12).contains(&month)),
        ("hour", hour > 23),
        ("minute", minute > 59),
        ("second", second > 59),
        (
            "day",
            (1..=12).contains(&month) && (day == 0 || day > days_in(month, year)),
        ),
    ];
    match out_of_range.iter().find(|(_, out)| *out) {
        Some((what, _)) => Err(format!("{what} out of range")),
        None => Ok(()),
    }
}

/// `Z`, or a sign, two digits, `:` and two digits (at most `24:60`, as Go's
/// general parser allows).
fn zone(rest: &mut &[u8]) -> Result<(), String> {
    if let [b'Z', tail @ ..] = *rest {
        *rest = tail;
        return Ok(());
    }
    match *rest {
        [b'+' | b'-', h1, h2, b':', m1, m2, tail @ ..]
            if [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
        {
            let hours = u32::from(h1 - b'0') * 10 + u32::from(h2 - b'0');
            let minutes = u32::from(m1 - b'0') * 10 + u32::from(m2 - b'0');
            if hours > 24 || minutes > 60 {
                return Err("time zone offset out of range".to_string());
            }
            *rest = tail;
            Ok(())
        }
        [b'+' | b'-', h1, h2, m1, m2, ..]
            if [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
        {
            Err(format!(
                "the zone offset {:?} has no colon (Go's layout Z0700, not RFC 3339's Z07:00)",
                String::from_utf8_lossy(&rest[..5])
            ))
        }
        _ => Err("no zone (Z or ±hh:mm) after the time".to_string()),
    }
}

/// Takes `min..=max` ASCII digits from the front of `rest` (as many as
/// there are, up to `max`) as a number.
fn digits(rest: &mut &[u8], min: usize, max: usize) -> Option<u32> {
    let n = rest
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if n < min {
        return None;
    }
    let value = rest[..n]
        .iter()
        .fold(0, |acc, b| acc * 10 + u32::from(b - b'0'));
    *rest = &rest[n..];
    Some(value)
}

/// Takes the byte `want` from the front of `rest`.
fn literal(rest: &mut &[u8], want: u8) -> Result<(), String> {
    match rest.split_first() {
        Some((&b, tail)) if b == want => {
            *rest = tail;
            Ok(())
        }
        Some((&b, _)) => Err(format!("{:?} where {:?} belongs", b as char, want as char)),
        None => Err(format!("the text ends where {:?} belongs", want as char)),
    }
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_go_time_parse_takes() {
        for good in [
            "2026-01-13T12:00:00Z",
            "0001-01-01T00:00:00Z",
            "2026-01-13T12:00:00.123+02:00",
            "2026-12-06T10:45:28.123456+05:30",
            "2026-12-06T01:15:28-03:30",
            "2024-02-29T23:59:59Z",
            // Go's general parser: one-digit hour, a comma, offsets to 24:60.
            "2026-01-13T1:00:00Z",
            "2026-01-13T12:00:00,5Z",
            "2026-01-13T12:00:00+24:00",
        ] {
            assert_eq!(parse_rfc3339(good), Ok(()), "{good}");
        }
    }

    #[test]
    fn what_it_refuses_and_why() {
        for (bad, why) in [
            ("2026-12-06T10:45:28+0530", "no colon"),
            ("2026-12-06T10:45:28.123456789+0530", "no colon"),
            ("2026-01-13", "ends where"),
            ("2026-01-13 12:00:00Z", "' ' where 'T'"),
            ("2026-01-13t12:00:00Z", "'t' where 'T'"),
            ("2026-01-13T12:00:00z", "no zone"),
            ("2026-01-13T12:00:00", "no zone"),
            ("2026-01-13T12:00:60Z", "second out of range"),
            ("2026-13-13T12:00:00Z", "month out of range"),
            ("2025-02-29T12:00:00Z", "day out of range"),
            ("2026-01-13T24:00:00Z", "hour out of range"),
            ("2026-01-13T12:00:00.Z", "no zone"),
            ("2026-01-13T12:00:00+25:00", "offset out of range"),
            ("2026-01-13T12:00:00Zjunk", "extra text"),
            ("13/01/2026 12:00", "year"),
            ("now", "year"),
        ] {
            let err = parse_rfc3339(bad).expect_err(bad);
            assert!(err.contains(why), "{bad}: {err}");
        }
    }
}
