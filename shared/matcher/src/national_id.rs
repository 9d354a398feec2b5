//! National identity numbers: Swedish personnummer and samordningsnummer checked and stored as
//! 12 digits, other countries' forms kept as 6 to 20 letters or digits.

use chrono::{Datelike, NaiveDate};

/// Why a national id was refused; the text is shown to the integration that sent it.
pub type Reason = &'static str;

/// The stored form of a national id, or why it is not one.
///
/// Spaces and dashes are dropped. Ten or twelve digits are read as a Swedish number: the date
/// must exist (day + 60 for a samordningsnummer) and the Luhn digit must match; ten digits take
/// the century that makes the person 0 to 99 years old on `today`, or 100 to 199 with the `+`
/// separator Sweden uses for centenarians. Anything else of 6 to 20 letters or digits is kept,
/// upper-cased.
pub fn normalise(raw: &str, today: NaiveDate) -> Result<String, Reason> {
    let compact: String = raw
        .chars()
        .filter(|c| !c.is_whitespace() && !is_dash(*c))
        .collect();
    if compact.is_empty() {
        return Err("is empty");
    }
    if let Some((born, serial)) = compact.split_once('+') {
        return if born.len() == 6 && serial.len() == 4 && all_digits(born) && all_digits(serial) {
            swedish(&format!("{born}{serial}"), today, true)
        } else {
            Err("has a '+' outside the YYMMDD+NNNC form")
        };
    }
    if all_digits(&compact) && matches!(compact.len(), 10 | 12) {
        return swedish(&compact, today, false);
    }
    if (6..=20).contains(&compact.len()) && compact.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Ok(compact.to_ascii_uppercase());
    }
    Err("is neither a Swedish personnummer nor 6 to 20 letters or digits")
}

fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2010}'..='\u{2015}' | '\u{2212}')
}

fn all_digits(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii_digit())
}

fn digits(text: &str) -> u32 {
    text.bytes().fold(0, |n, b| n * 10 + u32::from(b - b'0'))
}

/// The Luhn check digit of the first nine digits of a ten-digit personnummer: weights
/// 2,1,2,...; tests use it to write valid numbers.
pub fn luhn_digit(nine: &str) -> u32 {
    let sum: u32 = nine.bytes().take(9).enumerate().fold(0, |sum, (i, b)| {
        let product = u32::from(b - b'0') * if i % 2 == 0 { 2 } else { 1 };
        sum + product / 10 + product % 10
    });
    (10 - sum % 10) % 10
}

fn luhn_ok(ten: &str) -> bool {
    luhn_digit(ten) == u32::from(ten.as_bytes()[9] - b'0')
}

fn swedish(number: &str, today: NaiveDate, centenarian: bool) -> Result<String, Reason> {
    let ten = &number[number.len() - 10..];
    let (month, day) = (digits(&ten[2..4]), digits(&ten[4..6]));
    // A samordningsnummer adds 60 to the day of birth.
    let day = if day > 60 { day - 60 } else { day };
    let year = if number.len() == 12 {
        digits(&number[..4]) as i32
    } else {
        let yy = digits(&ten[..2]) as i32;
        let this_year = today.year();
        let mut year = this_year - (this_year - yy).rem_euclid(100);
        if NaiveDate::from_ymd_opt(year, month, day).is_some_and(|born| born > today) {
            year -= 100;
        }
        if centenarian { year - 100 } else { year }
    };
    let born = NaiveDate::from_ymd_opt(year, month, day).ok_or("has no valid date of birth")?;
    if born > today || year < 1850 {
        return Err("has no valid date of birth");
    }
    if !luhn_ok(ten) {
        return Err("has a wrong check digit");
    }
    Ok(format!("{year:04}{}", &ten[2..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 20).unwrap()
    }

    #[test]
    fn swedish_numbers_in_every_written_form_become_twelve_digits() {
        for raw in [
            "193804122384",
            "19380412-2384",
            "380412-2384",
            "3804122384",
            " 3804 12-2384 ",
            "380412\u{2013}2384",
        ] {
            assert_eq!(normalise(raw, today()), Ok("193804122384".into()), "{raw}");
        }
    }

    #[test]
    fn ten_digits_take_the_century_that_makes_the_person_under_a_hundred() {
        assert_eq!(normalise("1212121212", today()), Ok("201212121212".into()));
        // 2026-12-12 is still ahead on the 20th of November 2026, so 1926.
        assert_eq!(normalise("261212-1232", today()), Ok("192612121232".into()));
        assert_eq!(normalise("121212+1212", today()), Ok("191212121212".into()));
    }

    #[test]
    fn a_samordningsnummer_has_sixty_added_to_the_day() {
        assert_eq!(normalise("701063-2391", today()), Ok("197010632391".into()));
    }

    #[test]
    fn wrong_check_digits_and_impossible_dates_are_refused() {
        assert_eq!(
            normalise("19380412-2386", today()),
            Err("has a wrong check digit")
        );
        assert_eq!(
            normalise("19380230-2384", today()),
            Err("has no valid date of birth")
        );
        assert_eq!(
            normalise("20991231-0000", today()),
            Err("has no valid date of birth")
        );
    }

    #[test]
    fn other_forms_are_kept_when_six_to_twenty_letters_or_digits() {
        assert_eq!(normalise("ab-12 34x", today()), Ok("AB1234X".into()));
        assert_eq!(normalise("12345678901", today()), Ok("12345678901".into()));
        assert!(normalise("12345", today()).is_err());
        assert!(normalise("a".repeat(21).as_str(), today()).is_err());
        assert!(normalise("12345#789", today()).is_err());
        assert!(normalise("  -- ", today()).is_err());
        assert!(normalise("12+34", today()).is_err());
    }
}
