//! What `template.yaml` must hold for an operator to be told when the service fails and for
//! nothing to be lost with the stack: each check lists what is missing, runs on the real
//! template (nothing missing) and on a copy with one part taken away (that part reported).

use serde_yaml::{Mapping, Value};

/// Five years, the access log's retention (HSLF-FS 2016:40), in days.
const FIVE_YEARS_IN_DAYS: i64 = 1826;

fn template() -> Value {
    serde_yaml::from_str(shared::store::schema::TEMPLATE).unwrap()
}

/// The resource `!Ref` (or `!GetAtt X.Arn`) names.
fn reference(value: &Value) -> Option<&str> {
    match value {
        Value::Tagged(tagged) if tagged.tag == "Ref" => tagged.value.as_str(),
        Value::Tagged(tagged) if tagged.tag == "GetAtt" => tagged
            .value
            .as_str()
            .and_then(|name| name.split('.').next()),
        _ => None,
    }
}

fn resources(template: &Value) -> &Mapping {
    template["Resources"].as_mapping().unwrap()
}

fn resources_of<'a>(
    template: &'a Value,
    kind: &'a str,
) -> impl Iterator<Item = (&'a str, &'a Value)> {
    resources(template)
        .iter()
        .filter(move |(_, resource)| resource["Type"] == kind)
        .map(|(name, resource)| (name.as_str().unwrap(), resource))
}

/// The alarm on `metric` of `namespace` whose `FunctionName` dimension is `function`.
fn function_alarm<'a>(template: &'a Value, function: &str, metric: &str) -> Option<&'a str> {
    resources_of(template, "AWS::CloudWatch::Alarm")
        .find(|(_, alarm)| {
            let properties = &alarm["Properties"];
            properties["Namespace"] == "AWS/Lambda"
                && properties["MetricName"] == metric
                && properties["Dimensions"]
                    .as_sequence()
                    .is_some_and(|dimensions| {
                        dimensions.iter().any(|dimension| {
                            dimension["Name"] == "FunctionName"
                                && reference(&dimension["Value"]) == Some(function)
                        })
                    })
                && notifies_the_operator(alarm)
        })
        .map(|(name, _)| name)
}

fn notifies_the_operator(alarm: &Value) -> bool {
    alarm["Properties"]["AlarmActions"]
        .as_sequence()
        .is_some_and(|actions| {
            actions
                .iter()
                .any(|action| reference(action) == Some("OperatorTopic"))
        })
}

/// Every function's log group, retention, log format, error and throttle alarms, rollback
/// and tracing.
fn function_problems(template: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let globals = &template["Globals"]["Function"];
    if globals["LoggingConfig"]["LogFormat"] != "JSON" {
        problems.push("functions do not log JSON".to_string());
    }
    if reference(&globals["LoggingConfig"]["ApplicationLogLevel"]) != Some("LogLevel") {
        problems.push("the application log level is not the LogLevel parameter".to_string());
    }
    for (name, function) in resources_of(template, "AWS::Serverless::Function") {
        let properties = &function["Properties"];
        match reference(&properties["LoggingConfig"]["LogGroup"]) {
            None => problems.push(format!("{name} has no log group of its own")),
            Some(group) => {
                let group = &resources(template)[group];
                if group["Type"] != "AWS::Logs::LogGroup" {
                    problems.push(format!("{name}'s log group is not a log group"));
                } else if reference(&group["Properties"]["RetentionInDays"])
                    != Some("LogRetentionDays")
                {
                    problems.push(format!("{name}'s log group has no retention"));
                }
            }
        }
        let tracing = properties.get("Tracing").unwrap_or(&globals["Tracing"]);
        if tracing != "Active" {
            problems.push(format!("{name} is not traced"));
        }
        match function_alarm(template, name, "Errors") {
            None => problems.push(format!("{name} has no error alarm")),
            Some(alarm) => {
                let rollback = properties["DeploymentPreference"]["Alarms"]
                    .as_sequence()
                    .is_some_and(|alarms| alarms.iter().any(|a| reference(a) == Some(alarm)));
                if !rollback {
                    problems.push(format!(
                        "{name}'s error alarm does not roll back its deployments"
                    ));
                }
            }
        }
        if function_alarm(template, name, "Throttles").is_none() {
            problems.push(format!("{name} has no throttle alarm"));
        }
    }
    if globals["AutoPublishAlias"].as_str().is_none() || globals["DeploymentPreference"].is_null() {
        problems.push("deployments are not published to an alias through CodeDeploy".to_string());
    }
    problems
}

/// The scheduler's asynchronous invocation: bounded retries and age, a failure destination
/// with an alarm, one execution at a time.
fn scheduler_problems(template: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let scheduler = &template["Resources"]["QuestionnaireSchedulerFunction"]["Properties"];
    if scheduler["ReservedConcurrentExecutions"] != 1 {
        problems.push("the scheduler may run more than one pass at a time".to_string());
    }
    let invoke = &scheduler["EventInvokeConfig"];
    if invoke["MaximumRetryAttempts"]
        .as_i64()
        .is_none_or(|n| n > 2)
    {
        problems.push("the scheduler's retries are not bounded".to_string());
    }
    if invoke["MaximumEventAgeInSeconds"]
        .as_i64()
        .is_none_or(|s| s > 900)
    {
        problems.push("the scheduler's events may wait longer than three passes".to_string());
    }
    match reference(&invoke["DestinationConfig"]["OnFailure"]["Destination"]) {
        None => problems.push("the scheduler has no failure destination".to_string()),
        Some(queue) if !queue_has_alarm(template, queue) => {
            problems.push("nobody is told of the scheduler's failures".to_string());
        }
        Some(_) => {}
    }
    let publishes_results = scheduler["Policies"]
        .as_sequence()
        .into_iter()
        .flatten()
        .flat_map(|policy| policy["Statement"].as_sequence().into_iter().flatten())
        .any(|statement| {
            statement["Action"] == "sns:Publish"
                && reference(&statement["Resource"]) == Some("OperatorTopic")
        });
    if !publishes_results {
        problems.push("the scheduler may not publish the alarm-chain test's result".to_string());
    }
    problems
}

fn queue_has_alarm(template: &Value, queue: &str) -> bool {
    resources_of(template, "AWS::CloudWatch::Alarm").any(|(_, alarm)| {
        let properties = &alarm["Properties"];
        properties["MetricName"] == "ApproximateNumberOfMessagesVisible"
            && properties["Dimensions"][0]["Name"] == "QueueName"
            && reference(&properties["Dimensions"][0]["Value"]) == Some(queue)
            && notifies_the_operator(alarm)
    })
}

/// Queues: each has a dead-letter queue, or is where failures land and has an alarm.
fn queue_problems(template: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, queue) in resources_of(template, "AWS::SQS::Queue") {
        let has_dead_letters =
            reference(&queue["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]).is_some();
        if !has_dead_letters && !queue_has_alarm(template, name) {
            problems.push(format!(
                "{name} has neither a dead-letter queue nor an alarm"
            ));
        }
    }
    problems
}

/// Tables, secrets, the API's access log and the backup vault survive the stack.
fn retention_problems(template: &Value) -> Vec<String> {
    let kept = [
        "AWS::DynamoDB::Table",
        "AWS::SecretsManager::Secret",
        "AWS::Backup::BackupVault",
    ];
    let mut problems = Vec::new();
    for (name, resource) in resources(template) {
        let name = name.as_str().unwrap();
        let kind = resource["Type"].as_str().unwrap_or_default();
        if !kept.contains(&kind) && name != "HttpApiAccessLogs" {
            continue;
        }
        for policy in ["DeletionPolicy", "UpdateReplacePolicy"] {
            if resource[policy] != "Retain" {
                problems.push(format!("{name} is not retained ({policy})"));
            }
        }
    }
    problems
}

/// A number in the template, or the default of the parameter it refers to, with that
/// parameter's minimum (what a deployment can set it to).
fn least_days(template: &Value, value: &Value) -> Option<i64> {
    if let Some(days) = value.as_i64() {
        return Some(days);
    }
    let parameter = &template["Parameters"][reference(value)?];
    let default = parameter["Default"].as_i64()?;
    let minimum = parameter["MinValue"].as_i64()?;
    Some(default.min(minimum))
}

/// Every backup rule covering the access log keeps it at least five years.
fn backup_problems(template: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let plans: Vec<&str> = resources_of(template, "AWS::Backup::BackupSelection")
        .filter(|(_, selection)| {
            selection["Properties"]["BackupSelection"]["Resources"]
                .as_sequence()
                .is_some_and(|chosen| {
                    chosen
                        .iter()
                        .any(|r| reference(r) == Some("AccessLogTable"))
                })
        })
        .filter_map(|(_, selection)| reference(&selection["Properties"]["BackupPlanId"]))
        .collect();
    if plans.is_empty() {
        problems.push("no backup plan covers the access log".to_string());
    }
    for plan in plans {
        let rules = template["Resources"][plan]["Properties"]["BackupPlan"]["BackupPlanRule"]
            .as_sequence()
            .cloned()
            .unwrap_or_default();
        for rule in rules {
            let kept = least_days(template, &rule["Lifecycle"]["DeleteAfterDays"]);
            if kept.is_none_or(|days| days < FIVE_YEARS_IN_DAYS) {
                problems.push(format!("{plan} keeps the access log less than five years"));
            }
        }
    }
    problems
}

fn all_problems(template: &Value) -> Vec<String> {
    [
        function_problems(template),
        scheduler_problems(template),
        queue_problems(template),
        retention_problems(template),
        backup_problems(template),
    ]
    .concat()
}

/// The template with `change` made to it.
fn changed(change: impl FnOnce(&mut Value)) -> Value {
    let mut template = template();
    change(&mut template);
    template
}

fn resource<'a>(template: &'a mut Value, name: &str) -> &'a mut Value {
    &mut template["Resources"][name]
}

fn reports(template: &Value, expected: &str) {
    let problems = all_problems(template);
    assert!(
        problems.iter().any(|problem| problem == expected),
        "expected {expected:?} among {problems:?}"
    );
}

#[test]
fn the_template_lacks_nothing_an_operator_needs() {
    assert_eq!(all_problems(&template()), Vec::<String>::new());
}

#[test]
fn a_function_without_its_log_group_or_retention_is_reported() {
    let template = changed(|t| {
        let logging = &mut resource(t, "ClientsFunction")["Properties"]["LoggingConfig"];
        logging.as_mapping_mut().unwrap().remove("LogGroup");
    });
    reports(&template, "ClientsFunction has no log group of its own");
    let template = changed(|t| {
        let group = &mut resource(t, "PortalsLogGroup")["Properties"];
        group.as_mapping_mut().unwrap().remove("RetentionInDays");
    });
    reports(&template, "PortalsFunction's log group has no retention");
}

#[test]
fn a_function_without_its_error_alarm_or_tracing_is_reported() {
    let template = changed(|t| {
        t["Resources"]
            .as_mapping_mut()
            .unwrap()
            .remove("IntegrationsErrorsAlarm");
    });
    reports(&template, "IntegrationsFunction has no error alarm");
    let template = changed(|t| {
        resource(t, "AccessLogFunction")["Properties"]["Tracing"] = "PassThrough".into();
    });
    reports(&template, "AccessLogFunction is not traced");
    let template = changed(|t| {
        let preference = &mut resource(t, "AuthenticationFunction")["Properties"];
        preference
            .as_mapping_mut()
            .unwrap()
            .remove("DeploymentPreference");
    });
    reports(
        &template,
        "AuthenticationFunction's error alarm does not roll back its deployments",
    );
}

#[test]
fn a_scheduler_without_its_failure_destination_or_single_concurrency_is_reported() {
    let template = changed(|t| {
        let invoke =
            &mut resource(t, "QuestionnaireSchedulerFunction")["Properties"]["EventInvokeConfig"];
        invoke.as_mapping_mut().unwrap().remove("DestinationConfig");
    });
    reports(&template, "the scheduler has no failure destination");
    let template = changed(|t| {
        let properties = &mut resource(t, "QuestionnaireSchedulerFunction")["Properties"];
        properties
            .as_mapping_mut()
            .unwrap()
            .remove("ReservedConcurrentExecutions");
    });
    reports(
        &template,
        "the scheduler may run more than one pass at a time",
    );
    let template = changed(|t| {
        t["Resources"]
            .as_mapping_mut()
            .unwrap()
            .remove("SchedulerFailureAlarm");
    });
    reports(&template, "nobody is told of the scheduler's failures");
    let template = changed(|t| {
        let policies = &mut resource(t, "QuestionnaireSchedulerFunction")["Properties"]["Policies"];
        let statements = policies[0]["Statement"].as_sequence_mut().unwrap();
        statements.retain(|s| s["Sid"] != "AlarmChainTestResult");
    });
    reports(
        &template,
        "the scheduler may not publish the alarm-chain test's result",
    );
}

#[test]
fn a_table_secret_or_log_that_is_not_retained_is_reported() {
    for (name, policy) in [
        ("AccessLogTable", "DeletionPolicy"),
        ("DataTable", "UpdateReplacePolicy"),
        ("WebhookMasterSecret", "DeletionPolicy"),
        ("HttpApiAccessLogs", "DeletionPolicy"),
    ] {
        let template = changed(|t| {
            resource(t, name).as_mapping_mut().unwrap().remove(policy);
        });
        reports(&template, &format!("{name} is not retained ({policy})"));
    }
}

#[test]
fn a_backup_plan_keeping_the_access_log_less_than_five_years_is_reported() {
    let template = changed(|t| {
        t["Parameters"]["AccessLogBackupRetentionDays"]["MinValue"] = 365.into();
    });
    reports(
        &template,
        "AccessLogBackupPlan keeps the access log less than five years",
    );
    let template = changed(|t| {
        let rules =
            &mut resource(t, "AccessLogBackupPlan")["Properties"]["BackupPlan"]["BackupPlanRule"];
        rules[0]["Lifecycle"]["DeleteAfterDays"] = 1825.into();
    });
    reports(
        &template,
        "AccessLogBackupPlan keeps the access log less than five years",
    );
    let template = changed(|t| {
        t["Resources"]
            .as_mapping_mut()
            .unwrap()
            .remove("AccessLogBackupSelection");
    });
    reports(&template, "no backup plan covers the access log");
}

#[test]
fn a_queue_without_dead_letters_or_an_alarm_is_reported() {
    let template = changed(|t| {
        t["Resources"]
            .as_mapping_mut()
            .unwrap()
            .remove("DiallerDeadLetterAlarm");
    });
    reports(
        &template,
        "DiallerDeadLetterQueue has neither a dead-letter queue nor an alarm",
    );
}

/// Every alarm's description names the runbook entry of `docs/operations.md` it is for, and
/// that entry exists.
#[test]
fn every_alarm_names_a_runbook_entry_that_exists() {
    let runbook = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/operations.md"
    ))
    .unwrap();
    let headings: Vec<&str> = runbook
        .lines()
        .filter_map(|line| line.strip_prefix("### "))
        .collect();
    let template = template();
    let mut alarms = 0;
    for (name, alarm) in resources_of(&template, "AWS::CloudWatch::Alarm") {
        alarms += 1;
        let description = match &alarm["Properties"]["AlarmDescription"] {
            Value::Tagged(tagged) => tagged.value.as_str().unwrap_or_default().to_string(),
            other => other.as_str().unwrap_or_default().to_string(),
        };
        let entry = description
            .split("(docs/operations.md, ")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .unwrap_or_else(|| panic!("{name} names no runbook entry: {description:?}"));
        assert!(
            headings.contains(&entry),
            "{name}: no runbook entry {entry:?} in {headings:?}"
        );
        assert!(notifies_the_operator(alarm), "{name} notifies nobody");
    }
    assert!(alarms >= 28, "{alarms} alarms");
}
