//! Entity resolution for unknown callers: the text, name, number and address evidence that
//! ties a call summary to one client of an organisation.

pub mod index;
pub mod mentions;
pub mod names;
pub mod score;
pub mod text;
