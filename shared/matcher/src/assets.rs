//! The data files built into the binary (`shared/assets`, README there): gzip-compressed text,
//! decompressed once at first use.

/// The text of a gzip-compressed asset. The assets are part of the build, so one that does not
/// decompress is a broken build, not a runtime condition.
pub fn text_of(gzipped: &[u8], what: &str) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gzipped), &mut text)
        .unwrap_or_else(|e| panic!("the bundled {what} decompresses: {e}"));
    text
}
