#!/usr/bin/env bash
# Prints a portal's import secret, to hand to the integration that imports clients into it:
#   base64url_nopad(HMAC-SHA256(master secret, "portal:" + portalId))   (DESIGN.md section 4)
#
# usage: scripts/import-secret.sh PORTAL_ID [SECRET_ARN]
#   The master secret is read from IMPORT_SECRET when set (local use); otherwise from Secrets
#   Manager (the stack output ImportMasterSecretArn), which needs the AWS CLI and
#   secretsmanager:GetSecretValue on that secret.
set -euo pipefail
portal_id=${1:?usage: scripts/import-secret.sh PORTAL_ID [SECRET_ARN]}
[[ $portal_id =~ ^[1-9][0-9]{0,9}$ ]] || { echo "portal id must be a positive integer" >&2; exit 2; }
if [[ -n ${IMPORT_SECRET:-} ]]; then
  master=$IMPORT_SECRET
else
  arn=${2:?give the secret ARN (stack output ImportMasterSecretArn) or set IMPORT_SECRET}
  master=$(aws secretsmanager get-secret-value --secret-id "$arn" --query SecretString --output text)
fi
printf 'portal:%s' "$portal_id" \
  | openssl dgst -sha256 -mac HMAC -macopt "key:$master" -binary \
  | basenc --base64url | tr -d '=\n'
echo
