#!/usr/bin/env bash
# Fuzzes the JSON request decoder: see scripts/fuzz.sh.
exec "$(dirname "$0")/fuzz.sh" json "$@"
