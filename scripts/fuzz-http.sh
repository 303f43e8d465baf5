#!/usr/bin/env bash
# Fuzzes the HTTP request parser: see scripts/fuzz.sh.
exec "$(dirname "$0")/fuzz.sh" http "$@"
