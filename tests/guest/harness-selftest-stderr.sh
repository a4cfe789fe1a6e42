#!/bin/sh
# Deliberately reports its only result on stderr: used only by
# tests/harness-check to show that results count from stdout alone.
echo "ok 1 - a result on stderr, which must not count" >&2
echo "1..1" >&2
