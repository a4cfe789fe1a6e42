#!/bin/sh
# Deliberately hanging guest test: must be reported as timed out.
echo "ok 1 - started"
sleep 1000
