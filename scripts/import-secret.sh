#!/usr/bin/env bash
# Prints a portal's import secret: scripts/portal-secret.sh import PORTAL_ID [SECRET_ARN].
exec "$(dirname "$0")/portal-secret.sh" import "$@"
