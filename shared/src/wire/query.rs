//! Query parameters that page lists: page sizes, id cursors and the access log's cursor.

/// A list's page size, an integer from 1 to `MAX`, as a query parameter carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimit<const MAX: usize>(usize);

impl<const MAX: usize> PageLimit<MAX> {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<usize>()
            .ok()
            .filter(|limit| (1..=MAX).contains(limit))
            .map(Self)
            .ok_or_else(|| format!("must be an integer from 1 to {MAX}"))
    }

    pub fn get(self) -> usize {
        self.0
    }
}

/// A list's cursor where items are listed by id: the id to start after, from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdCursor(i32);

impl IdCursor {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<i32>()
            .ok()
            .filter(|after| *after >= 0)
            .map(Self)
            .ok_or_else(|| "must be an id from 0 to 2147483647".to_string())
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// A record id as a query parameter carries it: an integer from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdParam(i32);

impl IdParam {
    pub fn parse(value: &str) -> Result<Self, String> {
        value
            .parse::<i32>()
            .ok()
            .filter(|id| *id > 0)
            .map(Self)
            .ok_or_else(|| "must be an integer between 1 and 2147483647".into())
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

/// Where a page of the access log starts: the id of the last record (`time#trace#part`) or
/// review (`time#uuid`) of the previous page, as its `Link` header gives it
/// (`openapi::LOG_CURSOR`). Ids are compared as text, so any string of an id's shape is a
/// position in the list and nothing else is checked: one typed by hand pages from wherever it
/// sorts, and can show nothing the caller could not list anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogCursor(String);

impl LogCursor {
    pub fn parse(cursor: &str) -> Result<Self, String> {
        let id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '=' | '_' | '-');
        let mut parts = cursor.split('#');
        let time = parts.next().unwrap_or_default();
        let time_shaped = time.len() == 27
            && time.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                10 => b == b'T',
                13 | 16 => b == b':',
                19 => b == b'.',
                26 => b == b'Z',
                _ => b.is_ascii_digit(),
            });
        let rest: Vec<&str> = parts.collect();
        let rest_shaped = (1..=2).contains(&rest.len())
            && rest
                .iter()
                .all(|part| (1..=64).contains(&part.len()) && part.chars().all(id_char));
        if time_shaped && rest_shaped {
            Ok(Self(cursor.to_string()))
        } else {
            Err("must be a cursor from a Link header".into())
        }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

from_text!(PageLimit<const MAX: usize>);
from_text!(IdCursor);
from_text!(IdParam);
from_text!(LogCursor);
