#!/usr/bin/env bash
# Prints a portal's derived secret, to hand to the party that needs it:
#   import:  base64url_nopad(HMAC-SHA256(import master,  "portal:"  + portalId))  (DESIGN.md section 4)
#   webhook: base64url_nopad(HMAC-SHA256(webhook master, "webhook:" + portalId))  (the voice platform)
#   header:  base64url_nopad(HMAC-SHA256(webhook master, "header:"  + portalId))  (ElevenLabs' X-Webhook-Secret)
#
# usage: scripts/portal-secret.sh import|webhook|header PORTAL_ID [SECRET_ARN]
#   The master secret is read from IMPORT_SECRET / WEBHOOK_SECRET when set (local use);
#   otherwise from Secrets Manager (stack output ImportMasterSecretArn / WebhookMasterSecretArn),
#   which needs the AWS CLI and secretsmanager:GetSecretValue on that secret.
set -euo pipefail
usage="usage: scripts/portal-secret.sh import|webhook|header PORTAL_ID [SECRET_ARN]"
kind=${1:?$usage}
portal_id=${2:?$usage}
case $kind in
  import) prefix=portal variable=IMPORT_SECRET output=ImportMasterSecretArn ;;
  webhook) prefix=webhook variable=WEBHOOK_SECRET output=WebhookMasterSecretArn ;;
  header) prefix=header variable=WEBHOOK_SECRET output=WebhookMasterSecretArn ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
[[ $portal_id =~ ^[1-9][0-9]{0,9}$ ]] || { echo "portal id must be a positive integer" >&2; exit 2; }
if [[ -n ${!variable:-} ]]; then
  master=${!variable}
else
  arn=${3:?give the secret ARN (stack output $output) or set $variable}
  master=$(aws secretsmanager get-secret-value --secret-id "$arn" --query SecretString --output text)
fi
printf '%s:%s' "$prefix" "$portal_id" \
  | openssl dgst -sha256 -mac HMAC -macopt "key:$master" -binary \
  | basenc --base64url | tr -d '=\n'
echo
