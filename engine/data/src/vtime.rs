//! Calendar arithmetic for the virtual clock. There is no time zone: the virtual clock is the
//! phone's local time, counted in ms since 1970-01-01 00:00.

/// A broken-down virtual time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CivilTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 = Monday.
    pub weekday: u32,
    /// 1-based day of the year.
    pub yday: u32,
}

pub const WEEKDAY_NAMES: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
pub const MONTH_NAMES: [&str; 12] =
    ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Day of the week (0 = Monday) of a civil date.
pub fn weekday_of(year: i64, month: u32, day: u32) -> usize {
    (days_from_civil(year, month, day) + 3).rem_euclid(7) as usize
}

/// Parses `YYYY-MM-DD` into a date that exists (years of at most six digits: the day
/// arithmetic would overflow far beyond).
pub fn parse_date(text: &str) -> Option<(i64, u32, u32)> {
    let mut it = text.split('-');
    let y = it.next()?.parse().ok().filter(|y: &i64| y.abs() <= 999_999)?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    (it.next().is_none() && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)).then_some((y, m, d))
}

/// The phone's 24-hour clock setting (`system.clock_24h`; on unless an appearance turned it off).
pub fn clock_24h(system: &serde_json::Value) -> bool {
    system.get("clock_24h").and_then(serde_json::Value::as_bool).unwrap_or(true)
}

/// Minutes since midnight as a clock shows them: `HH:MM` (24-hour) or `h:MM AM` (12-hour).
/// Out-of-range minutes wrap around the day.
pub fn format_minutes(minutes: i64, h24: bool) -> String {
    let m = minutes.rem_euclid(1440);
    let (hour, minute) = (m / 60, m % 60);
    if h24 {
        return format!("{hour:02}:{minute:02}");
    }
    let hour12 = if hour % 12 == 0 { 12 } else { hour % 12 };
    format!("{hour12}:{minute:02} {}", if hour < 12 { "AM" } else { "PM" })
}

/// Days in a month.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    let next = if month == 12 { days_from_civil(year + 1, 1, 1) } else { days_from_civil(year, month + 1, 1) };
    (next - days_from_civil(year, month, 1)) as u32
}

impl CivilTime {
    pub fn from_ms(ms: i64) -> CivilTime {
        let days = ms.div_euclid(86_400_000);
        let in_day = ms.rem_euclid(86_400_000) / 1000;
        let (year, month, day) = civil_from_days(days);
        CivilTime {
            year,
            month,
            day,
            hour: (in_day / 3600) as u32,
            minute: (in_day / 60 % 60) as u32,
            second: (in_day % 60) as u32,
            weekday: (days + 3).rem_euclid(7) as u32,
            yday: (days - days_from_civil(year, 1, 1) + 1) as u32,
        }
    }

    /// `YYYY-MM-DD`.
    pub fn date_string(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `HH:MM`.
    pub fn time_string(&self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }

    /// The time of day as the phone's clock setting shows it: `HH:MM` or `h:MM AM`.
    pub fn clock_string(&self, h24: bool) -> String {
        format_minutes(i64::from(self.hour * 60 + self.minute), h24)
    }

    /// strftime-like formatting of the common directives (`%Y %m %d %H %M %S %I %p %a %A %b %B %y %j %e %%`).
    pub fn format(&self, fmt: &str) -> String {
        let mut out = String::new();
        let mut chars = fmt.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let hour12 = if self.hour.is_multiple_of(12) { 12 } else { self.hour % 12 };
            match chars.next() {
                Some('Y') => out.push_str(&self.year.to_string()),
                Some('y') => out.push_str(&format!("{:02}", self.year.rem_euclid(100))),
                Some('m') => out.push_str(&format!("{:02}", self.month)),
                Some('d') => out.push_str(&format!("{:02}", self.day)),
                Some('e') => out.push_str(&format!("{:>2}", self.day)),
                Some('H') => out.push_str(&format!("{:02}", self.hour)),
                Some('I') => out.push_str(&format!("{hour12:02}")),
                Some('M') => out.push_str(&format!("{:02}", self.minute)),
                Some('S') => out.push_str(&format!("{:02}", self.second)),
                Some('p') => out.push_str(if self.hour < 12 { "AM" } else { "PM" }),
                Some('a') => out.push_str(&WEEKDAY_NAMES[self.weekday as usize][..3]),
                Some('A') => out.push_str(WEEKDAY_NAMES[self.weekday as usize]),
                Some('b') => out.push_str(&MONTH_NAMES[(self.month - 1) as usize][..3]),
                Some('B') => out.push_str(MONTH_NAMES[(self.month - 1) as usize]),
                Some('j') => out.push_str(&format!("{:03}", self.yday)),
                Some('%') => out.push('%'),
                Some(other) => {
                    out.push('%');
                    out.push(other);
                }
                None => out.push('%'),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_dates() {
        for days in [-1000, 0, 1, 59, 60, 365, 10_957, 20_000, 20_422] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        let t = CivilTime::from_ms(days_from_civil(2026, 11, 30) * 86_400_000 + (9 * 3600 + 5 * 60) * 1000);
        assert_eq!(t.date_string(), "2026-11-30");
        assert_eq!(t.time_string(), "09:05");
        assert_eq!(t.clock_string(true), "09:05");
        assert_eq!(t.clock_string(false), "9:05 AM");
        assert_eq!(format_minutes(0, false), "12:00 AM");
        assert_eq!(format_minutes(12 * 60 + 30, false), "12:30 PM");
        assert_eq!(format_minutes(23 * 60 + 59, false), "11:59 PM");
        assert_eq!(format_minutes(-1, true), "23:59");
        assert_eq!(t.weekday, 0);
        assert_eq!(t.format("%a %d %b %Y %I:%M %p"), "Mon 30 Nov 2026 09:05 AM");
        assert_eq!(days_in_month(2024, 2), 29);
    }
}
