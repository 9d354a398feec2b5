//! The service's business metrics: the names CloudWatch alarms are written against, one function
//! per metric for the code that counts, and the CloudWatch embedded metric format (EMF) recorder
//! a Lambda installs at start (`shared::runtime::with_metrics` flushes it once per invocation).
//!
//! The functions go through the `metrics` facade: where no recorder is installed (`local-api`,
//! the tests) each is a no-op and nothing is written anywhere.
//!
//! No metric has a dimension, and no document carries a property about a portal, a client, a
//! phone number or a name: the alarms read service-wide figures, and the log lines that carry
//! the metrics stay free of personal data. The only properties are the invocation's ids (to find
//! its other log lines) and the `level` Lambda filters by.

use std::io::Write;
use std::time::Duration;

use ::metrics::Unit;
use metrics_cloudwatch_embedded::Collector;

/// Where the namespace comes from; the template sets it.
pub const NAMESPACE_VARIABLE: &str = "METRICS_NAMESPACE";
pub const DEFAULT_NAMESPACE: &str = "CareCalls";

pub const CALLS_INGESTED: &str = "CallsIngested";
pub const ALERTS_OPENED: &str = "AlertsOpened";
pub const ALERTS_ACKNOWLEDGED: &str = "AlertsAcknowledged";
pub const ALERT_ACKNOWLEDGEMENT_SECONDS: &str = "AlertAcknowledgementSeconds";
pub const ESCALATION_STEPS: &str = "EscalationSteps";
pub const SMS_FAILED: &str = "SmsFailed";
pub const CODES_SENT: &str = "CodesSent";
pub const CODES_REFUSED: &str = "CodesRefused";
pub const ACCESS_RECORDS_WRITTEN: &str = "AccessRecordsWritten";
pub const ACCESS_RECORDS_FAILED: &str = "AccessRecordsFailed";
pub const SCHEDULER_PASS_SECONDS: &str = "SchedulerPassSeconds";
pub const ENTRIES_DUE: &str = "EntriesDue";
pub const ALERTS_UNNOTIFIED: &str = "AlertsUnnotified";
pub const ALARM_CHAIN_TEST_SUCCEEDED: &str = "AlarmChainTestSucceeded";
pub const ALARM_CHAIN_TEST_FAILED: &str = "AlarmChainTestFailed";

/// How a metric is recorded: a counter's increments are summed into one value per document
/// (omitted when nothing was counted); a sample keeps every value recorded, zero included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Sample,
}

/// Every metric, its unit and kind.
pub const ALL: &[(&str, Unit, Kind)] = &[
    (CALLS_INGESTED, Unit::Count, Kind::Counter),
    (ALERTS_OPENED, Unit::Count, Kind::Counter),
    (ALERTS_ACKNOWLEDGED, Unit::Count, Kind::Counter),
    (ALERT_ACKNOWLEDGEMENT_SECONDS, Unit::Seconds, Kind::Sample),
    (ESCALATION_STEPS, Unit::Count, Kind::Counter),
    (SMS_FAILED, Unit::Count, Kind::Counter),
    (CODES_SENT, Unit::Count, Kind::Counter),
    (CODES_REFUSED, Unit::Count, Kind::Counter),
    (ACCESS_RECORDS_WRITTEN, Unit::Count, Kind::Counter),
    (ACCESS_RECORDS_FAILED, Unit::Count, Kind::Counter),
    (SCHEDULER_PASS_SECONDS, Unit::Seconds, Kind::Sample),
    (ENTRIES_DUE, Unit::Count, Kind::Counter),
    // A sample, not a counter: a pass with none records 0, so the alarm always has data.
    (ALERTS_UNNOTIFIED, Unit::Count, Kind::Sample),
    (ALARM_CHAIN_TEST_SUCCEEDED, Unit::Count, Kind::Counter),
    (ALARM_CHAIN_TEST_FAILED, Unit::Count, Kind::Counter),
];

fn count(name: &'static str, by: usize) {
    if by > 0 {
        ::metrics::counter!(name).increment(by as u64);
    }
}

fn sample(name: &'static str, value: f64) {
    ::metrics::histogram!(name).record(value);
}

/// A call stored by `call.ended` ingestion.
pub fn calls_ingested() {
    count(CALLS_INGESTED, 1);
}

/// Alerts opened, whatever raised them.
pub fn alerts_opened(opened: usize) {
    count(ALERTS_OPENED, opened);
}

/// An alert acknowledged by staff.
pub fn alerts_acknowledged() {
    count(ALERTS_ACKNOWLEDGED, 1);
}

/// How long an alert stayed open before staff acknowledged it.
pub fn alert_acknowledgement_seconds(open_for: chrono::TimeDelta) {
    let seconds = open_for.num_milliseconds().max(0) as f64 / 1000.0;
    sample(ALERT_ACKNOWLEDGEMENT_SECONDS, seconds);
}

/// Escalation SMS handed to SNS, one per contact messaged.
pub fn escalation_steps(sent: usize) {
    count(ESCALATION_STEPS, sent);
}

/// SMS that could not be sent, by any sender.
pub fn sms_failed(failed: usize) {
    count(SMS_FAILED, failed);
}

/// A login code handed to SNS.
pub fn codes_sent() {
    count(CODES_SENT, 1);
}

/// A login code asked for and not sent: too many asked for, or no account has the number.
pub fn codes_refused() {
    count(CODES_REFUSED, 1);
}

/// Access-log records appended (their copies per client are not counted).
pub fn access_records_written(records: usize) {
    count(ACCESS_RECORDS_WRITTEN, records);
}

/// Access-log records that could not be appended: the answer or the SMS they were for was
/// withheld.
pub fn access_records_failed(records: usize) {
    count(ACCESS_RECORDS_FAILED, records);
}

/// How long one scheduler pass took.
pub fn scheduler_pass_seconds(took: Duration) {
    sample(SCHEDULER_PASS_SECONDS, took.as_secs_f64());
}

/// Questionnaire entries a scheduler pass found due.
pub fn entries_due(due: usize) {
    count(ENTRIES_DUE, due);
}

/// Open alerts past their first delay that nobody has been told of, as one pass found them.
pub fn alerts_unnotified(waiting: usize) {
    sample(ALERTS_UNNOTIFIED, waiting as f64);
}

/// A run of the alarm chain's test that went through.
pub fn alarm_chain_test_succeeded() {
    count(ALARM_CHAIN_TEST_SUCCEEDED, 1);
}

/// A run of the alarm chain's test that did not.
pub fn alarm_chain_test_failed() {
    count(ALARM_CHAIN_TEST_FAILED, 1);
}

/// The ids of the invocation whose metrics are flushed, as the document's properties.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InvocationIds {
    /// Lambda's request id.
    pub request_id: Option<String>,
    pub xray_trace_id: Option<String>,
    /// The service's trace id (API Gateway's request id), on HTTP invocations.
    pub trace_id: Option<String>,
}

impl InvocationIds {
    fn properties(&self) -> [(&'static str, Option<&String>); 3] {
        [
            ("requestId", self.request_id.as_ref()),
            ("xrayTraceId", self.xray_trace_id.as_ref()),
            ("traceId", self.trace_id.as_ref()),
        ]
    }
}

/// The recorder of a Lambda: installs `metrics_cloudwatch_embedded`'s collector as the global
/// recorder, with the namespace of `METRICS_NAMESPACE` (default `CareCalls`), no dimensions and
/// each metric's unit. Once per process: a second install is an error.
pub fn install(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<&'static Collector, crate::store::BoxError> {
    let namespace = lookup(NAMESPACE_VARIABLE)
        .map(|namespace| namespace.trim().to_string())
        .filter(|namespace| !namespace.is_empty())
        .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
    let collector = metrics_cloudwatch_embedded::Builder::new()
        .cloudwatch_namespace(namespace)
        .init()?;
    for &(name, unit, kind) in ALL {
        match kind {
            Kind::Counter => ::metrics::describe_counter!(name, unit, ""),
            Kind::Sample => ::metrics::describe_histogram!(name, unit, ""),
        }
    }
    // With the JSON log format, Lambda reads a line's `level` and gives a line without one the
    // level INFO, which an application log level of WARN or ERROR would drop ("Log-level
    // filtering", Lambda developer guide): the documents carry the level Lambda lets through.
    collector.set_property("level", passing_level(lookup("AWS_LAMBDA_LOG_LEVEL")));
    Ok(collector)
}

/// The lowest level Lambda's application log level lets through.
fn passing_level(configured: Option<String>) -> &'static str {
    match configured
        .map(|level| level.trim().to_ascii_uppercase())
        .as_deref()
    {
        Some("TRACE") => "TRACE",
        Some("DEBUG") => "DEBUG",
        Some("WARN") => "WARN",
        Some("ERROR") => "ERROR",
        Some("FATAL") => "FATAL",
        _ => "INFO",
    }
}

/// Writes what was recorded since the last flush as EMF documents, one JSON object per line,
/// with `ids` as properties; nothing when nothing was recorded.
pub fn flush(
    collector: &Collector,
    ids: &InvocationIds,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for (name, value) in ids.properties() {
        match value {
            Some(value) => collector.set_property(name, value.as_str()),
            None => collector.remove_property(name),
        };
    }
    let written = collector.flush(&mut *out);
    for (name, _) in ids.properties() {
        collector.remove_property(name);
    }
    written
}

/// Flushes to stdout, where Lambda sends it to CloudWatch Logs, which extracts the metrics.
///
/// Each document is its own line, written whole with stdout locked, and never inside a tracing
/// event: CloudWatch takes a log event as EMF only when the event is the JSON object with nothing
/// around it ("Specification: Embedded metric format", CloudWatch user guide). Lambda passes such
/// a line through as it is under the JSON log format on an OS-only runtime such as
/// `provided.al2023`, where only system logs are formatted by Lambda and application logs that
/// are already JSON are not encoded again ("Configuring JSON and plain text log formats", Lambda
/// developer guide).
pub fn flush_to_stdout(collector: &Collector, ids: &InvocationIds) {
    let mut lines = Vec::new();
    if let Err(error) = flush(collector, ids, &mut lines) {
        tracing::warn!(%error, "metrics could not be written");
        return;
    }
    if lines.is_empty() {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_all(&lines).and_then(|()| stdout.flush()) {
        drop(stdout);
        tracing::warn!(%error, "metrics could not be written");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metrics_are_fifteen_distinct_names_counted_or_timed() {
        let mut names: Vec<&str> = ALL.iter().map(|(name, _, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 15);
        for (name, unit, _) in ALL {
            let seconds = name.ends_with("Seconds");
            assert_eq!(*unit == Unit::Seconds, seconds, "{name}");
            assert!(*unit == Unit::Seconds || *unit == Unit::Count, "{name}");
        }
    }

    #[test]
    fn every_metric_function_is_a_no_op_without_a_recorder() {
        calls_ingested();
        alerts_opened(2);
        alert_acknowledgement_seconds(chrono::TimeDelta::seconds(-1));
        scheduler_pass_seconds(Duration::from_millis(1500));
        alerts_unnotified(0);
    }

    #[test]
    fn the_documents_carry_the_level_lambda_lets_through() {
        assert_eq!(passing_level(None), "INFO");
        assert_eq!(passing_level(Some("warn".into())), "WARN");
        assert_eq!(passing_level(Some(" ERROR ".into())), "ERROR");
        assert_eq!(passing_level(Some("loud".into())), "INFO");
    }
}
