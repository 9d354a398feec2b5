//! Entity resolution for unknown callers: the text, name, number and address evidence that
//! ties a call summary to one client of an organisation. A crate of its own, without AWS or
//! I/O: the service feeds it its client records (`shared::matching`).

mod assets;
pub mod index;
pub mod mentions;
pub mod names;
pub mod national_id;
pub mod score;
pub mod text;

pub use assets::text_of;
pub use index::ClientFields;
