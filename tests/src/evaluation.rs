//! Scoring of the unknown-caller evaluation set (`eval/unknown-caller`), shared by the test
//! that runs it in process and by the `eval-unknown-callers` command that runs it over HTTP.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

/// The development set's cases file, as the command and the test read it.
pub const CASES: &str = include_str!("../../eval/unknown-caller/dev.cases.json");
/// Its fixture: organisation 5 (portals 11-13) and organisation 9 (portal 21).
pub const FIXTURE: &str = include_str!("../../eval/unknown-caller/dev.fixture.json");
/// The held-out set, never tuned on: organisation 7 (portals 31-33) and
/// organisation 8 (portal 41), written by `eval/unknown-caller/generate-holdout.py`.
pub const HOLDOUT_CASES: &str = include_str!("../../eval/unknown-caller/holdout.cases.json");
pub const HOLDOUT_FIXTURE: &str = include_str!("../../eval/unknown-caller/holdout.fixture.json");

/// Tallies of answers to the cases, by the scoring rules of the evaluation set: a 200 naming
/// the expected client, or a 404 where no client is expected, is right; a 200 naming anyone
/// else, or any other status, is wrong; a 404 where a client was expected is an abstention.
#[derive(Debug, Default)]
pub struct Evaluation {
    pub correct: u32,
    pub wrong: u32,
    pub abstained: u32,
    /// Cases and right answers by case kind.
    kinds: BTreeMap<String, (u32, u32)>,
    /// Suggestions and right ones by confidence band (0, 10, ..., 90; 90 holds 90-100).
    bands: BTreeMap<i64, (u32, u32)>,
    /// One paragraph per case answered wrongly: the case and the best candidates.
    misses: Vec<String>,
}

impl Evaluation {
    /// Scores one answer (`status`, `body`) to `case`.
    pub fn record(&mut self, case: &Value, status: u16, body: &Value) {
        let expected = &case["expectedClientId"];
        let suggested = (status == 200).then(|| &body["clientId"]);
        let right = match suggested {
            Some(id) => id == expected,
            None => status == 404 && expected.is_null(),
        };
        if let Some(confidence) = suggested.and(body["confidence"].as_i64()) {
            let band = self
                .bands
                .entry((confidence / 10 * 10).min(90))
                .or_default();
            band.0 += 1;
            band.1 += u32::from(right);
        }
        let kind = self
            .kinds
            .entry(case["kind"].as_str().unwrap_or("?").to_string())
            .or_default();
        kind.0 += 1;
        if right {
            kind.1 += 1;
            self.correct += 1;
            return;
        }
        // An error answer (neither a suggestion nor a 404) is as wrong as a wrong suggestion.
        if suggested.is_some() || status != 404 {
            self.wrong += 1;
        } else {
            self.abstained += 1;
        }
        let mut miss = format!(
            "{} (expected {expected}, answer {status}): {}",
            case["name"], case["call"]["summary"]
        );
        for candidate in body["candidates"].as_array().into_iter().flatten().take(3) {
            let _ = write!(
                miss,
                "\n    {} {} {} {}",
                candidate["clientId"],
                candidate["name"],
                candidate["confidence"],
                candidate["reason"]
            );
        }
        self.misses.push(miss);
    }

    pub fn cases(&self) -> u32 {
        self.correct + self.wrong + self.abstained
    }

    /// The one-line summary, keys in this order: `{"cases":N,"correct":N,"wrong":N,"abstained":N}`.
    pub fn summary(&self) -> String {
        format!(
            "{{\"cases\":{},\"correct\":{},\"wrong\":{},\"abstained\":{}}}",
            self.cases(),
            self.correct,
            self.wrong,
            self.abstained
        )
    }

    /// The share of cases answered right, in percent.
    pub fn percent_right(&self) -> f64 {
        f64::from(self.correct) * 100.0 / f64::from(self.cases().max(1))
    }

    /// The confidence bands whose suggestions are right less often than the band promises.
    pub fn miscalibrated_bands(&self) -> Vec<i64> {
        self.bands
            .iter()
            .filter(|(band, (n, right))| i64::from(*right) * 100 < **band * i64::from(*n))
            .map(|(band, _)| *band)
            .collect()
    }

    /// Misses, results per kind, the calibration table, and last the summary line.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for miss in &self.misses {
            let _ = writeln!(out, "MISS {miss}");
        }
        let _ = writeln!(out, "{:16} {:>5} {:>5}", "kind", "right", "cases");
        for (kind, (n, right)) in &self.kinds {
            let _ = writeln!(out, "{kind:16} {right:>5} {n:>5}");
        }
        let _ = writeln!(out, "confidence  suggestions  right");
        for (band, (n, right)) in &self.bands {
            let top = band + 9 + i64::from(*band == 90);
            let _ = writeln!(out, "{band:>3}-{top:<3}     {n:>11}  {right:>5}");
        }
        let _ = write!(out, "{}", self.summary());
        out
    }
}
