//! The data files built into the binary (`shared/assets`, README there): gzip-compressed text,
//! decompressed once at first use, by the matcher crate's one reader.

pub(crate) use matcher::text_of;
