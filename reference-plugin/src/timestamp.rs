//! RFC 3339 timestamps without a date-time dependency.
//!
//! The host decodes `Event.timestamp` and `AgentSession.start_time` as RFC 3339,
//! so the plugin must write them in exactly that form, and must not pass on a
//! transcript timestamp that the host would then fail to parse. Both needs are
//! small enough to meet with a few lines of calendar arithmetic.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn now_rfc3339() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        });
    format_rfc3339(seconds)
}

/// The current time as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` (UTC, nanoseconds), for
/// the `info-unstable` fault: two calls practically never give the same text.
pub fn now_rfc3339_nanos() -> String {
    let elapsed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX);
    let stamp = format_rfc3339(seconds);
    let stamp = stamp.strip_suffix('Z').unwrap_or(&stamp);
    format!("{stamp}.{:09}Z", elapsed.subsec_nanos())
}

/// A local time as Go's layout `2006-01-02T15:04:05Z0700` prints it, for
/// the `timestamp-no-colon` fault: `Z` in UTC, `+0530` in India (the zone's
/// offset without its colon, which RFC 3339 has). Of a fixed instant
/// (2026-01-13 12:00 UTC) in the zone's offset of now, so that every call
/// answers the same: the fault is the layout, not the clock.
pub fn local_z0700() -> String {
    let seconds = 1_768_305_600;
    let offset = local_offset(seconds);
    let local = format_rfc3339(seconds.saturating_add(offset));
    let local = local.strip_suffix('Z').unwrap_or(&local);
    if offset == 0 {
        return format!("{local}Z");
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.abs() / 60;
    format!("{local}{sign}{:02}{:02}", minutes / 60, minutes % 60)
}

/// A local time with its offset always after a `+`, for the
/// `timestamp-plus-sign` fault: `+05:30` in India, `+-3:30` in
/// Newfoundland (the sign of a negative hour printed after the `+`).
pub fn local_plus_sign() -> String {
    let seconds = 1_768_305_600;
    let offset = local_offset(seconds);
    let local = format_rfc3339(seconds.saturating_add(offset));
    let local = local.strip_suffix('Z').unwrap_or(&local);
    let hours = offset / 3600;
    let minutes = (offset.abs() / 60) % 60;
    format!("{local}+{hours:02}:{minutes:02}")
}

/// The local zone's offset east of UTC now, in seconds, as `date +%z`
/// reads it from `TZ` (a fault's need only, so a process rather than
/// unsafe code or a zone database reader; 0 where it cannot tell).
fn local_offset(_unix_seconds: i64) -> i64 {
    let Ok(out) = std::process::Command::new("date").arg("+%z").output() else {
        return 0;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text.trim();
    let (sign, digits) = match text.split_at_checked(1) {
        Some(("-", digits)) => (-1, digits),
        Some(("+", digits)) => (1, digits),
        _ => return 0,
    };
    match (
        digits.get(..2).map(str::parse::<i64>),
        digits.get(2..4).map(str::parse::<i64>),
    ) {
        (Some(Ok(hours)), Some(Ok(minutes))) => sign * (hours * 3600 + minutes * 60),
        _ => 0,
    }
}

/// Format seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn format_rfc3339(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let second_of_day = unix_seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    )
}

/// Convert days since 1970-01-01 to a proleptic Gregorian (year, month, day).
///
/// Howard Hinnant's `civil_from_days`: shift the epoch to 0000-03-01 so the leap
/// day falls at the end of the year, then split into 400-year eras.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097); // [0, 146096]
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365; // [0, 399]
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100); // [0, 365]
    let month_from_march = (5 * day_of_year + 2) / 153; // [0, 11]
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1; // [1, 31]
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether `text` is an RFC 3339 date-time the host's parser accepts:
/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`.
pub fn is_rfc3339(text: &str) -> bool {
    let bytes = text.as_bytes();
    // The fixed-width part: "YYYY-MM-DDTHH:MM:SS" is 19 bytes.
    if bytes.len() < 20 || !text.is_ascii() {
        return false;
    }
    let number = |range| number_in(text, range);
    let separators_ok = bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
        && bytes[16] == b':';
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        number(0..4),
        number(5..7),
        number(8..10),
        number(11..13),
        number(14..16),
        number(17..19),
    ) else {
        return false;
    };
    if !separators_ok
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return false;
    }

    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    match rest.as_bytes() {
        [b'Z'] => true,
        [b'+' | b'-', _, _, b':', _, _] => {
            matches!((number_in(rest, 1..3), number_in(rest, 4..6)), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// Parse the all-digit `range` of `text` as a number.
fn number_in(text: &str, range: std::ops::Range<usize>) -> Option<u32> {
    let digits = text.get(range)?;
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse().ok()
    } else {
        None
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
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
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_rfc3339(1_768_305_600), "2026-01-13T12:00:00Z");
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59Z");
        assert!(is_rfc3339(&now_rfc3339()));
        let go = local_z0700();
        assert!(
            go.ends_with('Z') || go.len() == "2026-01-13T12:00:00+0530".len(),
            "{go}"
        );
        let precise = now_rfc3339_nanos();
        assert!(is_rfc3339(&precise), "{precise}");
        assert_eq!(precise.len(), "2026-01-13T12:00:00.123456789Z".len());
    }

    #[test]
    fn validates_rfc3339() {
        for good in [
            "2026-01-13T12:00:00Z",
            "2026-01-13T12:00:00.123456789Z",
            "2024-02-29T23:59:59+05:30",
            "2026-01-13T12:00:00-00:00",
        ] {
            assert!(is_rfc3339(good), "{good}");
        }
        for bad in [
            "",
            "now",
            "13/01/2026 12:00",
            "2026-01-13 12:00:00Z",
            "2026-01-13T12:00:00",
            "2026-13-13T12:00:00Z",
            "2025-02-29T12:00:00Z",
            "2026-01-13T24:00:00Z",
            "2026-01-13T12:00:00.Z",
            "2026-01-13T12:00:00+0530",
            "2026-01-13T12:00:00Zjunk",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }
}
